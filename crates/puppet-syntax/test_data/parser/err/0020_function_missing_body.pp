function foo::bar(Integer $a) >> 
$b = 1
