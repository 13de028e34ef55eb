$x = 1 + 2 * 3 - 4 / 5 % 6 << 1 >> 2
$y = !$a and $b or -$c
$z = $a == 1 and $b != 2 and $c < 3 and $d >= 4
$w = $a =~ /x/ and $b !~ /y/ and $c in [1]
$v = *$a
$x += 1
$x -= 2
