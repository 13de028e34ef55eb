#!/usr/bin/env python3
"""Regenerate crates/puppet-eval/tests/fixtures/catalog_cases.jsonl from real Puppet 7.23.

What it does: compiles each of the small manifests in CASES below (catalog semantics:
include/require/contain, inheritance, class parameters, defined types, resource defaults,
virtual resources and collectors, relationships, tags, stages, node definitions, and a set
of error cases) with the oracle's `compile-catalog --batch --with-order --with-logs`, using
only core resource types and no modulepath, facts or Hiera, and writes one JSON line per
case in the form crates/puppet-eval/tests/catalog.rs reads:

  {"id", "node", "manifest", ["settings": {name: value},] "expect": {
      "resources": [{"ref": "Notify[a]", "tags": [sorted], "params": {sorted top-level keys},
                     "exported": bool}, ...]          # Puppet's catalog (insertion) order,
                                                     # without Stage[main], Class[main],
                                                     # Class[Settings]
      "classes": [sorted, without "settings"],
      "edges":   [sorted "Source -> Target" containment edges, without
                  "Stage[main] -> Class[Settings]"],
      "logs":    [{"level": "notice"|"warning", "message", "source"}...] in order}}
  or
  {"id", "node", "manifest", "error": <Puppet's message without the leading
      "Evaluation Error: " and the trailing " (line: N, column: M)" / " on node NAME">,
   "error_full": <Puppet's message verbatim, Ruby object addresses left out>}

The manifests are compiled from a string (`-e`), so Puppet's messages carry no file paths;
the script still checks that no path of this machine (checkout, oracle directory, temp
directory, home) leaks into the fixture.

Needs: Puppet 7.23 (Debian package puppet-agent, ruby) and the oracle script
compile-catalog (see the oracle's README.md, section compile-catalog). CI does not run
this; the test only reads the fixture.

Usage: scripts/gen-catalog-cases.py [--oracle DIR] [--out FILE] [ID...]
  --oracle DIR  directory holding compile-catalog (default: $ORACLE, else the directory of
                `compile-catalog` on PATH, else ../shared/oracle next to this checkout)
  --out FILE    default crates/puppet-eval/tests/fixtures/catalog_cases.jsonl
  ID...         only print these cases' lines to stdout (for a look), write nothing
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_OUT = os.path.join(ROOT, "crates/puppet-eval/tests/fixtures/catalog_cases.jsonl")

N = "testnode"            # node name of ordinary cases
W = "web01.example.com"   # node name of node-definition cases

# (id, node, manifest[, settings]). Each manifest is 1-10 lines of core types and language
# features; settings (a dict) are Puppet settings the case is compiled with.
CASES = [
    # --- include / require / contain -------------------------------------------------
    ("include_basic", N, """\
class a { notify { 'in a': } }
include a
notify { 'top': }
"""),
    ("include_several_order", N, """\
class a { notify { 'a': } }
class b { notify { 'b': } }
class c { notify { 'c': } }
include c, a
include b
"""),
    ("include_twice_and_array", N, """\
class a { notify { 'a': } }
class b { notify { 'b': } }
include a
include [b, a]
"""),
    ("require_function", N, """\
class a { notify { 'a': } }
class b {
  require a
  notify { 'b': }
}
include b
"""),
    ("contain_function", N, """\
class inner { notify { 'inner': } }
class outer {
  contain inner
  notify { 'outer': }
}
include outer
"""),
    ("contain_namespaced_in_define", N, """\
class app::config { file { '/etc/app.conf': ensure => file } }
define app::site() {
  contain app::config
  notify { "site ${title}": }
}
app::site { 'one': }
"""),
    ("include_from_nested_class", N, """\
class a { include b notify { 'a': } }
class b { include c notify { 'b': } }
class c { notify { 'c': } }
include a
"""),
    ("contain_already_included", N, """\
class a { notify { 'a': } }
class b { contain a notify { 'b': } }
include a
include b
"""),
    # --- inheritance -----------------------------------------------------------------
    ("inherits_order", N, """\
class base { notify { 'base': } }
class child inherits base { notify { 'child': } }
include child
"""),
    ("inherits_parent_scope_variable", N, """\
class base { $v = 'from base' }
class child inherits base {
  notify { 'c': message => $v }
}
include child
"""),
    ("inherits_qualified_read", N, """\
class base { $v = 'base value' }
class child inherits base { $own = 'own' }
include child
notify { 'q': message => "${child::v}/${child::own}/${base::v}" }
"""),
    ("inherits_override_param", N, """\
class base { notify { 'x': message => 'base', tag => 't' } }
class child inherits base {
  Notify['x'] { message => 'child' }
}
include child
"""),
    ("inherits_parent_params", N, """\
class base($p = 'dflt') { notify { "base ${p}": } }
class child inherits base { notify { "child ${p}": } }
include child
"""),
    ("inherits_parent_already_included", N, """\
class base { notify { 'base': } }
class child inherits base { notify { 'child': } }
include base
include child
"""),
    # --- resource-like class declarations ------------------------------------------
    ("class_resource_params", N, """\
class c($a, $b = 'default b', Integer $n = 3) {
  notify { 'c': message => "${a}-${b}-${n}" }
}
class { 'c': a => 'A' }
"""),
    ("class_undef_param_takes_default", N, """\
class c($a = 'default a', $b = undef) {
  notify { 'c': message => "[${a}][${b}]" }
}
class { 'c': a => undef, b => undef }
"""),
    ("class_resource_then_include", N, """\
class c($p = 'x') { notify { "c ${p}": } }
class { 'c': p => 'given' }
include c
"""),
    ("class_resource_metaparams", N, """\
class a { notify { 'a': } }
class b { notify { 'b': } }
class { 'a': }
class { 'b': require => Class['a'], tag => 'extra' }
"""),
    # --- defined types ---------------------------------------------------------------
    ("define_defaults_in_catalog", N, """\
define d($msg = 'dflt', $other = undef) {
  notify { "d-${title}": message => "${name}:${msg}" }
}
d { 'x': }
d { 'y': msg => 'given' }
"""),
    ("define_title_and_name", N, """\
define d() {
  notify { "t=${title}": message => "n=${name}" }
}
d { 'x': name => 'other' }
d { 'plain': }
"""),
    ("define_undef_param_takes_default", N, """\
define d($m = 'def') { notify { $title: message => $m } }
d { 'x': m => undef }
"""),
    ("define_lazy_order", N, """\
define d() {
  notice("define ${title}")
  notify { "in ${title}": }
}
d { 'one': }
notice('top after one')
d { 'two': }
notify { 'top': }
"""),
    ("define_vs_include_order", N, """\
define d() { notice("define ${title}") notify { "d ${title}": } }
class c { notice('class c') notify { 'c': } }
d { 'x': }
include c
"""),
    ("define_nested", N, """\
define inner($v = 'i') { notify { "inner ${title}": message => $v } }
define outer() {
  inner { "${title}-a": }
  inner { "${title}-b": v => 'set' }
}
outer { 'o': }
notify { 'last': }
"""),
    ("define_in_class", N, """\
define d() { notify { "n-${title}": } }
class c {
  d { 'x': }
  notify { 'c': }
}
include c
"""),
    ("define_declares_class", N, """\
class shared { notify { 'shared': } }
define d() { include shared notify { "d ${title}": } }
d { 'a': }
d { 'b': }
"""),
    ("define_title_array", N, """\
define d($v = 1) { notify { "n ${title}": message => "${v}" } }
d { ['a', 'b']: v => 2 }
"""),
    # --- resource defaults -------------------------------------------------------------
    ("defaults_after_declaration", N, """\
notify { 'before': }
Notify { message => 'dflt' }
notify { 'after': }
"""),
    ("defaults_into_class_included_after", N, """\
class c { notify { 'in class': } }
Notify { message => 'dflt' }
include c
"""),
    ("defaults_class_included_before", N, """\
class c { notify { 'in class': } }
include c
Notify { message => 'dflt' }
notify { 'top': }
"""),
    ("defaults_into_define", N, """\
define d() { notify { "d-${title}": } }
d { 'x': }
Notify { message => 'dflt' }
d { 'y': }
"""),
    ("defaults_define_in_class", N, """\
define d() { notify { "d-${title}": } }
class c {
  Notify { message => 'class dflt' }
  d { 'x': }
}
include c
notify { 'top': }
"""),
    ("defaults_inherited_class_scope", N, """\
class base {
  Notify { message => 'base dflt' }
}
class child inherits base { notify { 'child': } }
include child
notify { 'top': }
"""),
    ("defaults_explicit_wins", N, """\
Notify { message => 'dflt', tag => 'dt' }
notify { 'x': message => 'explicit' }
notify { 'y': }
"""),
    ("defaults_core_types", N, """\
Exec { path => '/usr/bin:/bin' }
File { owner => 'root', mode => '0644' }
exec { 'true': }
file { '/tmp/a': ensure => file, mode => '0600' }
"""),
    ("defaults_relationship_metaparam", N, """\
notify { 'first': }
Notify { require => Notify['first'] }
notify { 'second': }
"""),
    # --- per-expression default bodies -----------------------------------------------
    ("expression_default_body", N, """\
notify {
  default: message => 'shared';
  'a': ;
  'b': message => 'own';
}
"""),
    ("expression_default_with_resource_default", N, """\
Notify { message => 'resource default', tag => 'rd' }
notify {
  default: tag => 'body';
  'a': ;
  'b': message => 'own';
}
"""),
    ("defaults_for_defined_type", N, """\
define d($p = 'own default') { notify { "${title} ${p}": } }
D { p => 'resource default' }
d { 'x': }
d { 'y': p => 'explicit' }
"""),
    ("class_param_default_uses_other_param", N, """\
class c($a = 'x', $b = "${a}-y") { notify { $b: } }
include c
"""),
    # --- virtual resources and collectors ----------------------------------------------
    ("virtual_realize", N, """\
@notify { 'v': }
@notify { 'unused': }
realize(Notify['v'])
"""),
    ("virtual_realize_twice_and_collect", N, """\
@user { 'bob': ensure => present }
@group { 'staff': }
realize(User['bob'])
realize(User['bob'])
Group <| title == 'staff' |>
"""),
    ("virtual_define_unrealized_not_evaluated", N, """\
define d() {
  notice("evaluated ${title}")
  notify { "in ${title}": }
}
@d { 'x': }
@d { 'y': }
realize(D['y'])
"""),
    ("virtual_collected_by_tag", N, """\
@notify { 'a': tag => 'foo' }
@notify { 'b': }
class foo { @notify { 'c': } }
include foo
Notify <| tag == 'foo' |>
"""),
    ("collector_override", N, """\
notify { 'x': message => 'orig' }
notify { 'y': message => 'keep' }
Notify <| title == 'x' |> { message => 'over' }
"""),
    ("collector_override_all_and_virtual", N, """\
notify { 'a': }
@notify { 'v': }
Notify <| |> { message => 'all' }
"""),
    ("collector_tag_of_class", N, """\
class c { notify { 'in c': } }
include c
notify { 'out': }
Notify <| tag == 'c' |> { message => 'tagged' }
"""),
    ("collector_param_query_and_or", N, """\
package { 'p1': ensure => installed }
package { 'p2': ensure => absent }
package { 'p3': ensure => installed, tag => 'x' }
Package <| ensure == installed and tag != 'x' |> { provider => 'apt' }
Package <| title == 'p2' or title == 'p3' |> { install_options => ['-q'] }
"""),
    ("collector_override_before_declaration", N, """\
Notify <| title == 'later' |> { message => 'collected' }
notify { 'later': message => 'orig' }
"""),
    ("collector_plusignment", N, """\
notify { 'a': }
notify { 'b': }
notify { 'x': require => Notify['a'] }
Notify <| title == 'x' |> { require +> Notify['b'] }
"""),
    ("chain_through_empty_collector", N, """\
notify { a: } -> Package<| tag == 'none' |> ~> notify { b: }
Notify[a] -> File<||> -> Notify[b]
package { p: tag => x }
notify { c: } -> Package<| tag == 'x' |> ~> notify { d: }
"""),
    ("defines_and_classes_declared_in_lambdas", N, """\
define d($v = 1) { notify { "in ${title}": message => "v${v}" } }
class c { notify { 'c': } }
Notify { message => 'top default' }
[1, 2].each |$x| { d { "t${x}": v => $x } Notify <| title == 'c' |> { message => 'collected' } }
[3].each |$y| { include c }
[4, 5].map |$w| { notify { "n${w}": } }
"""),
    ("template_mutates_parameter_in_place", N, """\
define t($a = [], $h = {}, $s = 'x') {
  $out = inline_template("<% x = @a; x << 1; @h['k'] = 'v'; y = @s %><%= x.length %>")
  notify { "out ${title}": message => $out }
}
t { 'x': }
"""),
    ("collector_realizes_virtual_define", N, """\
define d() { notify { "in ${title}": } }
@d { 'a': tag => 'web' }
@d { 'b': }
D <| tag == 'web' |>
"""),
    ("chain_collector_realizes_virtual", N, """\
@notify { 'v': tag => 't' }
@notify { 'w': }
notify { 'n': }
Notify['n'] -> Notify <| tag == 't' |>
"""),
    # --- relationships -------------------------------------------------------------------
    ("chain_forward_notify", N, """\
notify { 'a': }
exec { 'e': command => '/bin/true' }
service { 's': }
Notify['a'] -> Exec['e'] ~> Service['s']
"""),
    ("chain_backward", N, """\
notify { 'a': }
notify { 'b': }
notify { 'c': }
Notify['b'] <- Notify['a']
Notify['c'] <~ Notify['b']
"""),
    ("chain_arrays", N, """\
notify { ['a', 'b', 'c', 'd']: }
[Notify['a'], Notify['b']] -> [Notify['c'], Notify['d']]
"""),
    ("chain_resource_declarations", N, """\
notify { 'a': } -> notify { 'b': } ~> notify { 'c': }
"""),
    ("chain_collectors", N, """\
notify { 'first': }
notify { 'a': tag => 'grp' }
notify { 'b': tag => 'grp' }
Notify['first'] -> Notify <| tag == 'grp' |>
"""),
    ("chain_classes", N, """\
class a { notify { 'a': } }
class b { notify { 'b': } }
include a, b
Class['b'] -> Class['a']
"""),
    ("chain_twice_and_metaparam", N, """\
notify { 'a': before => Notify['b'] }
notify { 'b': }
Notify['a'] -> Notify['b']
Notify['a'] -> Notify['b']
"""),
    ("metaparams_all", N, """\
notify { 'a': before => Notify['b'], notify => [Notify['c']] }
notify { 'b': require => Notify['c'], subscribe => [Notify['c'], Notify['d']] }
notify { 'c': }
notify { 'd': }
"""),
    ("metaparam_string_reference", N, """\
notify { 'a': require => 'Notify[b]' }
notify { 'b': }
"""),
    ("alias_in_relationship", N, """\
notify { 'a very long title': alias => 'short' }
notify { 'other': require => Notify['short'] }
Notify['short'] -> notify { 'third': }
"""),
    ("file_trailing_slash_title", N, """\
file { '/tmp/x/': ensure => directory }
notify { 'n': require => File['/tmp/x/'] }
"""),
    ("file_trailing_slash_reference", N, """\
file { '/tmp/y/': ensure => directory }
notify { 'n': require => File['/tmp/y'] }
"""),
    # --- tags ------------------------------------------------------------------------------
    ("tag_metaparam", N, """\
notify { 'a': tag => ['X', 'y::z'] }
notify { 'b': tag => 'single' }
"""),
    ("tag_function_in_class", N, """\
class c {
  notify { 'before tag': }
  tag 'extra'
  notify { 'after tag': }
}
include c
"""),
    ("tags_of_defines_and_classes", N, """\
define my::thing() { notify { "t-${title}": } }
class app::web { my::thing { 'x': } }
include app::web
"""),
    # --- stages ----------------------------------------------------------------------------
    ("stage_basic", N, """\
stage { 'pre': before => Stage['main'] }
class early { notify { 'early': } }
class { 'early': stage => pre }
notify { 'main': }
"""),
    ("stage_include_from_staged_class", N, """\
stage { 'post': }
Stage['main'] -> Stage['post']
class late { include helper notify { 'late': } }
class helper { notify { 'helper': } }
class { 'late': stage => 'post' }
"""),
    # --- node definitions ------------------------------------------------------------------
    ("node_exact", W, """\
node 'web01.example.com' { notify { 'exact': } }
node /^web/ { notify { 'regex': } }
node default { notify { 'default': } }
"""),
    ("node_regex_capture", W, """\
node /^web(\\d+)\\.(.*)$/ { notify { "num ${1} domain ${2}": } }
node default { notify { 'default': } }
"""),
    ("node_default", W, """\
node 'other.example.com' { notify { 'other': } }
node default { notify { 'default': } }
"""),
    ("node_regex_matches_default_word", W, """\
node 'other.example.com' { notify { 'other': } }
node /faul/ { notify { 'regex matching default': } }
"""),
    ("node_short_name", W, """\
node 'web01' { notify { 'short': } }
node default { notify { 'default': } }
"""),
    ("node_scope_and_classes", W, """\
$top = 'top'
class c { notify { "c sees ${top}": } }
node 'web01.example.com' {
  $n = 'node var'
  include c
  notify { "${top} ${n}": }
}
"""),
    ("node_scope_visible_in_class", W, """\
class c { notify { "c sees [${n}]": } }
node default {
  $n = 'node var'
  Notify { message => 'node default' }
  include c
}
"""),
    ("tagged_function", N, """\
class c {
  tag 'foo'
  if tagged('foo') and tagged('c') and !tagged('bar') { notify { 'tagged ok': } }
}
include c
"""),
    # --- reads and defined() ------------------------------------------------------------
    ("resource_attribute_read", N, """\
notify { 'a': message => 'hello' }
file { '/tmp/f': ensure => file, mode => '0640' }
notify { 'b': message => "${Notify['a']['message']} ${File['/tmp/f']['mode']}" }
"""),
    ("defined_function", N, """\
class c { }
define d() { }
notify { 'a': }
if defined(Notify['a']) { notify { 'resource defined': } }
if defined('c') and !defined(Class['c']) { notify { 'class known, not declared': } }
if defined('d') and defined('notify') { notify { 'types known': } }
if defined('$undefined_var') { notify { 'wrong': } } else { notify { 'no var': } }
"""),
    ("exported_resource", N, """\
@@notify { 'exp': message => 'exported' }
notify { 'plain': }
"""),
    # --- errors ---------------------------------------------------------------------------
    ("error_duplicate_declaration", N, """\
notify { 'x': }
notify { 'x': }
"""),
    ("error_duplicate_via_alias", N, """\
notify { 'a': alias => 'b' }
notify { 'b': }
"""),
    ("error_duplicate_define_instance", N, """\
define d() { }
d { 'x': }
d { 'x': }
"""),
    ("error_unknown_resource_type", N, """\
nosuchtype { 'x': }
"""),
    ("error_missing_relationship_target", N, """\
notify { 'a': require => Notify['missing'] }
"""),
    ("error_missing_chain_target", N, """\
notify { 'a': }
Notify['a'] -> Notify['missing']
"""),
    ("error_unknown_parameter_core", N, """\
notify { 'x': nosuchparam => 1 }
"""),
    ("error_unknown_parameter_define", N, """\
define d($p = 1) { }
d { 'x': q => 2 }
"""),
    ("error_missing_define_parameter", N, """\
define d($required) { }
d { 'x': }
"""),
    ("error_class_not_found", N, """\
include nosuchclass
"""),
    ("error_override_not_subclass", N, """\
class a { notify { 'x': } }
class b { Notify['x'] { message => 'o' } }
include a, b
"""),
    ("error_duplicate_class_definition", N, """\
class a { }
class a { }
include a
"""),
    ("error_duplicate_node_definition", W, """\
node 'web01.example.com' { }
node 'web01.example.com' { }
"""),
    ("error_include_then_resource_class", N, """\
class c($p = 1) { }
include c
class { 'c': p => 2 }
"""),
    ("error_no_matching_node", W, """\
node 'other.example.com' { }
"""),
    ("error_realize_missing", N, """\
realize(Notify['nope'])
"""),
    # --- parameters listed together, statement locations, errors as Puppet prints them ----
    ("error_class_params_listed", N, """\
class c($a, $b, Integer $n = 'x') { }
include c
"""),
    ("error_define_unknown_params_listed", N, """\
define d($a) { }
d { 'x': a => 1, b => 2, c => 3 }
"""),
    ("error_define_body_wrapped", N, """\
define d() { fail('boom') }
class k {
  d { 'x': }
}
include k
"""),
    ("error_define_missing_param_located", N, """\
define d($a) { }
notify { 'n': }
d {
  'x': a => 1;
  'y': }
"""),
    ("parent_contains_inheriting_child", N, """\
class p { contain c }
class c inherits p { notify { 'in c': } }
include c
"""),
    ("error_relationship_param_line", N, """\
notify { 'a':
  message => 'x',
  require => Notify['nope'],
}
"""),
    ("error_relationship_param_order", N, """\
notify { 'a':
  before  => Notify['x'],
  require => Notify['y'],
}
"""),
    ("error_duplicate_in_second_body", N, """\
notify {
  'a': ;
  'b': }
notify { 'b': }
"""),
    ("error_unknown_type_column", N, """\
  nosuchtype { 'x': }
"""),
    ("error_missing_title_before_attributes", N, """\
notify { $nothing: message => fail('attributes come later') }
"""),
    ("error_hash_plus_undef", N, """\
notice({a => 1} + undef)
"""),
    ("digests", N, """\
notice(md5('abc'))
notice(sha1('abc'))
notice(sha256('abc'))
notice(digest('abc'))
notice(md5(undef))
"""),
    ("error_md5_integer", N, """\
notice(md5(1))
"""),
    ("error_md5_arity", N, """\
notice(md5('a', 'b'))
"""),
    ("shellquote_words", N, """\
notice(shellquote('a b', ['c', ['d$e']], "it's", '', 'x"y\\'z', 'ok-_/.:=,+@%'))
notice(shellquote())
"""),
    ("error_shellquote_integer", N, """\
notice(shellquote(1))
"""),
    ("error_generate_relative", N, """\
notice(generate('bin/echo'))
"""),
    ("error_generate_dotdot", N, """\
notice(generate('/bin/../echo'))
"""),
    ("error_file_not_found", N, """\
notice(file('nope/x', '/nonexistent'))
"""),
    ("find_functions_without_modules", N, """\
notice(find_file('nope/x'))
notice(module_directory('nope'))
notice(find_template('nope/x'))
"""),
    ("error_binary_file_missing", N, """\
notice(binary_file('/nonexistent'))
"""),
    ("error_class_reference_unknown_name", N, """\
notice(Class[ToothFairy])
"""),
    ("error_class_reference_type_key", N, """\
notice(Class['a', Integer])
"""),
    ("error_illegal_number", N, """\
$x = 5name
"""),
    ("error_invalid_decimal", N, """\
$x = 1.5e
"""),
    ("error_syntax_at_end", N, """\
$x = 1 +
"""),
    ("error_validation_assign_other_namespace", N, """\
class a { $b = 1 }
$a::b = 2
"""),
    ("error_defined_undef", N, """\
notice(defined(undef))
"""),
    ("error_defined_non_catalog_type", N, """\
notice(defined(Integer))
"""),
    ("error_defined_all_classes", N, """\
notice(defined(Class))
"""),
    ("error_define_default_reads_missing_param", N, """\
define d($type, $other, $name_of = "${type}-x") { }
d { 't1': }
"""),
    ("error_define_default_expression_fails", N, """\
define d($a = fail('in a default')) { }
d { 't1': }
"""),
    ("error_alias_of_pattern_variants", N, """\
type Win = Pattern[/\\A[a-zA-Z]:\\//]
type Unix = Pattern[/\\A\\//]
type Abs = Variant[Win, Unix]
class c(Abs $path) { }
class { 'c': path => 'relative' }
"""),
    # --- issue 15: defects real code found ---------------------------------------------
    # Resources are found by their namevar (uniqueness key) as well as by title.
    ("defined_by_namevar_alias", N, """\
package { 'pkg-a': name => 'x' }
if !defined(Package['x']) { package { 'x': } }
notify { 'd': message => "${defined(Package['x'])}" }
"""),
    ("defined_namevar_with_other_provider", N, """\
package { 'pa': name => 'x', provider => 'apt' }
notify { 'n': message => "${defined(Package['x'])}" }
"""),
    ("defined_by_title_pattern", N, """\
file { 'f': path => '/tmp/x' }
notify { 'n': message => "${defined(File['/tmp/x/'])}" }
"""),
    ("attribute_access_by_namevar", N, """\
package { 'pa': name => 'x', ensure => '1.0' }
notify { 'n': message => Package['x']['ensure'] }
"""),
    ("override_by_namevar", N, """\
package { 'pa': name => 'x' }
Package['x'] { ensure => absent }
"""),
    ("realize_by_namevar", N, """\
@package { 'pa': name => 'x' }
realize(Package['x'])
"""),
    ("realize_before_declaration", N, """\
realize(Notify['later'])
@notify { 'later': }
"""),
    ("error_realize_never_declared", N, """\
realize(Notify['nowhere'], Notify['neither'])
notify { 'a': }
"""),
    # Non-relationship metaparameters pass down the containment tree from Class[main]
    # after everything is evaluated (Puppet's add_resource_metaparams).
    ("metaparams_define_at_top", N, """\
define d() { notify { "n-$title": } notify { "own-$title": tag => 'own', noop => false } }
d { 'x': tag => ['extra', 'more'], noop => true, loglevel => 'info' }
"""),
    ("metaparams_define_in_class_not_inherited", N, """\
define d() { notify { "n-$title": } }
class c { d { 'x': tag => 'ct', noop => true } }
include c
"""),
    ("metaparams_nested_define_from_node", W, """\
define inner() { notify { "in-$title": } }
define outer() { inner { "i-$title": } }
node default { outer { 'x': schedule => 'never', alias => 'foo', audit => 'all' } }
"""),
    ("metaparams_set_by_override", N, """\
define d() { notify { "in-$title": } }
d { 'x': }
D['x'] { noop => true }
"""),
    ("metaparams_class_not_inherited", N, """\
class c { notify { 'cn': } }
class { 'c': noop => true }
"""),
    # Relationships may name virtual resources that are never realized.
    ("relationship_to_unrealized_virtual", N, """\
@notify { 'v': }
notify { 'a': before => Notify['v'] }
Notify['a'] -> Notify['v']
"""),
    ("relationship_metaparam_to_virtual_by_namevar", N, """\
@package { 'pa': name => 'x' }
notify { 'n': require => Package['x'] }
"""),
    # Missing relationship targets are reported at the attribute that names them.
    ("error_missing_target_line_of_attribute", N, """\
notify {
  'a':
    message => 'x',
    require =>
      [Notify['b'],
       Notify['missing']],
}
notify { 'b': }
"""),
    ("error_missing_target_from_defaults", N, """\
Notify {
  before => Notify['missing'],
}
notify { 'a':
  message => 'x',
}
"""),
    ("error_missing_target_from_override", N, """\
notify { 'a': }
Notify['a'] {
  before => Notify['missing'],
}
"""),
    ("error_missing_target_from_collector", N, """\
notify { 'a': }
Notify <| title == 'a' |> {
  before => Notify['missing'],
}
"""),
    ("error_missing_target_from_splat", N, """\
$h = {
  before => Notify['missing'] }
notify { 'a':
  message => 'x',
  * => $h,
}
"""),
    ("error_missing_target_of_class", N, """\
class c($x) {
}
class { 'c':
  x => 1,
  before => Notify['missing'],
}
"""),
    ("error_missing_target_create_resources", N, """\


create_resources('notify', {
'a' => {
'before' => 'Notify[missing]'}})
"""),
    # A regexp Ruby gives FIXEDENCODING (non-ASCII, \\u above ASCII, \\p{}) prints with
    # its options group.
    ("regexp_fixed_encoding_text", N, """\
notice(/é/)
notice(Regexp[/é/])
notice(String(/é/))
notice(/\\u00e9/)
notice(type(/ü/))
notify { 'x': message => [/é/, /a\\/b/, /\\p{L}/] }
"""),
    # Parse errors where Puppet's lexer puts them: a character no token starts with is
    # `Syntax error at ''`; illegal references at their first faulty character.
    ("error_syntax_unknown_character", N, """\
notice('a')
notice(`)
"""),
    ("error_syntax_unknown_non_ascii", N, """\
$x = 1 § 2
"""),
    ("error_illegal_class_reference_position", N, """\
notice(Ab::cd)
"""),
    ("error_illegal_fq_class_reference_position", N, """\
notice(::Ab::5)
"""),
    ("error_illegal_fq_name_position", N, """\
$x = ::5
"""),
    ("resource_title_leading_comma", N, """\
notify { 'a':, }
notify { 'b':, message => 'x' }
Notify {, loglevel => info }
Notify['a'] {, withpath => true }
"""),
    # Slices up to Integer's max do not overflow.
    ("slice_to_integer_max", N, """\
notice([1,2,3][1, 9223372036854775807])
notice([1,2,3][-1, 9223372036854775807])
notice([1,2,3][9223372036854775807, 2])
notice('abcdef'[1, 9223372036854775807])
notice('abcdef'[-2, 9223372036854775807])
notice([1,2,3][(-9223372036854775807 - 1), 2])
notice([1,2,3][1, -1])
"""),
    # Puppet logs every validation error and gives up with their count.
    ("error_validation_several", N, """\
class a { $::x = 1 }
$a::b = 2
"""),
    ("error_override_never_found", N, """\
notify { 'a': }
Notify['b'] { message => 'x' }
Notify['c'] { message => 'y' }
"""),
    # --- found by the program generator (crates/puppet-difftest) ---------------------
    # Each parameter remembers the code that set it: a sibling subclass may not replace
    # what another subclass's override set, nor a subclass what main's defaults set.
    ("error_override_sibling_subclasses", N, """\
class base { notify { 'n': message => 'base' } }
class one inherits base { Notify['n'] { message => 'one' } }
class two inherits base { Notify['n'] { message => 'two' } }
include one
include two
"""),
    ("error_override_default_from_main", N, """\
Notify { tag => 'gen' }
class base { notify { 'n': } }
class sub inherits base { Notify['n'] { tag +> 'more' } }
include sub
"""),
    ("error_override_twice_in_main", N, """\
notify { 'n': }
Notify['n'] { tag +> ['a'] }
Notify['n'] { tag +> ['b'] }
"""),
    ("override_chain_of_subclasses", N, """\
class base { notify { 'n': message => 'base' } }
class mid inherits base { Notify['n'] { message => 'mid' } }
class leaf inherits mid { Notify['n'] { message => 'leaf' } }
include leaf
"""),
    # A collector with overrides makes its code a "subclass" of everything for good.
    ("override_after_collector_override", N, """\
Notify['late'] { loglevel => 'warning' }
@notify { 'v': message => 'v' }
Notify <| title == 'v' |> { loglevel => 'err' }
class c { notify { 'late': } }
include c
"""),
    ("collector_selects_exported", N, """\
@@notify { 'e': tag => 'gen' }
notify { 'z': }
Notify <| tag == 'gen' |> { message => 'over' }
Notify <| tag == 'gen' |> -> Notify['z']
"""),
    # contain in a node gives the class (and what it declares) the node's tags.
    ("contain_in_node_after_include", W, """\
class c { notify { 'x': } include d }
class d { notify { 'y': } }
include c
node default { contain c }
"""),
    ("node_title_and_name", W, """\
node /^web/ { notify { "${title}|${name}": } }
"""),
    ("tagged_sees_catalog_tags", N, """\
class g {}
class { 'g': tag => 'special' }
class c { notify { 't': message => "${tagged('special')} ${tagged('g')}" } }
include c
"""),
    ("interpolated_undef_in_collections", N, """\
notify { 'a': message => "${[1, undef, [undef]]} ${{ 'k' => undef }} ${String([undef])}" }
"""),
    ("error_reassign_at_operator", N, """\
$z = 1
[$a, $z] = [1, 2]
"""),
    ("error_unknown_class_resource_like", N, """\
class { 'nothing_here': }
"""),
    ("error_lookup_not_found_bare", N, """\
class a { $z = lookup('gen::nowhere') }
include a
"""),
    # An override equal to the default is ignored; the same code may replace a value
    # while it equals the default (whoever wrote it), not otherwise.
    ("override_equal_to_default_ignored", N, """\
Notify { message => 'd', tag => 't' }
notify { 'n': message => 'x', tag => 't' }
Notify['n'] { message => 'd' }
Notify['n'] { tag +> ['more'] }
"""),
    ("error_override_not_equal_to_default", N, """\
Notify { message => 'd' }
notify { 'n': message => 'x' }
Notify['n'] { message => ['d'] }
"""),
    # Puppet's finish takes resources in order: a pending override's error on a later
    # resource comes after an unknown attribute of an earlier one.
    ("error_finish_order_attribute_before_override", W, """\
Notify['late'] { loglevel => 'warning' }
notify { 'bad': nosuch => 1 }
class c { notify { 'late': } }
node default { include c }
"""),
    # --- metaparameters: Puppet 7 has no `export`/`consume` (removed in Puppet 6) ---
    ("metaparam_export_on_define", N, """\
define d() { notify { $title: } }
d { 'y': export => 'a' }
"""),
    ("metaparam_consume_on_class", N, """\
class c() { }
class { 'c': consume => 'a' }
"""),
    ("metaparam_noop_on_class", N, """\
class c() { notify { 'in c': } }
class { 'c': noop => true, loglevel => 'debug' }
"""),
    # --- getvar reads a class's variables as $c::x does (inherited ones included) ------
    ("getvar_inherited_class_variable", N, """\
class p { $x = 'px' }
class c inherits p { $y = 'cy' }
include c
notify { "a=${c::x}": }
notify { "b=${getvar('c::x')}": }
notify { "c=${getvar('c::y')} d=${getvar('p::y')}": }
"""),
    # --- a match's left operand in parentheses is reported at the parenthesis ------------
    ("match_left_operand_parenthesised", N, """\
$x = 5
$v = ($x.abs) =~ /a/
"""),
    ("nomatch_left_operand_double_parentheses", N, """\
class a($x = 5) {
  if ((  $x )) !~ 'a' { notify { 'no': } }
}
include a
"""),
    # --- captures-rest parameters: the Array type bounds the count and types each value,
    # the default is used when no value is left (functions and lambdas alike) ------------
    ("function_rest_array_type_each", N, """\
function f(Array[String] *$r) { $r }
notify { "${f('a', 'b')}": }
"""),
    ("function_rest_array_type_mismatch", N, """\
function f(Array[String] *$r) { $r }
notify { "${f(['a'], ['b'])}": }
"""),
    ("function_rest_default", N, """\
function g(Integer $a, String *$r = 'x') { $r }
notify { "${g(1)}": }
"""),
    ("function_rest_min_count", N, """\
function f(Array[String, 1] *$r) { $r }
notify { "${f()}": }
"""),
    ("lambda_rest_min_count", N, """\
with() |Array[Any, 1] *$r| { notify { "${r}": } }
"""),
    ("lambda_rest_no_arguments", N, """\
with(1, 2, 3) |Array[Any, 0, 0] *$r| { notify { "${r}": } }
"""),
    ("lambda_rest_between", N, """\
with(1, 2, 3) |$a, Array[Any, 0, 1] *$r| { notify { "${r}": } }
"""),
    ("lambda_rest_default", N, """\
with(1) |$a, *$r = 'y'| { notify { "${a} ${r}": } }
"""),
    ("lambda_param_type_mismatch", N, """\
with(1) |String $x| { notify { $x: } }
"""),
    ("lambda_required_after_optional", N, """\
[1].each |$x, $y = $x, $z| { notify { "${x}": } }
"""),
    ("lambda_required_param_missing", N, """\
with(1) |$x, $y| { notify { "${x}": } }
"""),
    ("function_too_many_arguments_all_optional", N, """\
function f($a = 1, $b = 2) { 1 }
notify { "${f(1, 2, 3)}": }
"""),
    ("function_too_few_arguments", N, """\
function f($a, $b = 2) { 1 }
notify { "${f()}": }
"""),
    # --- string comparison: only ASCII letters ignore case (Ruby's casecmp) ------------
    ("string_compare_ascii_case_only", N, """\
notice("ABC" == "abc", "É" == "é", ["É"] == ["é"], {"a" => "Ö"} == {"a" => "ö"})
notice("É" in ["é"], "é" in "XÉY", "É" < "é", "é" < "É", "a" < "B")
notice(compare("É", "é"), compare("b", "A"), sort(["b", "A", "É", "é", "a"]))
case "É" { "é": { notify { 'case matched': } } default: { notify { 'case default': } } }
notify { ("É" ? { "é" => 'selector matched', default => 'selector default' }): }
"""),
    # --- a type alias may not redefine a type Puppet already has (Static-Loader's data
    # types, its built-in aliases and core resource types) nor an alias of the same file ---
    ("type_alias_redefines_string", N, """\
type String = Integer
notify { 'x': message => String(1 =~ String) }
"""),
    ("type_alias_redefines_unused_integer", N, """\
type Integer = String
notify { 'x': }
"""),
    ("type_alias_redefines_resource", N, "type Resource = Integer\n"),
    ("type_alias_redefines_data", N, "type Data = Integer\n"),
    ("type_alias_redefines_richdata", N, "type RichData = Integer\n"),
    ("type_alias_redefines_lookupkey", N, "type Puppet::LookupKey = Integer\n"),
    ("type_alias_redefines_uri", N, "type URI = Integer\n"),
    ("type_alias_redefines_sensitive", N, "type Sensitive = Integer\n"),
    ("type_alias_redefines_deferred", N, "type Deferred = Integer\n"),
    ("type_alias_redefines_file", N, "type File = Integer\n"),
    ("type_alias_redefines_stage", N, "type Stage = Integer\n"),
    ("type_alias_redefines_whit", N, "type Whit = Integer\n"),
    ("type_alias_redefines_lowercase_spelling", N, "type STRING = Integer\n"),
    ("type_alias_twice", N, """\
type Foo = Integer
type Foo = String
notify { 'x': message => String(1 =~ Foo) }
"""),
    ("function_defined_twice", N, """\
function f() { 1 }
function f() { 2 }
notify { "${f()}": }
"""),
    ("type_alias_error_name_allowed", N, """\
type Error = Integer
notify { 'x': message => String(1 =~ Error) }
"""),
    ("type_alias_unit_name_allowed", N, """\
type Unit = Integer
notify { 'x': message => String(1 =~ Unit) }
"""),
    ("type_alias_user_resource_type_name_allowed", N, """\
type Exec_thing = Integer
notify { 'x': message => String(1 =~ Exec_thing) }
"""),
    # --- Timestamp.new / new(Timestamp) without arguments: the current time -------------
    ("timestamp_new_without_arguments_is_now", N, """\
$t = '2020-01-01T00:00:00Z'
notify { 'x': message => [Timestamp.new > Timestamp($t), new(Timestamp) > Timestamp($t), Timestamp() =~ Timestamp] }
"""),
    # --- Ruby (templates, functions) sees the compile's environment and settings ---------
    ("ruby_sees_environment_and_settings", N, """\
notify { 'x': message => inline_template('<%= Puppet[:environment] %>|<%= Puppet.settings[:environment] %>|<%= Puppet.lookup(:current_environment).name.inspect %>|<%= scope.environment %>|<%= scope.environment.to_sym.inspect %>|<%= Puppet[:strict_variables] %>|<%= Puppet[:strict].inspect %>') }
"""),
    # --- a template's `classes`: the catalog's classes so far, in the order Puppet adds them
    ("template_classes_so_far", W, """\
class zz { }
class aa { include zz }
class bb { notify { 'b': message => inline_template('<%= classes.join(",") %>') } }
class cc { }
include aa
include bb
notify { 'top': message => inline_template('<%= classes.join(",") %>') }
node default { include cc notify { 'in node': message => inline_template('<%= classes.join(",") %>') } }
node 'web01.example.com' { include cc notify { 'in node': message => inline_template('<%= classes.join(",") %>') } }
"""),
    # Ruby's printf digits: near a tie the last digit goes to even (2.675 -> 2.68 although
    # it is 2.67499999... in binary; 2.665 -> 2.66), and %g keeps a zero dtoa kept.
    ("float_digits_near_ties", N, """\
notice(sprintf('%.2f %.1f %.2f %.1f %.3f %.2f', 2.675, 0.35, 2.665, 0.05, 1.0005, 8.345))
notice(sprintf('%.4g %#.4g %.1e %.2e %g %G', 0.086605, 1265.1, 125.0, 0.125, 1e-5, 1e20))
notice(String(2.675, '%.2f'))
notice(String(0.35, '%.1f'))
notice(String(1265.1, '%#.4g'))
notice(sprintf('%.0f %.0f %.0f %.0f', 0.5, 1.5, 2.5, 3.5))
notice(sprintf('%08.3f|%-9.2f|%+.1f', 3.14159, 2.675, 0.25))
"""),
    # notice & co. log their arguments as interpolation prints them (a nested undef is
    # empty); fail is a 3.x function joining Ruby's to_s of its arguments.
    ("log_functions_print_nested_undef_empty", N, """\
notice([undef, 1])
notice({a => undef, b => [undef]})
warning([[undef], {b => undef}], undef, 'x', 1.0, [2.0], Integer, /re/, default, [default])
"""),
    ("fail_joins_ruby_to_s", N, """\
fail(undef, 'a', 1.5, [2.0, 'x', undef], {'k' => [1, undef]}, Integer, /re/, default, [default], Sensitive(1))
"""),
    # A merge hash is checked against the strategy's options Struct (Puppet's message).
    ("merge_options_wrong_type_unique", N, """\
notice(lookup('x', undef, {'strategy' => 'unique', 'knockout_prefix' => '--'}, 1))
"""),
    ("merge_options_wrong_type_deep_two", N, """\
notice(lookup('x', undef, {'strategy' => 'deep', 'bogus' => true, 'sort_merged_arrays' => 'yes'}, 1))
"""),
    ("merge_options_deep_accepted", N, """\
notice(lookup('x', undef, {'strategy' => 'deep', 'knockout_prefix' => '--', 'merge_hash_arrays' => true}, 1))
"""),
    # sprintf is a 3.x function formatting with Ruby: %s/%p of containers are Ruby's texts,
    # a top-level undef is '', negative %x/%o/%b are two's complement (..f01).
    ("sprintf_ruby_texts", N, """\
notice(sprintf('%s|%p|%10s|%-10s|', [1, 'a', undef], {'k' => [1.5]}, 'abc', 'de'))
notice(sprintf('%s|%s|%s|%s|%s|%s', /re/, Sensitive('x'), default, 1.5, undef, true))
notice(sprintf('%p|%p|%p|%p|%p|%p', /re/, Sensitive('x'), default, 1.5, undef, 'str'))
notice(sprintf('%s|%p', [/re/, default, 1.0, {'a' => undef}], [Sensitive(1), 'x']))
notice(sprintf('%-12s|%12p|%.2s|%5.1p|', [1], 'ab', [1, 2], 'xyz'))
notice(sprintf('%x|%08x|%.8x|%#x|%-8x|%o|%#o|%b|%08b|%#b|%X|%#X|%+x|% x|%#010x', -255, -255, -255, -255, -255, -8, -8, -5, -5, -5, -255, -255, -255, -255, -255))
notice(String(-3, '%x'), String(-8, '%o'), String(-255, '%#X'), String(-5, '%08b'))
"""),
    # A template's all_tags: the catalog's tags so far (settings, then each evaluated class's
    # and the node's resource tags); scope.function_x only for 3.x functions.
    ("template_all_tags_and_scope_methods", W, """\
class foo::bar::baz { notify { 'in': message => inline_template('<%= all_tags.to_a.inspect %>') } }
class zed { }
define d() { notify { "in d ${title}": message => inline_template('<%= all_tags.to_a.join(",") %>') } }
include zed
notify { 'top': message => inline_template('<%= all_tags.to_a.inspect %> <%= all_tags.include?("zed") %>') }
include foo::bar::baz
node 'web01.example.com', 'other' {
  d { 'x': }
  notify { 'node': message => inline_template('<%= all_tags.to_a.inspect %>') }
  notify { 'scope': message => inline_template("<%= [scope.respond_to?(:call_function), scope.respond_to?(:lookupvar), scope.respond_to?(:function_upcase), scope.respond_to?(:function_nope)].inspect %> <%= begin; scope.function_upcase(['a']); rescue NoMethodError; 'no function_upcase'; end %> <%= scope.function_sprintf(['%03d', 7]) %>") }
}
"""),
    ("float_digits_in_templates", N, """\
notify { 'r': message => inline_template('<%= [2.675.round(2), 1.005.round(2), 0.29.floor(2), 18462.65.ceil(2), 4.45.round(1, half: :even), 25.round(-1, half: :even), 15.7.round(-1)].inspect %>') }
notify { 'f': message => inline_template("<%= format('%.2f %.1f %.4g', 2.675, 0.35, 0.086605) %> <%= '%.2f' % 2.665 %>") }
"""),
    # --- defined('$class::var'): false (no warning) for a class not evaluated -----------
    ("defined_qualified_variable", N, """\
class a { $x = 1 $u = undef }
class b inherits a { $y = 2 }
class c { }
$top = 't'
include b
notify { 'x': message => [defined('$a::x'), defined('$a::u'), defined('$a::nope'), defined('$b::x'), defined('$b::y'), defined('$c::x'), defined('$a::top'), defined('$::top'), defined('$nope::x'), defined('$::nope')] }
"""),
    # --- sprintf's `*` width and precision take the next argument (Ruby's Kernel#sprintf)
    ("sprintf_star_width_and_precision", N, """notify { 'x': message => [sprintf('%-*s|', 6, 'ab'), sprintf('%*s|', 6, 'ab'), sprintf('%*s|', -6, 'ab'), sprintf('%.*f', 2, 3.14159), sprintf('%*.*f|%s', 8, 1, 2.25, 'z'), sprintf('%-*d|', 4, 7)] }
"""),
    ("sprintf_star_width_not_integer", N, """notify { 'x': message => sprintf('%*s', '6', 'ab') }
"""),
    ("sensitive_p_format_is_ruby_inspect", N, """\
notice(String(Sensitive('x'), '%p'))
notice(String([Sensitive('x')], '%p'))
notice(String({a => Sensitive(1)}))
notice(Sensitive('x'))
notice("${Sensitive('x')}")
notice(sprintf('%p', Sensitive('x')))
"""),
    ("sprintf_numbered_arguments", N, """\
notice(sprintf('%2$s %1$s', 'a', 'b'))
notice(sprintf('%1$05d|%1$-4s|', 7))
"""),
    ("sprintf_numbered_mixed_with_unnumbered", N, """\
notice(sprintf('%1$s %s', 'a'))
"""),
    ("sprintf_numbered_after_unnumbered", N, """\
notice(sprintf('%s %1$s', 'a'))
"""),
    ("sprintf_integer_of_bad_text", N, """\
notice(sprintf('%d', 'x\\ty'))
"""),
    ("sprintf_float_of_non_ascii_text", N, """\
notice(sprintf('%f', 'é'))
"""),
    ("sprintf_integer_of_array", N, """\
notice(sprintf('%d', [1]))
"""),
    ("sprintf_integer_of_boolean", N, """\
notice(sprintf('%x', true))
"""),
    ("sprintf_integer_of_type", N, """\
notice(sprintf('%d', String))
"""),
    ("sprintf_numbers_of_ruby_texts", N, """\
notice(sprintf('%.1f|%d|%d|%.2f', '0x1A', '017', ' 1_000 ', '017'))
"""),
    ("sprintf_float_of_nan_text", N, """\
notice(sprintf('%f', 'NaN'))
"""),
    ("sprintf_float_of_ruby_float_texts", N, """\
notice(sprintf('%.3f', '.5'))
notice(sprintf('%.1f', ' 1_000.5 '))
notice(sprintf('%.2e', '1e3'))
"""),
    ("new_float_error_label", N, """\
notice(Float('abc'))
"""),
    ("new_numeric_error_label", N, """\
notice(Numeric('abc'))
"""),
    ("float_division_by_zero_is_infinity", N, """\
notice(1.5 / 0.0)
"""),
    ("float_zero_by_zero_is_nan", N, """\
notice(0.0 / 0.0)
"""),
    ("integer_modulo_float", N, """\
notice(7 % 2.0)
"""),
    ("integer_shift_by_float", N, """\
notice(8 << 1.9)
notice(8 >> 2.5)
notice(1 << -1.5)
"""),
    ("float_product_overflows_to_infinity", N, """\
notice(1e308 * 10)
"""),
    ("type_compared_with_non_type", N, """\
notice(Integer < 3)
notice(Type > {})
notice(String <= 'x')
notice(Integer >= [])
"""),
    ("join_nested_empty_arrays", N, """\
notice(join([1, [], 2], '-'))
notice(join([[], ''], '-'))
notice(join([1, [2, [3, []]]], '-'))
notice(join([[]], '-'))
"""),
    ("sort_mixed_error_names_immediate", N, """\
notice(['a', 1].sort)
"""),
    ("sort_mixed_error_nil", N, """\
notice([1, undef].sort)
"""),
    ("sort_mixed_error_type_class", N, """\
notice([Integer, 'a'].sort)
"""),
    ("string_c_of_negative_integer", N, """\
notice(String(-1, '%c'))
"""),
    ("comparison_error_labels_the_full_type", N, """\
notice([] < Integer[1, 2])
"""),
    ("comparison_error_labels_a_resource_reference", N, """\
notice({} >= File['x'])
"""),
    # --- a type alias is named as its definition spells it, whatever case the reference uses
    ("type_alias_name_as_defined", N, """type Site::AbsPath = Pattern[/\\A\\//]
type Site::Port = Integer[1, 65535]
notify { 'a': message => ["${Site::ABSPATH}", "${Type[Site::PORT]}", Site::Abspath == Site::AbsPath] }
"""),
    ("type_alias_name_as_defined_error", N, """type Site::AbsPath = Pattern[/\\A\\//]
class c (Site::Abspath $p = 'rel') { }
include c
"""),
    # --- EPP text runs on across `<%# %>` comments: `<%-` and `<%#-` trim the blanks of the whole
    # run (Puppet's EppScanner), e.g. indented comment lines before an indented `<%- ... -%>`
    ("not_numeric_shows_ruby_text", N, """\
notice(1.5 * [1, {x => undef}])
"""),
    ("not_numeric_hash_times", N, """\
notice({'b' => 2} * true)
"""),
    ("not_numeric_unary_minus_hash", N, """\
notice(- {a => 1})
"""),
    ("not_numeric_regexp", N, """\
notice(/x/ + 1)
"""),
    ("semver_operator_not_applicable", N, """\
notice(SemVer('1.2.3') % 2)
"""),
    ("semver_on_the_right_of_a_number", N, """\
notice(1.5 * SemVer('1.2.3'))
"""),
    ("semver_unary_minus", N, """\
notice(- SemVer('1.2.3'))
"""),
    ("semver_new_error_label", N, """\
notice(SemVer('v1.2.3'))
"""),
    ("semver_p_format", N, """\
notice(String(SemVer('1.2.3-rc.1+b.5'), '%p'))
notice(String({a => SemVer('1.2.3')}))
notice(String([SemVer('1.2.3')], '%s'))
"""),
    ("strftime_timestamp_ruby_directives", N, """\
$t = Timestamp('2024-03-04T05:06:07.123456789 UTC')
notice($t.strftime('%u %w %U %W %V %G %:z %^b %10N %3N %-d|%e|%k|%-H %C %y %j %s %P %#p'))
notice(Timestamp('2024-01-01T00:00:00Z').strftime('%A %U %W %V %G'))
"""),
    ("strftime_timestamp_zone_offset", N, """\
$t = Timestamp('2024-01-01T00:00:00Z')
notice($t.strftime('%F %H:%M %z %:z|%Z|', '+05:30'))
notice($t.strftime('%F %H %z', 'EST'))
notice($t.strftime('%F %H %z', 'current'))
"""),
    ("strftime_timestamp_illegal_zone", N, """\
notice(Timestamp('2024-01-01T00:00:00Z').strftime('%d.%m.%Y', 'Europe/Berlin'))
"""),
    ("strftime_timespan_format", N, """\
$s = Timespan(93784.5)
notice($s.strftime('%D|%H|%M|%S|%L|%N|%-L|%3N|%_H|%5S|%-D'))
notice($s.strftime('%H:%M'))
notice(Timespan(-93784.5).strftime('%S.%N'))
notice(Timespan(1234567).strftime('%S.%L'))
notice(Timespan(86400.25).strftime('%-H h %_6M|%05S'))
"""),
    ("strftime_timespan_bad_format", N, """\
notice(Timespan(1).strftime('%Q'))
"""),
    ("shellquote_of_a_hash", N, """\
notice(shellquote({'b' => 2}, '10'))
"""),
    ("sprintf_c_conversion", N, """\
notice(sprintf('%c|%3c|%-3c|%c|', 't', 65, 0x263A, 66.7))
"""),
    ("sprintf_c_of_a_word", N, """\
notice(sprintf('%c', 'tab'))
"""),
    ("sprintf_c_of_undef", N, """\
notice(sprintf('%c', undef))
"""),
    ("sprintf_c_of_a_boolean", N, """\
notice(sprintf('%c', true))
"""),
    ("sprintf_c_of_an_array", N, """\
notice(sprintf('%c', [1]))
"""),
    ("template_logs_and_unknown_variables", N, """\
$x = 1
notice(inline_template('<%= scope["nope"].inspect %>|<%= scope.lookupvar("nope2").inspect %>|<%= scope["nope"].inspect %>|<%= @nope3.inspect %>'))
notice(inline_template('<% Puppet.warning("pw") %><% warn("kw") %><% scope.function_warning(["fw"]) %>x'))
"""),
    ("inline_template_runtime_error", N, """\
$x = 1
notice(inline_template('<%= @x.even?.foo %>'))
"""),
    ("semver_range_operator_spacing", N, """\
$v = SemVer('7.23.0')
notice([$v =~ SemVerRange('>= 6.0.0'), $v =~ SemVerRange('>=v1.2'), $v =~ SemVerRange('> 1.x'), $v =~ SemVerRange('~ 1.2'), $v =~ SemVerRange('<=  2'), $v =~ SemVerRange('^ 1.2.3'), $v =~ SemVerRange('= 7.23.0'), $v =~ SemVerRange('>= 6.0.0 < 8.0.0')])
"""),
    # --- $settings::x and Puppet[:x]: Puppet's settings table (paths are the oracle's temp
    # directories, so they are compared with what they derive from) ----------------------
    ("settings_values_types_and_ruby", N, """\
$s = [$settings::runinterval, $settings::reports, $settings::storeconfigs_backend, $settings::strict, $settings::ca_ttl, $settings::maxwaitforcert, $settings::disable_warnings, $settings::supported_checksum_types, $settings::priority, $settings::environment, $settings::certificate_revocation, $settings::node_terminus, $settings::splaylimit, $settings::serverport, $settings::http_extra_headers, $settings::storeconfigs, $settings::modulepath, $settings::manifest]
notice($s)
notice($s.map |$v| { type($v, 'generalized') })
notice([$settings::all_local.length, $settings::all_local.keys[0, 8], $settings::name, $settings::title])
notice([$settings::fileserverconfig == "${settings::confdir}/fileserver.conf", $settings::hostcert == "${settings::certdir}/${settings::certname}.pem", $settings::localcacert == "${settings::ssldir}/certs/ca.pem", $settings::statefile == "${settings::vardir}/state/state.yaml", $settings::all_local['hostcert'] == $settings::hostcert])
notice($settings::nosuch)
notify { 'ruby': message => inline_template('<%= [Puppet[:runinterval], Puppet.settings[:reports], Puppet[:strict], Puppet[:node_terminus], Puppet[:catalog_cache_terminus], Puppet[:maxwaitforcert], Puppet[:certificate_revocation], Puppet[:storeconfigs_backend], Puppet[:facts_terminus], Puppet[:disable_warnings], Puppet[:nosuch], Puppet[:environment], Puppet[:hostcert] == File.join(Puppet[:certdir], Puppet[:certname] + ".pem")].inspect %>') }
"""),
    ("semver_range_printing", N, """\
$r = SemVerRange('>= 1.0.0 <2.x')
notice($r, "${r}", String($r, '%p'), String([$r], '%p'), [$r], {'a' => $r})
notice(SemVerRange('1.x || 1.2.3 || ^0.0.1'), String(SemVerRange('1.x || 1.2.3 || ^0.0.1'), '%p'), String(SemVerRange('||'), '%p'), SemVerRange('||'))
notice(SemVerRange(SemVer('1.0.0'), SemVer('2.0.0')), SemVerRange(SemVer('1.0.0'), SemVer('2.0.0'), true), SemVerRange(default, default))
notice(String(SemVerRange(SemVer('1.0.0'), SemVer('2.0.0'), true), '%p'), SemVerRange({'min' => SemVer('1.0.0')}))
notice(SemVer['1.x', '2.x'], SemVer['>=1.0.0', '<=0.5.0'], $r == SemVerRange('>=1.0.0 <2.0.0'), $r == SemVerRange('1.x'))
"""),
    ("semver_range_prereleases", N, """\
$vs = ['1.0.0', '1.0.0-rc1', '1.0.0-rc2', '1.5.0-rc1', '2.0.0-rc1', '2.0.0', '1.0.0+b1']
$rs = ['>=1.0.0-rc1', '>=1.0.0 <2.0.0', '>=1.0.0-rc1 <2.0.0-rc2', '1.x', '^1.0.0-rc1', '1.0.0-rc1 - 2.0.0-rc1', '*', '1.0.0 || >=2.0.0-rc1']
$rs.each |$r| { notice($r, $vs.filter |$v| { SemVer($v) =~ SemVerRange($r) }, $vs.filter |$v| { $v =~ SemVerRange($r) }) }
notice(SemVer('1.0.0-rc2') =~ SemVer['>=1.0.0-rc1'], SemVer('1.1.0-rc2') =~ SemVer['>=1.0.0-rc1'])
case SemVer('1.2.3-rc1') { SemVerRange('1.x'): { notice('1.x') } SemVerRange('>=1.2.3-rc0'): { notice('rc') } default: { notice('none') } }
"""),
    ("semver_range_forms", N, """\
$v = ['0.0.1', '0.0.2', '0.1.0', '0.1.5', '1.2.3', '1.2.9', '1.3.0', '1.9.0', '2.0.0', '2.3.4', '2.3.5']
['^0.0.1', '^0.1', '^0.x', '^0.0.x', '~1.2', '~1', '~>1.2.3', '>1.x', '<=1.x', '<1.x', '>=1.2', '1.2 - 2.3.4', '1 - 2', '1.*', 'x', '*', '>=v1.2.3', '> 1.2.3', '1.2.3 || 2.x'].each |$r| {
  notice("${r}: ${String(SemVerRange($r), '%p')} ${$v.filter |$x| { SemVer($x) =~ SemVerRange($r) }}")
}
"""),
    ("semver_range_unparsable", N, """\
notice(SemVerRange('v1.2.3'))
"""),
    ("semver_range_leading_zero_prerelease", N, """\
notice(SemVerRange('>=1.2.3-rc.01'))
"""),
    ("semver_range_caret_wildcard_fails_in_ruby", N, """\
notice(SemVerRange('^x'))
"""),
    ("semver_range_empty_intersection_fails_in_ruby", N, """\
notice(SemVerRange('>2.0.0 <1.0.0 >0.5.0'))
"""),
    ("semver_range_same_end_merge_fails_in_ruby", N, """\
notice(SemVerRange('1.0.0 - 2.0.0 || 1.5.0 - 2.0.0'))
"""),
    ("semver_qualifiers_from_parts", N, """\
notice(SemVer(1, 2, 3, '01'), SemVer(1, 2, 3, 'rc.1') == SemVer('1.2.3-rc.1'), SemVer({'major' => 1, 'minor' => 0, 'patch' => 0, 'build' => '007'}))
notice(SemVer('1.2.3+007'), SemVer('1.2.3+007') == SemVer('1.2.3+7'), '1.2.3-01' =~ SemVerRange('*'))
"""),
    ("semver_leading_zero_prerelease", N, """\
notice(SemVer('1.2.3-01'))
"""),
    # --- the strict setting: numeric coercion and duplicate hash keys (Puppet 8's error) --
    ("strict_coercion_warning", N, """\
notice('1' + 1)
notice(-'2')
notice([10, 20]['1'])
$h = {'a' => 1, 'a' => 2}
notice($h)
"""),
    ("strict_coercion_off", N, """\
notice('1' + 1)
notice(-'2')
notice([10, 20]['1'])
$h = {'a' => 1, 'a' => 2}
notice($h)
""", {"strict": "off"}),
    ("strict_error_coercion_add", N, """\
notice('ok')
notify { 'n': message => 3.0 + '1' }
""", {"strict": "error"}),
    ("strict_error_coercion_minus", N, """\
notice(- '2')
""", {"strict": "error"}),
    ("strict_error_coercion_index", N, """\
$a = [10, 20]
notice($a['1'])
""", {"strict": "error"}),
    ("strict_error_duplicate_key", N, """\
notice('before')
$h = {'a' => 1, 'b' => 2, 'a' => 3}
""", {"strict": "error"}),
    ("strict_error_duplicate_keys_twice", N, """\
$h = {'a' => 1, 'a' => 3}
$i = {'b' => 1, 'b' => 3}
""", {"strict": "error"}),
    ("strict_error_unknown_variable", N, """\
notice($nope)
""", {"strict": "error"}),
    ("epp_trim_across_comments", N, """$t = {
  't1' => "A  <%# c -%>\n  <%- if true { -%>\nB\n<% } -%>",
  't2' => "A  <%#- c %>B",
  't3' => "A  <%# -%>\nB",
  't4' => "A  <%# x %>  <%# y -%>\n\t <%- if true { %>B<% } %>",
  't5' => "A \n <%# x %>\n  <%- if true { %>B<% } %>",
  't6' => "A  <%#--x%>B",
  't7' => "<IfModule x>\n  <%# one -%>\n  <%# two -%>\n  <%- [1].each |\\$v| { -%>\n  v<%= \\$v %>\n  <%- } -%>\n</IfModule>\n",
}
$t.each |$k, $v| { notify { $k: message => inline_epp($v) } }
"""),
    # --- regexps as Ruby 3.1 (Onigmo) reads them (see scripts/regexp-diff.py) ---------
    ("regexp_named_and_plain_groups", N, """\
if 'ab' =~ /(?<x>a)(b)/ { notice([$0, $1, $2]) }
if 'ab' =~ /(a)(b)?(c)?/ { notice([$0, $1, $2, $3]) }
case 'web01' { /^(?<role>[a-z]+)(\\d+)$/: { notice([$0, $1, $2]) } }
"""),
    ("regexp_intervals_and_options", N, """\
notice(['aaa' =~ /^a{,2}$/, 'aa' =~ /^a{,2}$/, 'a{,}' =~ /^a{,}$/, 'a{x' =~ /a{x/, 'a' =~ /^a{2}?$/])
notice(['c' =~ /a(?i)b|c/, 'aC' =~ /a(?i)b|c/, 'AB' =~ /a(?i:b)/, 'aB' =~ /a(?i:b)/])
notice(['a b' =~ /(?x) a b /, 'ab' =~ /(?x) a b /, 'a b' =~ /(?x)a[ ]b/])
notice(['aaab' =~ /^a++b/, 'aaa' =~ /^a++a/, 'aaa' =~ /^(?>a+)a/])
"""),
    ("regexp_classes_non_ascii", N, """\
notice(['é' =~ /[[:alpha:]]/, 'é' =~ /\\w/, 'é' =~ /\\W/, 'é' =~ /\\p{Alpha}/, 'é' =~ /[[:^alpha:]]/])
notice(['b' =~ /[a-z&&[^aeiou]]/, 'e' =~ /[a-z&&[^aeiou]]/, 'K' =~ /\\h/, 'f' =~ /\\h/])
notice(["x\\r\\ny" =~ /x\\Ry/, 'A' =~ /\\101/, 'é' =~ /\\u00e9/, '/' =~ /\\//])
"""),
    ("regexp_functions_as_ruby", N, """\
notice(regsubst('aaa', /a*/, '-', 'G'), regsubst('abc', /x*/, '-', 'G'), regsubst('ab', /(?<x>a)/, '<\\k<x>>'))
notice(regsubst('ab', /a/, '[\\0|\\`|\\'|\\\\]'), regsubst('a b', 'a b', 'X', 'E'), regsubst('AB', 'b', 'x', 'IG'))
notice(split('abc', /b*/), split('a,b,,', ','), split('a1b22c', /(\\d)+/), split('abc', ''))
notice(match('web01', /(?<role>[a-z]+)(\\d+)/), match('ab', /(a)(x)?/))
"""),
]

def strip_error(msg, node):
    """Puppet's message without the 'Evaluation Error: ' label and the trailing location."""
    m = msg
    suffix = " on node " + node
    if m.endswith(suffix):
        m = m[: -len(suffix)]
    m = re.sub(r" \((?:file: [^)]*?, )?line: \d+(?:, column: \d+)?\)$", "", m)
    if m.startswith("Evaluation Error: "):
        m = m[len("Evaluation Error: "):]
    return m


DROP_REFS = {"Stage[main]", "Class[main]", "Class[Settings]"}


def summarise(case_id, node, manifest, out):
    line = {"id": case_id, "node": node, "manifest": manifest}
    if not out.get("ok"):
        # Ruby object addresses differ from run to run: `#<Puppet::Resource::Type>`.
        full = re.sub(r"(#<[A-Za-z:]+):0x[0-9a-f]+>", r"\1>", out["error"])
        line["error"] = strip_error(full, node)
        line["error_full"] = full
        return line
    by_ref = {}
    for r in out["resources"]:
        by_ref[f'{r["type"]}[{r["title"]}]'] = r
    order = out["resource_order"]
    if sorted(order) != sorted(by_ref):
        sys.exit(f"{case_id}: resource_order does not match resources")
    resources = []
    for ref in order:
        if ref in DROP_REFS:
            continue
        r = by_ref[ref]
        params = r.get("parameters", {})
        resources.append({
            "ref": ref,
            "tags": sorted(r.get("tags", [])),
            "params": {k: params[k] for k in sorted(params)},
            "exported": bool(r.get("exported", False)),
        })
    edges = sorted(
        f'{e["source"]} -> {e["target"]}'
        for e in out["edges"]
        if not (e["source"] == "Stage[main]" and e["target"] == "Class[Settings]")
    )
    logs = [
        {"level": l["level"], "message": l["message"], "source": l.get("source")}
        for l in out.get("logs", [])
        if l.get("level") in ("notice", "warning")
    ]
    line["expect"] = {
        "resources": resources,
        "classes": sorted(c for c in out["classes"] if c != "settings"),
        "edges": edges,
        "logs": logs,
    }
    return line


def find_oracle(arg):
    if arg:
        return arg
    if os.environ.get("ORACLE"):
        return os.environ["ORACLE"]
    cc = shutil.which("compile-catalog")
    if cc:
        return os.path.dirname(os.path.realpath(cc))
    return os.path.join(os.path.dirname(ROOT), "shared", "oracle")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--oracle")
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("ids", nargs="*")
    args = ap.parse_args()
    oracle = find_oracle(args.oracle)
    cc = os.path.join(oracle, "compile-catalog")
    if not os.access(cc, os.X_OK):
        sys.exit(f"compile-catalog not found in {oracle} (use --oracle DIR or ORACLE=DIR)")

    ids = [c[0] for c in CASES]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        sys.exit(f"duplicate case ids: {sorted(dup)}")
    cases = [c for c in CASES if not args.ids or c[0] in args.ids]
    if args.ids and len(cases) != len(set(args.ids)):
        sys.exit(f"unknown ids: {sorted(set(args.ids) - set(ids))}")

    # A case's optional fourth element: Puppet settings for its compile (`--setting`); one
    # batch per distinct set.
    settings_of = {c[0]: (c[3] if len(c) > 3 else {}) for c in cases}
    groups = {}
    for c in cases:
        groups.setdefault(json.dumps(settings_of[c[0]], sort_keys=True), []).append(c)
    outs = {}
    for key, group in groups.items():
        batch = "".join(
            json.dumps({"id": c[0], "code": c[2], "node": c[1]}) + "\n" for c in group
        )
        flags = [f"--setting={k}={v}" for k, v in json.loads(key).items()]
        proc = subprocess.run(
            [cc, "--batch", "-", "--with-order", "--with-logs", *flags],
            input=batch, capture_output=True, text=True, check=False,
        )
        if proc.returncode != 0:
            sys.exit(f"compile-catalog failed ({proc.returncode}):\n{proc.stderr}")
        for l in proc.stdout.splitlines():
            o = json.loads(l)
            outs[o["id"]] = o
    lines = []
    for (i, n, m, *rest) in cases:
        if i not in outs:
            sys.exit(f"{i}: no output from compile-catalog")
        if outs[i].get("internal"):
            sys.exit(f"{i}: internal error in compile-catalog: {outs[i]}")
        line = summarise(i, n, m, outs[i])
        if settings_of[i]:
            line["settings"] = settings_of[i]
        lines.append(json.dumps(line, ensure_ascii=False))

    text = "\n".join(lines) + "\n"
    forbidden = {ROOT, os.path.realpath(ROOT), oracle, os.path.realpath(oracle),
                 os.path.expanduser("~")}
    for p in forbidden:
        if len(p) > 1 and p in text:
            sys.exit(f"a path of this machine ({p}) appears in the fixture")
    # Temp paths: only the file titles the manifests themselves use may appear.
    tmp = re.escape(tempfile.gettempdir().rstrip("/") + "/")
    allowed = set()
    for (_, _, m, *_) in cases:
        allowed.update(a.rstrip("/") for a in re.findall(tmp + r"[\w./-]*", m))
    for found in re.findall(tmp + r"[\w./-]*", text):
        if found.rstrip("/") not in allowed:
            sys.exit(f"a temp path of this machine ({found}) appears in the fixture")

    if args.ids:
        sys.stdout.write(text)
        return
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    errors = sum(1 for l in lines if '"error":' in l)
    print(f"wrote {len(lines)} cases ({errors} errors) to {os.path.relpath(args.out, ROOT)}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
