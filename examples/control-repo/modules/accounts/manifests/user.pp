# @summary A local user with its own group and, optionally, SSH keys.
define accounts::user (
  Integer[1000]             $uid,
  Array[String[1]]          $groups   = [],
  Enum['present', 'absent'] $ensure   = 'present',
  String[1]                 $shell    = '/bin/bash',
  Array[String[1]]          $ssh_keys = [],
) {
  group { $title:
    ensure => $ensure,
    gid    => $uid,
  }

  user { $title:
    ensure     => $ensure,
    uid        => $uid,
    gid        => $uid,
    groups     => $groups,
    shell      => $shell,
    home       => "/home/${title}",
    managehome => true,
    require    => Group[$title],
  }

  unless $ssh_keys.empty {
    file { "/home/${title}/.ssh":
      ensure => directory,
      owner  => $title,
      group  => $title,
      mode   => '0700',
    }
    -> file { "/home/${title}/.ssh/authorized_keys":
      ensure  => file,
      owner   => $title,
      group   => $title,
      mode    => '0600',
      content => $ssh_keys.map |$key| { "ssh-ed25519 ${key}\n" }.join(''),
    }
  }
}
