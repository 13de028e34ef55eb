# @summary What every node has: packages, motd, resolvers, sysctl, sshd, time, users.
#
# Every parameter comes from Hiera (automatic parameter lookup); `packages` and `sysctl`
# are merged over the hierarchy (`lookup_options` in data/common.yaml).
class profile::base (
  Array[String[1]]                      $packages,
  String[1]                             $motd_message,
  String[1]                             $ssh_service,
  Array[String[1], 1]                   $resolvers,
  Hash[String[1], Variant[String, Integer]] $sysctl = {},
) {
  package { $packages:
    ensure => installed,
  }

  file { '/etc/motd':
    ensure  => file,
    mode    => '0644',
    content => template('profile/motd.erb'),
  }

  file { '/etc/resolv.conf':
    ensure  => file,
    content => $resolvers.map |$ip| { "nameserver ${ip}\n" }.join(''),
  }

  $sysctl.each |$key, $value| {
    profile::sysctl { $key:
      value => $value,
    }
  }

  service { $ssh_service:
    ensure => running,
    enable => true,
  }

  include profile::time
  include profile::users
}
