notice(1)
notice 1, 2
include a, b
$x = foo(1, a => 2, b => 3)
foo()
$y = bar(1) |$x| { $x }
contain foo
require bar
