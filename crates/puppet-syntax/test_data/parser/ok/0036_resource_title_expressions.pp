file { "/tmp/${name}": ensure => file }
file { $paths: ensure => directory }
exec { 'run': command => '/bin/true', unless => 'test -f /x', path => ['/bin'] }
