foo { 'x':
  unless   => 'a',
  require  => Package['b'],
  before   => File['c'],
  and      => 1,
  class    => 'd',
  node     => 'e',
}
