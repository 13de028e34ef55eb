$a = "open ${x
$b = 2
