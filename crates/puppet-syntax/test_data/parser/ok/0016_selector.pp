$os = $facts['os']['family'] ? {
  'RedHat'          => 'rh',
  /^(Debian|Ubuntu)$/ => 'deb',
  default           => 'other',
}
