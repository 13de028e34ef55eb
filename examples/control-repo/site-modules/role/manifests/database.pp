# @summary A database server: the base profile and PostgreSQL.
class role::database {
  include profile::base
  include profile::database
}
