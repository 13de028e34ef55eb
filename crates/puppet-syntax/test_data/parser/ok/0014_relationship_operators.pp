Package['ntp'] -> File['/etc/ntp.conf'] ~> Service['ntp']
Service['ntp'] <- File['/etc/ntp.conf'] <~ Package['ntp']
