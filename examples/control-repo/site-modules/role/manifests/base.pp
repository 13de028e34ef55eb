# @summary Every node: the base profile only.
class role::base {
  include profile::base
}
