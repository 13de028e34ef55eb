$a = $x.map |$v| { $v + 1 }
$b = $x.each |Integer $k, $v = 1| { notice($k) }
$c.foo
$d = [1].filter |$x| >> Boolean { true }
