define foo::bar ($x, *$rest) {
  file { $x: }
}
