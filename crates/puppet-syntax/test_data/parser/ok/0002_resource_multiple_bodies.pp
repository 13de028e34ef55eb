file {
  '/tmp/a':
    ensure => file;
  ['/tmp/b', '/tmp/c']:
    ensure => directory;
  default:
    owner => root;
}
