$s = Sensitive('secret')
$d = Deferred('vault_lookup', ['path'])
$t = Type[Resource]
