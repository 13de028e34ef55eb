case $facts['os']['family'] {
  'RedHat', 'CentOS': { $pkg = 'httpd' }
  /^Deb/: { $pkg = 'apache2' }
  Integer: {}
  default: { fail('unsupported') }
}
