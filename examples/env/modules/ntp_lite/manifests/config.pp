# Writes the NTP configuration file from the class parameters.
class ntp_lite::config {
  $lines = $ntp_lite::servers.map |$s| { "server ${s} iburst" }
  file { '/etc/ntp.conf':
    ensure  => file,
    mode    => '0644',
    content => ntp_lite::render_config($lines),
  }
}
