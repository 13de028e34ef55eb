$a = @(END)
  plain text, no ${interpolation}
  END
notice($a)
