$r = [1, 2, 3].filter |$x| { $x > 1 }.map |$x| { $x + 1 }.join(',')
$s = $str.upcase.split(',')
$t = 'abc'.size
