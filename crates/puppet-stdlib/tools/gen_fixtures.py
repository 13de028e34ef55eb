#!/usr/bin/env python3
"""Generates fixtures/oracle.json: each implemented function called through Puppet 7.23.

Every case is compiled by the oracle (`compile-catalog --batch -M MODULES`, one forked
compile per case) as `notice(String(FN(ARGS), '%p'))`; the fixture keeps the notice text
or the error message (without Puppet's "Evaluation Error: Error while evaluating a Function
Call, " prefix and location suffix) and the warnings logged. CI has no Puppet: the JSON is
committed and `tests/oracle.rs` compares the native implementations against it.

Usage: gen_fixtures.py [--only=F1,F2] [--count] [ORACLE] [MODULES]
  --only  regenerate only the cases of these functions; the other recorded cases are kept
  ORACLE  default /work/shared/oracle/compile-catalog
  MODULES default /usr/share/puppet/modules
"""
import itertools, json, os, re, subprocess, sys, zlib

argv = [a for a in sys.argv[1:] if not a.startswith("--")]
oracle = argv[0] if len(argv) > 0 else "/work/shared/oracle/compile-catalog"
modules = argv[1] if len(argv) > 1 else "/usr/share/puppet/modules"
here = os.path.dirname(os.path.abspath(__file__))
out_path = os.path.join(here, "..", "fixtures", "oracle.json")

POOL = ["undef", "''", "'a'", "'abc'", "'yes'", "'0'", "'1.5'", "1", "-3", "0", "2.5", "true",
        "false", "[]", "['a', 'b']", "[1, undef, '']", "{}", "{'a' => 1, 'b' => undef}",
        "'/tmp/x'", "'C:/x'", "'::1'", "'192.0.2.1'", "/a+/", "default"]
SMALL = ["undef", "''", "'a'", "1", "true", "[]", "['a', 'b']", "{'a' => 1}"]

unary = """pick any2array str2bool has_key member prefix suffix delete_undef_values join_keys_to_values
concat grep reject dirname basename zip deep_merge bool2str delete pick_default enclose_ipv6 hash
any2bool bool2num count delete_at dig44 is_hash shell_join uriescape values_at num2bool union
intersection difference delete_values base64 squeeze swapcase validate_string
validate_absolute_path validate_hash validate_array validate_bool validate_re validate_integer
validate_slength is_absolute_path is_string is_array is_bool is_integer is_numeric is_float
merge is_a stdlib::start_with stdlib::end_with shell_escape to_json is_service_default translate
mysql::password normalize_ip_for_uri inet6_prefix postgresql::postgresql_escape
postgresql::postgresql_password apache::bool2httpd mongodb_password deprecation""".split()
binary = """has_key member prefix suffix join_keys_to_values concat grep reject basename zip
deep_merge delete pick_default pick dig44 count delete_at values_at union intersection difference
delete_values base64 squeeze validate_re validate_integer validate_slength merge is_a
stdlib::start_with stdlib::end_with translate postgresql::postgresql_password mongodb_password
deprecation any2array""".split()

EXTRA = [
    ("pick", "undef, '', 'x'"), ("pick", "'', undef"), ("pick", "[], 'x'"), ("pick", "{}, 1"),
    ("pick_default", "undef, '', 'd'"), ("pick_default", "undef"), ("pick_default", ""),
    ("any2array", "'a', 'b'"), ("any2array", ""), ("any2array", "{'a' => 1, 'b' => 2}"),
    ("str2bool", "'TRUE'"), ("str2bool", "'n'"), ("str2bool", "'undef'"), ("str2bool", "'maybe'"),
    ("str2bool", "'Y'"), ("str2bool", "'off'"), ("str2bool", ""),
    ("member", "['a', 'b', 'c'], ['a', 'c']"), ("member", "['a', 'b'], ['a', 'x']"),
    ("member", "[1, 2], 2"), ("member", "[1, 2], '2'"), ("member", "['a'], []"),
    ("has_key", "{'a' => 1}, 'a'"), ("has_key", "{'a' => 1}, 'b'"), ("has_key", "{1 => 1}, 1"),
    ("prefix", "['a', 'b'], 'p_'"), ("prefix", "{'a' => 1}, 'p_'"), ("prefix", "[1, true], 'x'"),
    ("suffix", "['a', 'b'], '.conf'"), ("suffix", "{'a' => 1}, '_s'"),
    ("join_keys_to_values", "{'a' => 1, 'b' => [2, 3], 'c' => undef, 'd' => 'undef'}, '='"),
    ("join_keys_to_values", "{'a' => 1}, 1"), ("join_keys_to_values", "{'a' => {'b' => 1}}, ':'"),
    ("concat", "['a'], 'b', ['c', ['d']]"), ("concat", "['a'], {'b' => 1}"),
    ("grep", "['aaa', 'bbb', 'ccc'], 'aaa|bbb'"), ("grep", "['aaa', 1], '.*'"),
    ("reject", "['aaa', 'bbb', 'ccc'], 'aaa|bbb'"),
    ("dirname", "'/a/b/c'"), ("dirname", "'a/b/'"), ("dirname", "'/'"), ("dirname", "'a'"),
    ("dirname", "'//a//b//'"), ("basename", "'/a/b.rb', '.rb'"), ("basename", "'/a/b.rb', '.*'"),
    ("basename", "'/a/b/'"), ("basename", "'b.rb', 'b.rb'"),
    ("zip", "[1, 2, 3], [4, 5, 6]"), ("zip", "[1, 2], [4, 5], true"), ("zip", "[1, 2, 3], [4]"),
    ("zip", "[1, 2], [4, 5], 'yes'"),
    ("deep_merge", "{'a' => {'b' => 1}}, {'a' => {'c' => 2}}"), ("deep_merge", "{'a' => 1}, '', {'b' => 2}"),
    ("deep_merge", "{'a' => {'b' => 1}}, {'a' => 3}"),
    ("bool2str", "true, 'yes', 'no'"), ("bool2str", "false, 'yes', 'no'"), ("bool2str", "true, 1, 2"),
    ("bool2str", "false, '', ''"),
    ("delete", "['a', 'b', 'a'], 'a'"), ("delete", "{'a' => 1, 'b' => 2}, ['a']"), ("delete", "'abcab', 'ab'"),
    ("delete", "'abc', ['a', 'c']"),
    ("enclose_ipv6", "['::1', '*', '192.0.2.1', 'fe80::1/64']"), ("enclose_ipv6", "'nope'"),
    ("hash", "['a', 1, 'b', 2]"), ("hash", "[['a', 1], ['b', 2]]"), ("hash", "['a']"),
    ("any2bool", "'1.5'"), ("any2bool", "'-1'"), ("any2bool", "'yes'"), ("any2bool", "0"), ("any2bool", "{}"),
    ("bool2num", "'true'"), ("bool2num", "false"),
    ("count", "[1, undef, '', 'a']"), ("count", "['a', 'b', 'a'], 'a'"),
    ("delete_at", "['a', 'b', 'c'], 1"), ("delete_at", "['a', 'b', 'c'], '2'"), ("delete_at", "['a'], 5"),
    ("delete_at", "['a'], '-1'"),
    ("dig44", "{'a' => {'b' => [1, 2]}}, ['a', 'b', 1]"), ("dig44", "{'a' => 1}, ['x'], 'dflt'"),
    ("dig44", "{'a' => [1, 2]}, ['a', 'x'], 'd'"), ("dig44", "{'a' => {'b' => undef}}, ['a', 'b'], 'd'"),
    ("shell_join", "['a b', \"c'd\", '']"), ("shell_join", "['-x', '$HOME', 'a;b']"),
    ("uriescape", "'a b/c?d=e&f#g'"), ("uriescape", "['a b', 1]"), ("uriescape", "'é%'"),
    ("values_at", "['a', 'b', 'c', 'd'], [0, '1-2']"), ("values_at", "['a', 'b', 'c'], '0...2'"),
    ("values_at", "['a', 'b'], 5"), ("values_at", "['a', 'b'], 'x'"), ("values_at", "['a', 'b', 'c'], '2-1'"),
    ("num2bool", "'2'"), ("num2bool", "'-2'"), ("num2bool", "'abc'"), ("num2bool", "0.5"), ("num2bool", "1.9"),
    ("union", "['a', 'b'], ['b', 'c'], ['d']"), ("intersection", "['a', 'b'], ['b', 'c']"),
    ("difference", "['a', 'b', 'a'], ['b']"),
    ("delete_values", "{'a' => 'A', 'b' => 'B', 'c' => 'A'}, 'A'"),
    ("base64", "'encode', 'hello'"), ("base64", "'decode', 'aGVsbG8='"), ("base64", "'encode', 'hello', 'strict'"),
    ("base64", "'encode', '???', 'urlsafe'"), ("base64", "'decode', 'Pz8_', 'urlsafe'"),
    ("base64", "'encode', 'a very long string that needs more than sixty characters to encode in base64'"),
    ("base64", "'encode', 'x', 'bad'"), ("base64", "'rot13', 'x'"),
    ("squeeze", "'aaabbbccc'"), ("squeeze", "'aaabbbccc', 'a'"), ("squeeze", "['aa', 'bbb']"),
    ("swapcase", "'aBc'"), ("swapcase", "['aB', 1]"),
    ("validate_string", "'a', 'b'"), ("validate_string", "'a', 1"), ("validate_string", "undef"),
    ("validate_absolute_path", "'/a', ['/b', 'C:\\\\x']"), ("validate_absolute_path", "['/b', 'rel']"),
    ("validate_absolute_path", "'\\\\\\\\server\\\\share'"),
    ("validate_hash", "{}, {'a' => 1}"), ("validate_array", "[], [1]"), ("validate_bool", "true, false"),
    ("validate_re", "'one', '^one$'"), ("validate_re", "'one', ['^two', '^one']"), ("validate_re", "'one', '^two', 'custom msg'"),
    ("validate_re", "'one', 'x', 'a', 'b'"),
    # Ruby's anchors and escapes: ^ and $ at every line, \Z, \h.
    ("validate_re", '"a\\nb", \'^b$\''), ("validate_re", "'ab', ['^c', 'b\\z']"),
    ("grep", '["x\\ny", "z"], \'^y\''), ("reject", '["x\\ny", "z"], \'y\\Z\''),
    ("grep", "['ab', 'c', 'g'], '\\h'"),
    ("validate_integer", "1, 10"), ("validate_integer", "11, 10"), ("validate_integer", "'5', 10, 1"),
    ("validate_integer", "0, 10, 1"), ("validate_integer", "[1, '2', 3], 10"), ("validate_integer", "[1, 'x']"),
    ("validate_integer", "1, '', 0"), ("validate_integer", "1, 1, 2"), ("validate_integer", "1.5"),
    ("validate_integer", "'0x10', 20"), ("validate_integer", "{}"),
    ("validate_slength", "'abc', 5"), ("validate_slength", "'abcdef', 5"), ("validate_slength", "['a', 'bb'], 2, 1"),
    ("validate_slength", "['a', 1], 2"), ("validate_slength", "'a', 0"), ("validate_slength", "'a', 5, 3"),
    ("validate_slength", "1, 5"),
    ("is_string", "'1'"), ("is_string", "'1.0'"), ("is_string", "'1.5'"), ("is_string", "'a1'"),
    ("is_integer", "'01'"), ("is_integer", "'-10'"), ("is_numeric", "'1.5e3'"), ("is_numeric", "'-0.5'"),
    ("is_float", "'1.50'"), ("is_float", "'1.5'"), ("is_float", "'1e5'"),
    ("merge", "{'a' => 1}, {'b' => 2}, undef, ''"), ("merge", "{'a' => 1}, {'a' => 2}"),
    ("is_a", "1, Integer"), ("is_a", "'a', Integer"), ("is_a", "[1], Array[Integer]"),
    ("stdlib::start_with", "'foobar', 'foo'"), ("stdlib::start_with", "'foobar', ['x', 'fo']"),
    ("stdlib::end_with", "'foobar', 'bar'"), ("stdlib::end_with", "'foobar', ''"),
    ("shell_escape", "'a b'"), ("shell_escape", "\"it's\""), ("shell_escape", "['x']"),
    ("to_json", "{'a' => [1, 2.5, true, undef], 'b' => 'x\"y'}"), ("to_json", "'s'"), ("to_json", "[]"),
    ("is_service_default", "'<SERVICE DEFAULT>'"), ("is_service_default", "'x'"), ("is_service_default", "1, 2"),
    ("translate", "'hello %{name}', {'name' => 'world'}"), ("translate", "'plain'"),
    ("translate", "'%{a} and %{b}', {'a' => 1, 'b' => [2]}"),
    ("mysql::password", "'secret'"), ("mysql::password", "''"),
    ("mysql::password", "'*14E65567ABDB5135D0CFD9A70B3032C179A49EE7'"),
    ("normalize_ip_for_uri", "'::1'"), ("normalize_ip_for_uri", "['::1', '192.0.2.1', '[::2]']"),
    ("normalize_ip_for_uri", "'host.example.com'"), ("normalize_ip_for_uri", "'fe80::1', '::2'"),
    ("inet6_prefix", "'::1'"), ("inet6_prefix", "['::1', '192.0.2.1', 'inet6:[::2]']"),
    ("inet6_prefix", "'[::1]:5672'"),
    ("postgresql::postgresql_escape", "'abc'"), ("postgresql::postgresql_escape", "'a$$b'"),
    ("postgresql::postgresql_escape", "'ends$'"),
    ("postgresql::postgresql_password", "'user', 'pass'"), ("postgresql::postgresql_password", "'u', 12"),
    ("apache::bool2httpd", "'False'"), ("apache::bool2httpd", "'istrue'"), ("apache::bool2httpd", "'On'"),
    ("apache::bool2httpd", "5"),
    ("mongodb_password", "'admin', 'secret'"),
    ("validate_legacy", "String, 'validate_string', 'x'"), ("validate_legacy", "Integer, 'validate_string', 'x'"),
    ("validate_legacy", "String, 'validate_re', 'x', '^y'"), ("validate_legacy", "Integer, 'validate_integer', '5'"),
    ("validate_legacy", "Array[String], 'validate_array', ['a']"), ("validate_legacy", "'Boolean', 'validate_bool', true"),
    ("validate_legacy", "Boolean, 'validate_bool', 'true'"), ("validate_legacy", "Integer"),
    ("validate_legacy", "Hash, 'validate_hash', {'a' => 1}"), ("validate_legacy", "Optional[String], 'validate_string', undef"),
    ("deprecation", "'k', 'a message'"),
    ("postgresql::postgresql_acls_to_resources_hash", "[], 'ipv4acls', 10"),
    ("postgresql::postgresql_acls_to_resources_hash", "['host all all 127.0.0.1/32 md5'], 'ipv4acls', 10"),
    ("postgresql::postgresql_acls_to_resources_hash",
     "['local all postgres ident map=x  y', 'local  all all peer'], 'ipv6acls', 102"),
    ("postgresql::postgresql_acls_to_resources_hash",
     "['host db u 192.0.2.0 255.255.255.0 md5 opt1 opt2', 'host db u 192.0.2.0 255.255.255.0'], 'x', 0"),
    ("postgresql::postgresql_acls_to_resources_hash",
     "['hostssl db u 192.0.2.0 255.255.255.0 cert', 'host all all samenet md5 a b'], 'x', 7"),
    ("postgresql::postgresql_acls_to_resources_hash", "['host all all 127.0.0.1/32'], 'ipv4acls', 1000"),
    ("postgresql::postgresql_acls_to_resources_hash",
     "['a b c d e', 'x y z w', 'a b c d e', 'p q r s'], 'dup', 1"),
    ("postgresql::postgresql_acls_to_resources_hash", "[' host\tall\nall  ::1/128  md5 '], 'x', 0"),
    ("postgresql::postgresql_acls_to_resources_hash", "['local all all'], 'x', 0"),
    ("postgresql::postgresql_acls_to_resources_hash", "['host all all 1.2.3.4 md5', 'x'], 'x', 0"),
    ("postgresql::postgresql_acls_to_resources_hash", "['x', 'host all all 1.2.3.4 md5', 'x'], 'x', 0"),
    ("postgresql::postgresql_acls_to_resources_hash", "[''], 'x', 0"),
    ("postgresql::postgresql_acls_to_resources_hash", "['host all all 1.2.3.4 md5'], '', 0"),
    ("postgresql::postgresql_acls_to_resources_hash", "['host all all 1.2.3.4 md5'], 'x', -1"),
    ("postgresql::postgresql_acls_to_resources_hash", "['host all all 1.2.3.4 md5', 1], 'x', 0"),
    ("postgresql::postgresql_acls_to_resources_hash", "'host all all 1.2.3.4 md5', 'x', 0"),
    ("postgresql::postgresql_acls_to_resources_hash", "['host all all 1.2.3.4 md5'], 'x'"),
    ("postgresql::postgresql_acls_to_resources_hash", "['host all all 1.2.3.4 md5'], 'x', '1'"),
] + [
    ("staging_parse", a) for a in [
        "", "'/tmp/a.tar.gz'", "'/tmp/a.tar.gz', 'basename'", "'/tmp/a.tar.gz', 'basename', '.tar.gz'",
        "'/tmp/a.tar.gz', 'extname'", "'/tmp/a.tar.gz', 'parent'", "'http://h.example/x/y.zip', 'filename'",
        "'puppet:///modules/m/f.tgz', 'parent'", "'C:\\\\dir\\\\f.txt'", "'C:\\\\dir\\\\f.txt', 'parent'",
        "'mailto:x@example.com'", "'a b'", "'/a/b', 'nope'", "'/a/b', undef", "'/a/b.c', 'basename', undef",
        "1", "undef", "'/a', 'parent'", "'/', 'parent'", "'/a/../b/./c/', 'parent'", "'rel/x', 'parent'",
        "'rel/x.y', 'basename'", "'/.profile', 'extname'", "'/a.', 'extname'", "'/a.', 'basename'",
        "'/a.tar.gz', 'basename', '.*'", "'/a/b', 'basename', 1", "'/a/b', 2", "'/a', 'filename', 'x', 4",
        "'http://h/a%20b.txt?x=1#frag'", "'http://h/a%zzb.txt'", "'https://user@[::1]:8080/p/q.tgz', 'parent'",
        "'ftp:'", "'1a:b'", "'/a/b.tar.gz', 'filename', '.gz'", "['/a']", "'/é.txt'",
    ]
] + [
    ("scope_defaults", a) for a in [
        "'Exec', 'path'", "'exec', 'path'", "'foo::bar', 'x'", "'Exec'", "", "1, 'path'", "'Exec', 1",
        "'Exec', undef", "undef, 'path'", "'Exec', 'path', 3",
    ]
] + [
    ("collectd_convert_processes", a) for a in [
        "[{'name' => 'foo', 'regex' => '.*'}, {'name' => 'bar', 'regex' => '[0-9]+'}, 'alone']",
        "{'a' => {'regex' => 'x'}}", "[]", "'x'", "undef", "", "[1]", "[{'regex' => 'x'}]", "['a', 'a']",
        "[{'name' => 'a', 'x' => 1}, {'name' => 'a', 'y' => 2}]", "[undef]", "[[]]", "1, 2",
        "[{'name' => 1}]",
    ]
] + [
    ("convert_to_json_string", a) for a in [
        "['a:b', 'c:d']", "['a:b:c']", "['a:', ':b', '::']", "['a:b', 'c']", "[]", "'x'", "undef", "",
        "{'a' => [1, 2.5, true]}", "['a:1', 'a:2']", "[1]", "['x', 1]", "[[':'], 'a:b']", "[{':' => 1}]",
        "1, 2", "'é\\u\\n\u00e9\t/'", "[undef, 'a']", "{1 => default}", "1.0e20", "['a:b', ['c']]",
    ]
] + [
    ("convert_cert_to_string", a) for a in ["", "1", "undef", "'a', 'b'"]
] + [
    ("validate_vni_ranges", a) for a in [
        "'1:10'", "['1:10', '20:30']", "'10:1'", "'0:16777215'", "'0:16777216'", "'abc'", "undef", "",
        "[undef, '1:2']", "'010:011'", "'08:09'", "'1:2\nx'", "'x\n1:2'", "1", "[1]", "['']", "'1:2:3'",
        "true", "false", "{}", "[]",
    ]
] + [
    ("validate_tunnel_id_ranges", a) for a in [
        "'1:1000'", "'1:1000002'", "'5:1'", "['1:2', 'x']", "undef", "'1'", "[]", "'0:1000000'", "2",
        "'07:08'",
    ]
] + [
    ("validate_vxlan_udp_port", a) for a in [
        "4789", "'4789'", "49151", "49152", "65535", "65536", "'abc'", "undef", "", "'0x1000'", "'0b1'",
        "' 50000 '", "50000.7", "true", "[]", "'1_000'", "'50_000'", "'0o777'", "'099'", "4789, 1",
    ]
] + [
    ("range_to_mask", a) for a in [
        "'0-3'", "'0-3,8'", "'1,2,5'", "''", "undef", "'100'", "'0-127'", "'5-2'", "',,1'", "'1-3-5'",
        "'64'", "'63,64'", "'abc'", "1", "'2-'", "'-3'", "'1,'", "", "'1', '2'", "'0'", "'3 4'",
    ]
] + [
    ("to_array_of_json_strings", a) for a in [
        "[{'a' => 1}, {'b' => [true, undef]}]", "'[{\"a\": 1}]'", "'{\"a\": 1.5}'", "\"[{'a': 'b'}]\"",
        "'nope'", "''", "'[1]'", "[1]", "{'a' => 1}", "undef", "", "1, 2", "[]", "'[]'",
        "'[{\"a\": {\"b\": 1e2}}]'", "'{\"a\": \"x/y\\\\u00e9\"}'", "'  '", "'null'",
        "'[{\"a\":1,\"a\":2,\"b\":3}]'", "[{'a' => 'é\"'}]", "'{\"big\": 12345678901234567890}'",
    ]
] + [
    ("archive::parse_artifactory_url", a) for a in [
        "'https://repo.example/artifactory/libs-release/org/example/app/1.0/app-1.0.jar'",
        "'https://repo.example/artifactory/libs-snapshot/org/ex/app/1.0-SNAPSHOT/app-1.0-20170101.123456-3-sources.zip'",
        "'https://repo.example/artifactory/r/org/ex/app/1.0-SNAPSHOT/app-1.0-SNAPSHOT.tar.gz'",
        "'https://repo.example/artifactory/r/a/b/c/2.0/c-2.0.7z'",
        "'http://repo.example/artifactory/r/org/app/1.0/other-1.0.jar'", "'https://x.example/a'",
        "'ftp://x/artifactory/r/o/m/1/m-1.jar'", "1", "", "'https://x/artifactory/r/o/m/1/m-1.jar', 2",
    ]
] + [
    ("archive::artifactory_checksum", a) for a in [
        "'ftp://x/y'", "", "'https://x/artifactory/y', 'crc'", "1",
    ]
] + [
    ("archive::artifactory_latest_url", a) for a in [
        "'ftp://x/y', {}", "'https://x/artifactory/y'", "'https://x/artifactory/y', 1",
    ]
] + [
    ("assemble_nexus_url", a) for a in [
        "'http://nexus.example', {'g' => 'org.ex', 'a' => 'app', 'v' => '1.0 b&c/é~'}", "'http://n', {}",
        "'http://n'", "", "undef, {'a' => 'b'}", "'http://n', [['a', 'b'], ['c', 'd']]", "'http://n', ['ab']",
        "'http://n', 'x'", "'http://n', {'a' => 1}", "'http://n', {'a' => undef}", "'http://n', [undef]",
        "'http://n', 1", "'http://n', {1 => 'x'}", "'http://n', ['a']", "['x'], {'k' => 'v'}",
        "'http://n', {'a' => 'b'}, 3", "'http://n', undef",
    ]
] + [
    ("go_md5", a) for a in ["", "'u', 'p', 'f'", "'u', 'p', 'f', 'u', 'x'", "1, undef"]
] + [
    ("augeas", a) for a in ["", "'a', 'b'", "'a', 'b', [1]", "1, 'b', []"]
] + [
    ("get_module_path", a) for a in [
        "'stdlib'", "'archive'", "'nonexistent'", "", "'a', 'b'", "['stdlib']", "undef", "'Stdlib'",
    ]
] + [
    ("ipv6_normalize_dnsmasq_ip_subnets", a) for a in [
        "[{'ip_range' => 'x', 'netmask' => 'ffff:ffff:ffff:ffff::', 'gateway' => 'fd00::1'}]",
        "[{'netmask' => '255.255.255.0', 'gateway' => '192.0.2.1'}]", "[{'netmask' => 64}]",
        "[{'netmask' => 'ffff::/8'}]", "[{'netmask' => '[ffff:ff00::]'}]", "[{'netmask' => 'f0f0::'}]",
        "[{'netmask' => 'nope', 'gateway' => 'nope'}]", "[{'gateway' => '::1', 'a' => 1}]",
        "[]", "[{}]", "['netmask']", "[1]", "[undef]", "[['a']]", "[true]", "{}", "{'a' => 1}", "'x'",
        "undef", "", "1, 2", "[{'netmask' => 'fe80::%eth0'}]", "[{'netmask' => '::ffff:255.255.0.0'}]",
        "[{'netmask' => 'ffff::/ffff:ff00::'}]", "[{'netmask' => 'ffff::/ff00:ff00::'}]", "[{'netmask' => 'ffff::/064'}]",
        "[{'netmask' => 'ffff::/129'}]", "[{'netmask' => false, 'gateway' => undef}]", "[2.5]",
    ]
]

# ---------------------------------------------------------------------------------------
# Issue 8, set A (data formats and strings): stdlib 8.5 functions beyond the corpus's calls,
# implemented in src/stdlib_data.rs. `shuffle` and `time` are unseeded/clock dependent: only
# their error cases and shapes are recorded.
DATA_A = [
    ("to_yaml", a) for a in [
        "{'a' => 1, 'b' => [true, undef, 2.5], 'c' => {'d' => 'x y'}}", "'plain'", "''", "undef", "1",
        "[]", "{}", "['a', ['b', 'c'], {'d' => 'e'}]", "'yes'", "'1.5'", "'multi\nline\n'", "'a: b'",
        "{'k' => 'v'}, {'indentation' => 4}", "{'x' => [1, 2]}, {'line_width' => 10}", "'-x'", "'#c'",
        "'null'", "{1 => 'a', true => 'b'}", "'é'", "'~'", "'0644'", "[[]]", "{'a' => {}}", "''",
    ]
] + [
    ("to_json_pretty", a) for a in [
        "{'a' => 1, 'b' => [true, undef, 2.5], 'c' => {}}", "[]", "{}", "[1, [2, []], {'x' => 'y\"z'}]",
        "{'a' => undef, 'b' => 1}, true", "[undef, 1], true", "[undef, 1], false",
        "{'a' => [1]}, false, {'indent' => '    '}", "{'a' => [1]}, false, {'space_before' => ' ', 'object_nl' => '', 'array_nl' => ''}",
        "{'a' => [[[1]]]}, false, {'max_nesting' => 2}", "{'a' => 1}, false, {'max_nesting' => -1}",
        "'x'", "1", "", "{'a' => 'é/\\u'}", "{1 => 2}", "[1.0e20, 0.1]",
    ]
] + [
    ("to_toml", a) for a in [
        "{'a' => 1, 'b' => 'x', 'c' => [1, 2], 'd' => {'e' => true, 'f' => {'g' => 1.5}}}",
        "{'tbl' => [{'a' => 1}, {'b' => 'two'}], 'z' => 'last', 'A' => 0}", "{}", "{'a' => {}}",
        "{'a b' => 1, 'q\"k' => 'v'}", "{'s' => \"#{x} \\\\ \\\"\"}", "{'n' => undef}", "[]", "'x'",
        "{'a' => [1, 'x', [2]]}", "{'h' => {'x' => {'y' => 1}}}",
    ]
] + [
    ("to_python", a) for a in [
        "{'a' => 1, 'b' => [true, false, undef], 'c' => 2.5}", "'str\"q'", "undef", "[]", "{}", "default",
        "1", "-3", "'é\n'", "[{'x' => ['y']}]", "Integer", "/a+/", "{1 => 2}", "",
    ]
] + [
    ("to_ruby", a) for a in [
        "{'a' => 1, 'b' => [true, false, undef], 'c' => 2.5}", "'str\"q'", "undef", "[]", "{}",
        "1", "'é\n#{x}'", "[{'x' => ['y']}]", "{1 => 2}", "",
    ]
] + [
    ("parsejson", a) for a in [
        "'{\"a\": [1, 2.5, true, null, \"x\"]}'", "'[]'", "'null'", "'null', 'dflt'", "'nope'", "'nope', 'dflt'",
        "'{\"a\": 1,}'", "''", "'', 'd'", "'1'", "'\"s\"'", "", "1", "'{\"a\": 1}', 'd', 'e'",
        "'  [1]  '", "'[1] x'", "'{\"a\": \"\\u00e9\"}'", "'{\"big\": 12345678901234567890}'", "'1e3'",
        "'false'", "'false', 'd'", "undef, 'd'",
    ]
] + [
    ("parseyaml", a) for a in [
        "'a: 1\nb: [x, y]\n'", "'--- 0644'", "'~'", "'~', 'd'", "'- a\n- b'", "'plain'", "''", "'', 'd'",
        "'a: b: c'", "'a: b: c', 'd'", "'[1, 2'", "'yes'", "'1.5'", "'2001-01-01'", "'2001-01-01', 'd'",
        "", "1", "'{a: 1}'", "'x: &a 1\ny: *a'", "'false'", "'false', 'dflt'", "'!ruby/object:Foo {}'",
        "'--- |\n  text\n'",
    ]
] + [
    ("parsehocon", a) for a in [
        "'a = 1\nb { c = x }'", "'{\"a\": [1, 2]}'", "'a = ${b}\nb = 2'", "''", "'a = [1'", "'a = [1', 'd'",
        "1", "", "'a.b.c = true'",
    ]
] + [
    ("parsepson", a) for a in [
        "'{\"a\": [1, 2.5, true, null]}'", "'[]'", "'nope'", "'nope', 'd'", "''", "'null'", "'1'", "", "1",
    ]
] + [
    ("loadjson", a) for a in [
        "'/nonexistent/x.json'", "'/nonexistent/x.json', {'d' => 1}", "", "1", "'a', 'b', 'c'",
        "'/usr/share/puppet/modules/stdlib/metadata.json', {}",
    ]
] + [
    ("loadyaml", a) for a in [
        "'/nonexistent/x.yaml'", "'/nonexistent/x.yaml', {'d' => 1}", "", "1", "'a', 'b', 'c'",
    ]
] + [
    ("sprintf_hash", a) for a in [
        "'%<a>s and %<b>05d', {'a' => 'x', 'b' => 42}", "'%{a}-%{b}', {'a' => 1, 'b' => [2]}",
        "'%<f>.2f', {'f' => 3.14159}", "'%{missing}', {'a' => 1}", "'plain', {}", "'%<a>x', {'a' => 255}",
        "'%s', {'a' => 1}", "1, {}", "'x'", "'%<a>-5s|', {'a' => 'ab'}", "'%%%<a>s', {'a' => 'q'}",
    ]
] + [
    ("batch_escape", a) for a in [
        "'a \"b\" $c \\\\d %e'", "''", "1", "undef", "['x']", "'é'",
    ]
] + [
    ("powershell_escape", a) for a in [
        "'a b\\'c`d|e\nf$g\"h'", "''", "1", "undef", "['x']", "'plain'",
    ]
] + [
    ("shell_split", a) for a in [
        "'a b  c'", "'a \"b c\" d'", "\"a 'b c' d\"", "'a\\\\ b'", "'\"a\\\\\"b\"'", "''", "'  '", "'a \"b'",
        "\"'x\"", "1", "undef", "", "'a', 'b'", "'a\\\\'", "'a\"b c\"d e'", "\"'a\\\\b'\"", "'\"a\\\\nb\"'",
        "['a b']", "'a\nb\tc'", "'x#y'",
    ]
] + [
    ("regexpescape", a) for a in [
        "'a.b*c?[d]{e}(f)|g^h$i\\\\j+k-l#m n'", "['a.b', 1, 'c*']", "''", "1", "", "{}", "'\t\n'", "undef",
        "'/'", "'a', 'b'",
    ]
] + [
    ("dos2unix", a) for a in ["'a\r\nb\r\n'", "'a\nb\r'", "1", "", "['x']", "'a', 'b'", "'\r\r\n'"]
] + [
    ("unix2dos", a) for a in ["'a\nb\n'", "'a\r\nb\r\r\n'", "1", "", "['x']", "'a', 'b'", "'\r'"]
] + [
    ("convert_base", a) for a in [
        "5, 2", "'254', '16'", "255, 36", "0, 2", "'10', 1", "10, 37", "'x', 2", "10, 'x'", "-5, 2",
        "2.5, 2", "10, 2.5", "'010', '08'", "", "1", "1, 2, 3", "[1], 2", "'12a', 16",
    ]
] + [
    ("to_bytes", a) for a in [
        "'4 kB'", "'1M'", "'1.5 G'", "'2T'", "'1P'", "'1E'", "'10'", "'10 B'", "'3x'", "4096", "2.5",
        "''", "'kB'", "'1e3'", "'1 K'", "", "'1', '2'", "'-2k'", "'1.5e2 M'", "undef", "true", "['1k']",
    ]
] + [
    ("type_of", a) for a in [
        "1", "'a'", "[1, 'a']", "{'a' => 1}", "undef", "2.5", "true", "Integer", "/x/", "default", "", "1, 2",
        "[]", "{}",
    ]
] + [
    ("try_get_value", a) for a in [
        "{'a' => {'b' => ['b1', 'b2', 'b3']}}, 'a/b/2'", "{'a' => {'b' => ['b1']}}, 'a/x', 'nf'",
        "{'a' => {'b' => 1}}, 'a.b', 'nf', '.'", "{'a' => 1}, ''", "{'a' => 1}, '', 'd'", "'str', 'a'",
        "'str', 'a', 'd'", "[1, [2, 3]], '1/0'", "{'a' => 1}", "", "{'a' => {'b' => undef}}, 'a/b', 'd'",
        "{'a' => 1}, 'a/b/c', 'd'", "{'1' => 'x'}, '1'",
    ]
] + [
    ("delete_regex", a) for a in [
        "['a', 'b', 'c', 'b'], 'b'", "['a', 'b', 'c', 'b'], ['b', 'c']", "{'a' => 1, 'b' => 2, 'c' => 3}, 'b'",
        "{'a' => 1, 'b' => 2, 'c' => 3}, '^a$'", "['abc', 'a b'], 'a'", "'abc', 'b'", "1, 'a'",
        "['a'], []", "['a']", "['a.b', 'axb'], 'a.b'", "[1, 'a'], '1'", "['ab', 'a-b'], 'a'",
        "undef, 'a'", "['a'], 'a', 'b'", "['a', 'b'], undef",
    ]
] + [
    ("clamp", a) for a in [
        "'24', [575, 187]", "16, 88, 661", "[4, 3, '99']", "1, 2", "1, 2, 3, 4", "'a', 1, 2", "{}, 1, 2",
        "2.7, 1, 5", "'-1', 0, 5", "[[1], 2, 3]", "", "true, 1, 2", "'007', 1, 10",
    ]
] + [
    ("range", a) for a in [
        "'0', '9'", "'00', '09'", "'a', 'c'", "'host01', 'host10'", "'0', '9', '2'", "'1..3'", "'1...3'",
        "'1-3'", "'a..c'", "'a...c'", "'x'", "''", "1, 5", "5, 1", "1, 5, -2", "1, 5, 0", "'a', 'e', 2",
        "", "'1', '3', 'x'", "'01..03'", "'aa', 'ad'", "'1.5', '3'", "'ab..'", "'9', '11'", "1.5, 3",
        "'az', 'bc'", "'A', 'C'", "['a'], 'b'", "'a-c'", "1, 3, undef",
    ]
] + [
    ("reverse", a) for a in ["[1, 2, 3]", "'abc'", "'é1'", "[]", "1", "", "{'a' => 1}", "'ab', 'c'"]
] + [
    ("shuffle", a) for a in ["[]", "['a']", "''", "'x'", "1", "", "{'a' => 1}"]
] + [
    ("time", a) for a in ["'a', 'b'", "1, 2, 3"]
] + [
    ("stdlib::xml_encode", a) for a in [
        "'a<b>&\"c\\'d'", "'a<b>&\"c\\'d', 'attr'", "'a<b>', 'text'", "'x', 'bad'", "1", "", "'é\n'",
    ]
] + [
    ("stdlib::extname", a) for a in [
        "'a.rb'", "'/a/b.tar.gz'", "'.profile'", "'a.'", "'a'", "'/a.b/c'", "'a..b'", "1", "", "'.a.b'",
        "'a.b/'", "'foo.bar.'",
    ]
] + [
    ("stdlib::str2resource", a) for a in ["'File[/tmp/x]'", "'nope'", "1", ""]
]
# Validation, network facts, crypto and misc (src/stdlib_checks.rs). The oracle compiles
# without -f, so $facts holds only what compile-catalog adds (no interfaces, no
# operatingsystem): the fact-based functions are recorded with those facts.
IPS = ["'192.0.2.1'", "'::1'", "'fe80::1%eth0'", "'[::1]'", "'1.2.3.4/24'", "'10.0.0.1/255.255.0.0'",
       "'::ffff:1.2.3.4'", "'1:2:3:4:5:6:1.2.3.4'", "'1::2::3'", "'01.2.3.4'", "'256.1.1.1'", "'1.2.3'",
       "'1.2.3.4/33'", "'1.2.3.4/08'", "'::/0'", "'1.2.3.4/255.0.255.0'", "'abc'", "''", "1", "undef",
       "['1.2.3.4']", "'1:2:3:4:5:6:7:8'", "'1:2:3:4:5:6:7:8:9'", "'::1/::ffff'", "'2001:DB8::A'",
       "'[1.2.3.4]'", "'1.2.3.4%eth0'", "'1.2.3.4/'", "'::1/64'", "'1:2:3:4:5:6:7::'", "'::1.2.3.04'"]
CHECKS = [(f, a) for f in ["is_ip_address", "is_ipv4_address", "is_ipv6_address", "validate_ip_address",
                           "validate_ipv4_address", "validate_ipv6_address"] for a in IPS + [""]] + [
    ("validate_ip_address", "'1.2.3.4', '::1'"), ("validate_ipv4_address", "'1.2.3.4', '::1'"),
    ("is_ip_address", "'1.2.3.4', '::1'"),
] + [("is_domain_name", a) for a in [
    "'example.com'", "'example.com.'", "'.'", "''", "'a'", "'-a.com'", "'a-.com'", "'a..com'", "'a.c0m'",
    "'a.b.c-d.e'", "'" + "a" * 64 + ".com'", "'" + "a" * 63 + ".com'",
    "1", "['a']", "'a_b.com'", "'1.2.3.4'", "'a.b.com..'", "'ex ample.com'", "'a', 'b'", "", "'é.com'",
]] + [("validate_domain_name", a) for a in [
    "'example.com'", "'example.com', 'www.example.com'", "'-bad'", "1", "", "'a', 2", "['a']",
]] + [("is_email_address", a) for a in [
    "'a@example.com'", "'a.b+c@ex-ample.co.uk'", "'a@b'", "'A@EXAMPLE.COM'", "'a@example.Com'", "'@x.com'",
    "'a..b@x.com'", "'a b@x.com'", "'é@x.com'", "1", "''", "", "'a', 'b'", "['a@x.com']", "'a-@x.com'",
]] + [("validate_email_address", a) for a in [
    "'a@example.com'", "'a@example.com', 'bad'", "1", "", "'a@x.com', [1]",
]] + [("is_mac_address", a) for a in [
    "'00:11:22:33:44:55'", "'0:1:2:3:4:5'", "'00:11:22:33:44'", "'AA:BB:CC:DD:EE:FF'",
    "'00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff:00:11:22:33'", "'00-11-22-33-44-55'", "''", "1", "undef",
    "['00:11:22:33:44:55']", "", "'a', 'b'", "true", "'00:11:22:33:44:55\nx'",
]] + [("validate_numeric", a) for a in [
    "1", "'1.5'", "'x'", "1, 10", "11, 10", "'5', 10, 1", "0, 10, 1", "[1, '2', 3], 10", "[1, 'x']", "[1, {}]",
    "1, '', 0", "1, 1, 2", "{}", "'0x10', 20", "1, 'a'", "1, 2, 'b'", "", "1, 2, 3, 4", "undef", "[]",
    "2.5, 2", "[1, 20], 10", "-5, undef, 0", "'1e3', 999", "true", "[true]", "1, [2]",
]] + [("has_interface_with", a) for a in [
    "'eth0'", "'ipaddress', '127.0.0.1'", "", "'a', 'b', 'c'", "'clientcert', 'node.example.com'",
]] + [("has_ip_address", a) for a in ["'127.0.0.1'", "", "'a', 'b'"]
] + [("has_ip_network", a) for a in ["'127.0.0.0'", "", "'a', 'b'"]
] + [("stdlib::ip_in_range", a) for a in [
    "'10.10.10.53', '10.10.10.52/30'", "'10.10.10.53', '10.10.10.48/30'", "'10.0.0.1', ['192.0.2.0/24', '10.0.0.0/8']",
    "'::1', '10.0.0.0/8'", "'fe80::1', 'fe80::/10'", "'bad', '10.0.0.0/8'", "'10.0.0.1', 'bad'", "'10.0.0.1', []",
    "1, '10.0.0.0/8'", "'10.0.0.1', 2", "'10.0.0.0/24', '10.0.0.0/8'", "'10.0.0.0/7', '10.0.0.0/8'", "'10.0.0.1'",
]] + [("fqdn_uuid", a) for a in [
    "'puppetlabs.com'", "'google.com'", "''", "", "'a', 'b'", "1", "['x']", "'é'",
]] + [("pw_hash", a) for a in [
    "'password', 'sha-512', 'salt'", "'password', 'SHA-256', 'saltsaltsaltsaltsalt'", "'password', 'md5', 'saltsaltsalt'",
    "'', 'md5', 'salt'", "undef, 'md5', 'salt'", "'p', 'sha-1', 'salt'", "'p', 'md5', ''", "'p', 'md5', 'a$b'",
    "'p', 1, 'salt'", "1, 'md5', 'salt'", "'p', 'md5', 2", "'p', 'md5'", "'p', 'bcrypt', 'x'",
    "'a long password with spaces and é', 'sha-256', 'abc./XYZ'", "'p', 'sha-512', 'a'",
    "'" + "x" * 200 + "', 'sha-512', 'saltsaltsaltsalt'", "'" + "x" * 70 + "', 'md5', 'ab'",
]] + [("str2saltedpbkdf2", a) for a in [
    "'password', 'saltsalt', 50000", "'Pa55w0rd', 'Using s0m3 s@lt', 60000", "'p', 'short', 50000",
    "'p', 'saltsalt', 1000", "'p', 'saltsalt', '50000'", "1, 'saltsalt', 50000", "'p', 2, 50000", "'p', 'saltsalt'",
    "'p', 'saltsalt', 70000", "'p', 'saltsalt', 40001",
]] + [("str2saltedsha512", a) for a in ["", "1", "'a', 'b'", "['x']"]
] + [("os_version_gte", a) for a in ["'Debian', '9'", "'', '1'", "'Debian'", "1, '2'"]
] + [("load_module_metadata", a) for a in [
    "'stdlib'", "'nonexistent'", "'nonexistent', true", "", "'a', 'b', 'c'",
]] + [("is_function_available", a) for a in [
    "'notice'", "'sprintf'", "'pick'", "'stdlib::ip_in_range'", "'is_ip_address'", "'nonexistent'", "1", "",
    "'template'", "'fqdn_uuid'", "'validate_legacy'", "'lookup'", "'each'",
]] + [("glob", a) for a in ["'/nonexistent/*'", "", "1", "['/nonexistent/*']"]
] + [("validate_cmd", a) for a in ["'x'", "'x', '/bin/true', 'm', 4"]
] + [("validate_augeas", a) for a in ["'x'", "'x', 'Sshd.lns'"]
] + [("validate_x509_rsa_key_pair", a) for a in ["'x'", "'x', 1", "'x', 'y'"]
] + [("type3x", a) for a in [
    "'a'", "'1'", "'1.5'", "1", "2.5", "true", "[]", "{}", "undef", "", "'1.50'", "'01'", "'-3'", "'1e5'",
]] + [("private", a) for a in ["", "'m'"]
] + [("pry", a) for a in [""]]

def cases():
    seen = set()
    out = []
    def add(fn, args):
        if (fn, args) not in seen:
            seen.add((fn, args)); out.append((fn, args))
    for fn, args in EXTRA + DATA_A + CHECKS:
        add(fn, args)
    for fn in unary:
        add(fn, "")
        for v in POOL:
            add(fn, v)
    for fn in binary:
        for a, b in itertools.product(SMALL, SMALL):
            if zlib.crc32(f'{fn}|{a}|{b}'.encode()) % 4 == 0 or fn in ("pick", "member", "has_key", "merge"):
                add(fn, f"{a}, {b}")
    return out

PREFIX = "Evaluation Error: Error while evaluating a Function Call, "

def clean(msg):
    msg = re.sub(r" on node \S+$", "", msg)
    msg = re.sub(r" \((file: [^)]*, )?line: \d+(, column: \d+)?\)$", "", msg)
    if msg.startswith(PREFIX):
        msg = msg[len(PREFIX):]
    return msg

def only_functions():
    """The functions of `--only=F1,F2`, or None (all)."""
    for a in sys.argv[1:]:
        if a.startswith("--only="):
            return set(a[len("--only="):].split(","))
    return None

def main():
    cs = cases()
    only = only_functions()
    if only is not None:
        cs = [c for c in cs if c[0] in only]
    lines = []
    for i, (fn, args) in enumerate(cs):
        code = f"notice(String({fn}({args}), '%p'))"
        lines.append(json.dumps({"id": str(i), "code": code, "modulepath": modules}))
    p = subprocess.run([oracle, "--batch", "-", "--with-logs"], input="\n".join(lines) + "\n",
                       capture_output=True, text=True, check=False)
    results = {}
    for line in p.stdout.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        results[r.get("id")] = r
    fixtures = []
    for i, (fn, args) in enumerate(cs):
        r = results.get(str(i))
        if r is None:
            continue
        logs = r.get("logs", [])
        warnings = [l["message"] for l in logs if l.get("level") == "warning"]
        notices = [l["message"] for l in logs if l.get("level") == "notice"]
        case = {"function": fn, "args": args, "ok": bool(r.get("ok"))}
        if r.get("ok"):
            case["output"] = notices[-1] if notices else None
            case["other_notices"] = notices[:-1]
        else:
            case["error"] = clean(r.get("error", ""))
        case["warnings"] = [w.split(" at [")[0].split("\n   (location:")[0] for w in warnings]
        fixtures.append(case)
    if only is not None:
        # Keep the recorded cases of the other functions, in their order, and replace those
        # of the functions regenerated.
        with open(out_path) as f:
            old = json.load(f)["cases"]
        fixtures = [c for c in old if c["function"] not in only] + fixtures
    with open(out_path, "w") as f:
        json.dump({"generator": "tools/gen_fixtures.py", "puppet": "7.23.0",
                   "cases": fixtures}, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{len(fixtures)} cases written to {out_path}", file=sys.stderr)

if __name__ == '__main__':
    if '--count' in sys.argv:
        print(len(cases()))
    else:
        main()
