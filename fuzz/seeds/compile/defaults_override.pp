class base { File { mode => '0644' } file { '/tmp/base': owner => 'root' } }
class child inherits base { File['/tmp/base'] { owner => 'nobody', group +> 'wheel' } }
include child
define wrapper($x = $title) { notify { "w ${x}": } }
wrapper { ['a', 'b']: }
Wrapper['a'] -> Wrapper['b']
Class['base'] -> Class['child']
tag('fz')
if defined(Class['child']) and defined(Wrapper['a']) and tagged('base') { notice('defined') }
contain m
require m::params
