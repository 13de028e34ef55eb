$a = !$b and -$c * 2 + 3 == 4 or $d in $e
$f = - - 1
$g = !!$h
