# Puppet's attribute list may start with a comma (issue 15).
notify { 'a':, }
notify { 'b':, message => x }
notify { 'c':, message => x, }
notify { 'd':,; 'e':, message => y; }
Notify {, loglevel => info }
Notify['a'] {, withpath => true }
Notify <| title == 'b' |> {, message => z }
class { 'k':, }
