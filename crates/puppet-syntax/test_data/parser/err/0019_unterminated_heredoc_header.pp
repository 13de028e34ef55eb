$a = @(END
text
END
