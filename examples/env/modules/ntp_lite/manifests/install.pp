# Installs the NTP package.
class ntp_lite::install {
  package { 'ntp':
    ensure => installed,
  }
}
