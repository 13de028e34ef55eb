$a = [1, 2.5, 0x1F, 017, 1e3, true, false, undef, default, 'x', [], {}]
$h = { 'a' => 1, b => [2], 3 => { c => 4 }, }
$v = $h['a']
$w = $a[1, 2]
