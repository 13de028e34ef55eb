$a = 'single \'quoted\' \\ text'
$b = "double ${a} and $a and ${a['k']} and ${x + 1} and \$not and \u{1F600}"
$c = "nested ${ "inner ${a}" } done"
$d = "method ${a.upcase} and ${$a}"
