notice(1,, 2)
$h = { a => 1,, b => 2 }
