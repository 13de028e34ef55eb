node /^fuzz\./ {
  include m
  Exec { path => ['/bin', '/usr/bin'] }
  @@file { '/tmp/exported': ensure => file, tag => ['x'] }
  File <<| tag == 'x' |>>
  package { ['a', 'b']: ensure => latest }
  -> service { 'svc': ensure => running, subscribe => Package['a'] }
  ~> exec { 'restart': command => 'true', refreshonly => true }
  realize(Package['virtual'])
  file { 'named': path => '/tmp/named', alias => 'nick' }
  notify { 'n': require => File['nick'], loglevel => warning, noop => true }
}
node default { }
