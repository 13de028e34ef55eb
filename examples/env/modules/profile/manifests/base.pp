# Baseline of every node: admin accounts, common packages, time synchronisation and the motd.
class profile::base (
  Array[String[1]] $admins = [],
) {
  # Every level of the hierarchy adds packages; duplicates are dropped.
  $packages = lookup('profile::base::packages', Array[String[1]], 'unique', [])
  package { $packages:
    ensure => installed,
  }

  group { 'admins':
    ensure => present,
    gid    => 2000,
  }
  $admins.each |Integer $index, String $login| {
    user { $login:
      ensure     => present,
      uid        => 2001 + $index,
      gid        => 'admins',
      groups     => ['sudo'],
      home       => "/home/${login}",
      managehome => true,
      shell      => '/bin/bash',
      require    => Group['admins'],
    }
  }

  include ntp_lite
  include motd
}
