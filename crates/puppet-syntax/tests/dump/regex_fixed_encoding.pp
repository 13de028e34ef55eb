# Regexps Ruby gives its FIXEDENCODING option print as /(?-mix:...)/ (issue 15).
$a = /é/
$b = /a€b\/c/
$c = /\u00e9/
$d = /\u0041/
$e = /\p{L}/
$f = /\u{41 e9}/
$g = /ascii\/only/
if 'x' =~ /ü+/ { }
case $a { /é/: { } default: { } }
node /ü/ { }
