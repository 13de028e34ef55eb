$all = [*$list, 1]
$more = $list << 4
$merged = { a => 1 } + { b => 2 }
$diff = [1, 2, 3] - [2]
