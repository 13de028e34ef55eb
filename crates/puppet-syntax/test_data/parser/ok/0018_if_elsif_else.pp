if $a {
  notice('a')
} elsif $b == 1 {
  notice('b')
} else {
  notice('c')
}
