# The main manifest: which role each node gets. Roles and profiles live in site-modules/,
# the component modules they use in modules/.

# Top-scope resource defaults apply to every resource of the type in the catalog.
File {
  backup => false,
}
Exec {
  path => ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'],
}

node 'db01.example.com' {
  include role::database
}

node /^web\d+\.example\.com$/ {
  include role::webserver
}

node default {
  include role::base
}
