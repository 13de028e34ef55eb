$a = 10 / 2 / 5
$b = $x / $y
$c = $s =~ /a\/b/
$d = [/foo/, /bar/]
$e = ($x) / 2
