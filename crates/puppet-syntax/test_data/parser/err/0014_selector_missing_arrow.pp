$a = $x ? { 1 'one', default => 'd' }
