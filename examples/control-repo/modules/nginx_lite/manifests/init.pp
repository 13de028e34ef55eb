# @summary A minimal nginx: package, main configuration, conf.d and the service.
class nginx_lite (
  String[1]  $package_name     = 'nginx',
  Integer[1] $worker_processes = 1,
  String[1]  $worker_user      = 'www-data',
  String[1]  $confd            = '/etc/nginx/conf.d',
) {
  package { $package_name:
    ensure => installed,
  }

  file { '/etc/nginx/nginx.conf':
    ensure  => file,
    content => template('nginx_lite/nginx.conf.erb'),
    require => Package[$package_name],
    notify  => Service['nginx'],
  }

  file { $confd:
    ensure  => directory,
    recurse => true,
    purge   => true,
    require => Package[$package_name],
  }

  service { 'nginx':
    ensure     => running,
    enable     => true,
    hasrestart => true,
  }
}
