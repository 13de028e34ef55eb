# Writes /etc/motd from an EPP template; parameter defaults come from the module's Hiera data.
class motd (
  String[1]             $banner,
  Enum['short', 'long'] $style,
  Array[String[1]]      $notes,
  Optional[String[1]]   $contact = undef,
  Optional[String[1]]   $role    = undef,
  Pattern[/\A\//]       $path    = '/etc/motd',
) {
  file { $path:
    ensure  => file,
    owner   => 'root',
    group   => 'root',
    mode    => '0644',
    content => epp('motd/motd.epp', {
      'banner'  => $banner,
      'style'   => $style,
      'notes'   => $notes,
      'contact' => $contact,
      'role'    => $role,
    }),
  }
}
