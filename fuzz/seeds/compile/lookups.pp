notice(lookup('list'))
notice(lookup('m::h', Hash, 'deep', {}))
$x = lookup('missing', Optional[String], 'first', 'dflt')
notice(hiera('m::n', 0), lookup({ 'name' => 'nope', 'default_value' => 5 }))
include m
##----
##----
##----
##----
list: [c]
m::n: 3
m::msg: "%{facts.os.family} %{::fqdn} %{lookup('m::n')}"
lookup_options:
  "^m::.*":
    merge: deep
