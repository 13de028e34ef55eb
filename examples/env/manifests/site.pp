# The main manifest of the example environment.
node default {
  include ntp_lite
  class { 'motd':
    message => "Welcome to ${facts['networking']['fqdn']}",
  }
  Class['ntp_lite'] -> Class['motd']
}

node /^web\d+\.example\.com$/ {
  include ntp_lite
  package { ['nginx', 'curl']:
    ensure => installed,
  }
  service { 'nginx':
    ensure    => running,
    enable    => true,
    subscribe => Package['nginx'],
  }
}
