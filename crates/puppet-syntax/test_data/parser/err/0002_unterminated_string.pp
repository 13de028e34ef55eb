$a = 'never closed
$b = 1
