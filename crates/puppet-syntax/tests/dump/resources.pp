file { '/tmp/a': ensure => file, mode => '0644' }
file { ['a', 'b']: ; 'c': owner => root }
@user { 'u': }
@@host { 'h': ip => 1 }
exec { 'x': * => $h }
class { 'foo': p => 1 }
