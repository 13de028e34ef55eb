# @summary Keeps the clock in sync with chrony: package, configuration, service.
#
# The OS-specific defaults of the parameters come from the module's own Hiera data.
class timesync (
  Array[String[1], 1]           $servers,
  String[1]                     $package_name,
  String[1]                     $service_name,
  Timesync::Absolutepath        $config_path,
  Optional[String[1]]           $driftfile      = undef,
  Boolean                       $iburst         = true,
  Enum['running', 'stopped']    $service_ensure = 'running',
) {
  contain timesync::install
  contain timesync::config
  contain timesync::service

  Class['timesync::install']
  -> Class['timesync::config']
  ~> Class['timesync::service']
}
