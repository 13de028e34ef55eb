type Mymod::Port = Integer[1, 65535]
type Mymod::Conf = Struct[{ name => String, Optional[port] => Mymod::Port }]
