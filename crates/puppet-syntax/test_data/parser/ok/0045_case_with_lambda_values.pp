$r = case $x {
  [1, 2]: { 'list' }
  { a => 1 }: { 'hash' }
  default: { $x.map |$y| { $y } }
}
