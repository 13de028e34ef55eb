# @summary One nginx server block in conf.d, and its document root.
define nginx_lite::vhost (
  String[1]              $server_name = $title,
  Integer[1, 65535]      $port        = 80,
  String[1]              $docroot     = "/srv/www/${title}",
  Array[String[1]]       $aliases     = [],
  Hash[String, String]   $headers     = {},
  Boolean                $ssl         = false,
) {
  include nginx_lite

  file { "${nginx_lite::confd}/${title}.conf":
    ensure  => file,
    content => template('nginx_lite/vhost.conf.erb'),
    notify  => Service['nginx'],
  }

  file { $docroot:
    ensure => directory,
  }
}
