# FIXME: Puppet's lexer cannot match a regex across a newline (PATTERN_REGEX is /[^/\n]*/), so
# it lexes the `/` after `}` below as a division and the call is valid; we lex a regex from
# that `/` to the next line's `/` and report a syntax error. Move to ok/ once fixed.
notice($c ? { default => 4 } / 2,
3 / 4)
