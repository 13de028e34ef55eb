User <| title == 'a'
$b = 1
