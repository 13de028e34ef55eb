$a = 1 == 2 or 3 != 4 and !(5 < 6)
$b = 1 <= 2 and 3 >= 4 and 5 > 6
$c = 'a' in ['a', 'b']
$d = 'abc' =~ /b/ and 'abc' !~ /z/
$e = $x =~ String
