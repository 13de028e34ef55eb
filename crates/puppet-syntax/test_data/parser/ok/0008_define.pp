define apache::vhost (String $docroot, Integer $port = 80, *$rest) {
  notify { "vhost ${title} on ${port}": }
}
apache::vhost { 'example.com': docroot => '/var/www' }
