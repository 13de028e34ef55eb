@user { 'alice': ensure => present }
@@sshkey { $facts['networking']['fqdn']: type => 'ssh-rsa', key => $key }
