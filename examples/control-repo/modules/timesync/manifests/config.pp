# @summary chrony's configuration file, from an EPP template.
class timesync::config {
  file { $timesync::config_path:
    ensure  => file,
    owner   => 'root',
    group   => 'root',
    mode    => '0644',
    content => epp('timesync/chrony.conf.epp', {
      'servers'   => $timesync::servers,
      'iburst'    => $timesync::iburst,
      'driftfile' => $timesync::driftfile,
    }),
  }
}
