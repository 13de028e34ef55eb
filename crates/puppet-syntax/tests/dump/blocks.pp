$x = 1; $y = 2
file { a: ; b: }
