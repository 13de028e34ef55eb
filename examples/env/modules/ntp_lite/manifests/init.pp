# Keeps the clock right with a minimal NTP client configuration.
class ntp_lite (
  Array[Ntp_lite::Server] $servers = ['0.pool.ntp.org', '1.pool.ntp.org'],
  Boolean                 $enable  = true,
) {
  contain ntp_lite::install
  contain ntp_lite::config
  contain ntp_lite::service

  Class['ntp_lite::install']
  -> Class['ntp_lite::config']
  ~> Class['ntp_lite::service']
}
