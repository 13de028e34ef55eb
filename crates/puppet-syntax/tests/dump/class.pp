class foo (String $a, $b = 1, Integer[1,2] $c = 2) inherits foo::base {
  class inner { define d($x) {} }
  notice($a)
}
class ::top {}
class empty {}
