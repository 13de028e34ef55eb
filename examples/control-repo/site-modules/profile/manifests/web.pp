# @summary nginx and the node's web sites (a hash merge of the hierarchy's `vhosts`).
class profile::web (
  String[1]          $worker_user,
  Hash[String, Hash] $vhosts           = {},
  Integer[1]         $worker_processes = $facts['processors']['count'],
) {
  class { 'nginx_lite':
    worker_processes => $worker_processes,
    worker_user      => $worker_user,
  }

  $vhosts.each |$name, $config| {
    nginx_lite::vhost { $name:
      * => $config,
    }
  }

  # The sites are only deployed once the users exist.
  Class['profile::users'] -> Class['profile::web']
}
