class profile::web {
  package { 'nginx': ensure => installed }
  -> file { '/etc/nginx/nginx.conf': ensure => file }
  ~> service { 'nginx': ensure => running, enable => true }
}
