$a = @(END)
  text
    more
  | END
$b = @("END":json/tn)
  {"a": "${x}\t"}
  |- END
notice(@(X), 1)
hello
X
