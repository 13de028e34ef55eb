$t = Hash[String, Array[Variant[Integer, Enum['a', 'b']], 1]]
$r = Resource['file', '/tmp/x']
$p = Pattern[/a/, /b/]
$u = Optional[Struct[{ a => Integer }]]
