if $a
notice('x')
