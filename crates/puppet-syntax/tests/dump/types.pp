type MyInt = Integer[1, 10]
type Obj = Object { attributes => { a => Integer } }
type Der = Parent { attributes => {} }
type H = { attributes => {} }
type Mapped[String] = Integer
