function foo::bar(Integer $x, *$r) >> String {
  "${x}"
}
function empty() {}
