# @summary The chrony service.
class timesync::service {
  service { $timesync::service_name:
    ensure => $timesync::service_ensure,
    enable => $timesync::service_ensure == 'running',
  }
}
