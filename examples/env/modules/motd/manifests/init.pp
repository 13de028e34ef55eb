# Writes the message of the day.
class motd (String $message = 'Hello') {
  file { '/etc/motd':
    ensure  => file,
    content => epp('motd/motd.epp', { 'message' => $message }),
  }
}
