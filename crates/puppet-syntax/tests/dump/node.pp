node 'a.example.com', /web\d+/, default, b.c.d, 123 inherits base {
  include x
}
node empty {}
