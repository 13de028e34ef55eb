class ntp::config (
  Array[String] $servers = ['pool.ntp.org'],
  Optional[Integer[1, 10]] $burst = undef,
  $plain,
) inherits ntp::params {
  file { '/etc/ntp.conf': content => template('ntp/ntp.conf.erb') }
}
