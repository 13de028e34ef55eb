# Installs, configures and runs nginx, the web server behind every webapp::site.
class webapp (
  String[1]       $package_name     = 'nginx',
  String[1]       $service_name     = 'nginx',
  Integer[1, 64]  $worker_processes = $facts['processors']['count'],
  Pattern[/\A\//] $docroot_base     = '/srv/www',
) {
  # The account nginx runs as; declared virtual here, realized by each webapp::site.
  @group { 'webapp':
    ensure => present,
    system => true,
  }
  @user { 'webapp':
    ensure => present,
    gid    => 'webapp',
    home   => $docroot_base,
    shell  => '/usr/sbin/nologin',
    system => true,
  }

  package { $package_name:
    ensure => installed,
  }

  file { $docroot_base:
    ensure => directory,
    owner  => 'root',
    group  => 'root',
    mode   => '0755',
  }

  file { '/etc/nginx/nginx.conf':
    ensure  => file,
    owner   => 'root',
    group   => 'root',
    mode    => '0644',
    content => @("CONF"),
      # Managed by Puppet: local changes will be overwritten.
      user webapp;
      worker_processes ${worker_processes};
      pid /run/nginx.pid;

      events {
        worker_connections 1024;
      }

      http {
        include /etc/nginx/mime.types;
        default_type application/octet-stream;
        include /etc/nginx/sites-enabled/*.conf;
      }
      | CONF
  }

  exec { 'nginx-configtest':
    command     => 'nginx -t',
    refreshonly => true,
  }

  service { $service_name:
    ensure => running,
    enable => true,
  }

  Package[$package_name]
  -> File['/etc/nginx/nginx.conf']
  ~> Exec['nginx-configtest']
  ~> Service[$service_name]

  # Every site's configuration restarts nginx (collecting also realizes virtual ones).
  File <| tag == 'webapp_vhost' |> ~> Service[$service_name]
}
