node 'web01.example.com', /^db\d+$/, default {
  include role::web
}
node default {}
