$x = "plain"
$y = "a ${x} b $y c ${x[1]} ${3} ${a + 1} \t\u0041 \$ \q"
$z = ""
