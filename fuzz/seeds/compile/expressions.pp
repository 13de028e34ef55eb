$a = [1, 2, 3, [4, 5]]
$h = { 'k' => 'v', 'n' => 1, 'nested' => { 'x' => [true, undef] } }
$r = $a.flatten.map |$i| { $i * 2 }.filter |$i| { $i > 2 }.reduce(0) |$m, $i| { $m + $i }
$s = case $facts['os']['family'] { 'Debian', 'Ubuntu': { 'deb' } /^Red/: { 'rpm' } default: { 'other' } }
$sel = $r ? { Integer[0, 10] => 'small', default => 'big' }
notice("${r} ${s} ${sel} ${h['nested']['x'][0]} ${a[1, 2]} ${$a[-1]}")
$t = @("END"/L)
  heredoc ${s} \
  continued
  | END
notice(sprintf('%05.1f %s %x', 3.14159, $h, 255), $t, inline_template('<%= @s %>'), inline_epp('<%= $s %>'))
notice(type($h), $h =~ Hash[String, Data], 'abc' =~ /b(.)/, $1, file('m/x.txt'), environment::twice(1))
unless $r == 28 { fail("r is ${r}") }
with(1, 2) |$x, $y| { notice($x + $y) }
[1, 2].each |$i| { notify { "each ${i}": } }
function local(Integer $x) >> Integer { $x + 1 }
type Local = Variant[Integer, String]
notice(local(1), 1 =~ Local, assert_type(Local, 'x'), Integer('0x10'), String(1.0), Array({a => 1}))
