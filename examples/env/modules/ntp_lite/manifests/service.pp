# Runs the NTP daemon.
class ntp_lite::service {
  service { 'ntp':
    ensure => $ntp_lite::enable ? {
      true    => running,
      default => stopped,
    },
    enable => $ntp_lite::enable,
  }
}
