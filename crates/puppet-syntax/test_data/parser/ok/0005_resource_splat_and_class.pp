$attrs = { ensure => present, uid => 1000 }
user { 'bob': * => $attrs }
class { 'ntp': servers => ['a', 'b'] }
resource { 'foo::bar': }
