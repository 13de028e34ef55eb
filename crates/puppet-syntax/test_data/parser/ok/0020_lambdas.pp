$doubled = $list.map |$x| { $x * 2 }
each($hash) |String $k, $v| { notice("${k}=${v}") }
$list.reduce(0) |$memo, $x| { $memo + $x }
with(1, 2) |*$rest| { $rest }
