$a = "never closed ${b} and $c
