include a, b
require c::d
contain e
notice 'hello'
realize(User['alice'])
tag 'web', 'db'
