# @summary A web server: the base profile and the web sites from Hiera.
class role::webserver {
  include profile::base
  include profile::web
}
