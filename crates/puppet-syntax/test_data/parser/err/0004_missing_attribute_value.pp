file { '/tmp/x': ensure => , mode => '0644' }
