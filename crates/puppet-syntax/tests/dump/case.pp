case $x {
  1, 2: { a }
  /r/: { b c }
  default: {}
}
