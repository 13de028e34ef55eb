$b = @("END"/L)
    Hello ${name}, $x \
    continued\tand\n escaped
    |- END
