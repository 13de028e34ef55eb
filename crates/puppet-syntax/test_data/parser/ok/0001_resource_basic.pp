file { '/tmp/x':
  ensure  => file,
  mode    => '0644',
  content => "hello\n",
}
