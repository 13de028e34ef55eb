$a = sprintf('%s-%s', 'a', 'b')
$b = mymod::helper()
$c = lookup('key', Hash, 'deep', {})
$d = func(1, 2,)
