# @summary Local accounts: a deep merge of every level of the hierarchy.
class profile::users {
  $accounts = lookup('profile::users::accounts', Hash[String[1], Hash], 'deep', {})
  $accounts.each |$name, $options| {
    accounts::user { $name:
      * => $options,
    }
  }
}
