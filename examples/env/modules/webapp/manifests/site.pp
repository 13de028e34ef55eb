# One nginx virtual host: its document root, its configuration and the link that enables it.
define webapp::site (
  Enum['present', 'absent'] $ensure      = 'present',
  String[1]                 $server_name = $title,
  Array[String[1]]          $aliases     = [],
  Integer[1, 65535]         $port        = 80,
  Optional[String[1]]       $docroot     = undef,
  Boolean                   $ssl         = false,
  Boolean                   $access_log  = true,
  Array[String[1]]          $allow_from  = [],
) {
  include webapp

  $root = $docroot ? {
    undef   => "${webapp::docroot_base}/${title}",
    default => $docroot,
  }
  $available = "/etc/nginx/sites-available/${title}.conf"

  # Defaults for the files of this site only.
  File {
    owner => 'root',
    group => 'webapp',
    mode  => '0644',
  }

  realize(Group['webapp'], User['webapp'])

  if $ensure == 'present' {
    file { $root:
      ensure => directory,
      mode   => '0755',
    }
    file { $available:
      ensure  => file,
      content => template('webapp/vhost.conf.erb'),
      tag     => ['webapp_vhost'],
      require => [Package[$webapp::package_name], File[$root]],
    }
    file { "/etc/nginx/sites-enabled/${title}.conf":
      ensure => link,
      target => $available,
      tag    => ['webapp_vhost'],
    }
    File[$available] -> File["/etc/nginx/sites-enabled/${title}.conf"]
  } else {
    file { [$available, "/etc/nginx/sites-enabled/${title}.conf"]:
      ensure => absent,
      tag    => ['webapp_vhost'],
    }
  }
}
