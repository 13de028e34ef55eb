# Puppet's lexer reads `/` after `}` as the start of a regex, and its regex pattern
# (/[^/]*/) spans lines, so this is a syntax error in Puppet 7.23 too (checked with
# `puppet parser dump`: Syntax error at '(?-mix: 2,\n3 )' (line: 1, column: 30)).
notice($c ? { default => 4 } / 2,
3 / 4)
