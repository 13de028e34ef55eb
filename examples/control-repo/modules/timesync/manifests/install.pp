# @summary The chrony package.
class timesync::install {
  package { $timesync::package_name:
    ensure => installed,
  }
}
