$a = 1; $b = 2;
if true { $c = 3; $d = 4 }
