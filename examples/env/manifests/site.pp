# The main manifest of the example environment: node definitions.

# Top-scope resource default: every exec in the environment searches these directories.
Exec {
  path => ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'],
}

node 'web01.example.com' {
  include profile::web

  # A site that only exists on this host, next to the ones from Hiera.
  webapp::site { 'status':
    server_name => 'status.web01.example.com',
    port        => 8081,
    access_log  => false,
    allow_from  => ['127.0.0.1', '192.0.2.0/24'],
  }
}

node /^web\d+\.example\.com$/ {
  include profile::web
}

node default {
  include profile::base

  notify { 'unclassified':
    message => "No role for ${trusted['certname']} (${facts['os']['name']} ${facts['os']['release']['full']})",
  }
}
