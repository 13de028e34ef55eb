# @summary Time synchronisation with the site's servers.
class profile::time (
  Array[String[1], 1] $servers,
) {
  class { 'timesync':
    servers => $servers,
  }
}
