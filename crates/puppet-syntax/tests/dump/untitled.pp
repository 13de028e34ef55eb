foo { a => 1 }
notice { b => 2 }
