$x.each |$a| {}
with(1) || { 2 }
