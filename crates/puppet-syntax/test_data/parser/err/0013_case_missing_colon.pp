case $x {
  1 { 'one' }
  default: {}
}
