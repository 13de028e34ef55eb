# A blank before `[` makes a list, not an access, so this is two expressions in a row.
notice($x [0])
$n = 1_0
