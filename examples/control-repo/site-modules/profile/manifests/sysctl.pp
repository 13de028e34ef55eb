# @summary One kernel parameter, set now and at boot.
define profile::sysctl (
  Variant[String, Integer] $value,
) {
  file { "/etc/sysctl.d/90-${title}.conf":
    ensure  => file,
    content => "${title} = ${value}\n",
  }
  ~> exec { "sysctl -p /etc/sysctl.d/90-${title}.conf":
    refreshonly => true,
  }
}
