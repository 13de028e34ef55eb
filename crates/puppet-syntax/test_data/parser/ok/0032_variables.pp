$local = 1
$::topscope = 2
notice($::os::family, $mymod::params::value, $0, $_private)
[$a, $b] = [1, 2]
