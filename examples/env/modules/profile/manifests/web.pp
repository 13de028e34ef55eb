# Web server profile: the base profile plus nginx serving the sites listed in Hiera.
class profile::web {
  include profile::base
  contain webapp

  # Sites from every level of the hierarchy, merged key by key.
  $sites = lookup('profile::web::sites', Hash[String[1], Hash], 'deep', {})
  $sites.each |String $site, Hash $options| {
    webapp::site { $site:
      * => $options,
    }
  }

  Class['profile::base'] -> Class['webapp']
}
