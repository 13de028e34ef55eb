$x = !($a and !$b)
if !defined(Foo[a]) { notice(1) }
