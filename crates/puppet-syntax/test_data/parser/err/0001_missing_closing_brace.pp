class a {
  file { '/tmp/x': ensure => file }
