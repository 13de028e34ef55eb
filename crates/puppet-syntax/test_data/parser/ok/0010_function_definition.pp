function mymod::add(Integer $a, Integer $b = 1) >> Integer {
  $a + $b
}
