class a {
  if $x { b }
  c
  if $y { d } else { e }
  f
}
