File { owner => 'root', group => 'root' }
File['/tmp/x'] { mode => '0600', content +> 'more' }
Package['a', 'b'] { ensure => latest }
