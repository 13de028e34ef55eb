$a = @(END)
  text
  never ends
