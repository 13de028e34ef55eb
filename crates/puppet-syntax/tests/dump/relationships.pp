Package[a] -> File[b] ~> Service[c]
A <- B <~ C
