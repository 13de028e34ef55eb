class { 'm': msg => 'given', n => 2, port => 8080 }
notice(m::f('a').upcase, m::f(1))
m::d { 'z': content => 'c', list => [1, 2] }
M::D <| title == 'z' |> { content => 'overridden' }
