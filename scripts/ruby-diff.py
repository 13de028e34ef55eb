#!/usr/bin/env python3
"""Differential testing of puppet-ruby against the real Ruby 3.1 on random snippets.

Generates COUNT small deterministic Ruby programs from SEED (method calls of the core
library that modules' functions and Hiera backends use, with random receivers, arguments
and blocks, plus small object-model programs), runs them with `ruby` (one forked child
a case, as tests/fixtures/gen.rb does) and with puppet-ruby
(`examples/eval_many.rs`, one process), and prints the cases whose results differ,
grouped by kind and by the method they exercise.

    cargo build --release -p puppet-ruby --example eval_many
    python3 scripts/ruby-diff.py SEED COUNT [--out DIR] [--show N] [--ours EVAL_MANY]

A difference found here becomes a case of crates/puppet-ruby/tests/fixtures/cases.txt
(expected output from gen.rb, never hand-written).
"""
import json
import os
import random
import subprocess
import sys
from collections import Counter, defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

STRS = [
    "'hello world'", "''", "'a,b,,c'", "'Hello_World-foo'", "\"  padded\\t\\n\"",
    "'abc123def'", "'ÄÖü ß'", "'a-b_c d'", "'0x1A'", "'1_000'", "' 42 '", "'3.14e2'",
    "'-0'", "'foo.bar.baz'", "\"line1\\nline2\\r\\nline3\\n\"", "'aaabbbccc'",
    "'CamelCaseString'", "'zz99'", "'a%b'", "'Az'", "'x'", "'snake_case_word'",
    "'/etc/puppet/hiera.yaml'", "'key=value; other=2'", "'  '", "'12abc'", "'0b101'",
    "'1e5'", "'+7'", "'--'", "'a1'", "'Zz'", "'9'", "'éa'", "'%{lookup}'", "'ab\\\\1c'",
    "'  leading'", "'trailing  '", "'MiXeD cAsE'", "'1.5'", "'_1'", "'0o17'", "'1__2'",
]
INTS = ["0", "1", "-1", "7", "-7", "3", "-3", "255", "(10**20)", "(2**64)", "-13", "100", "2", "-2", "36", "65"]
FLOATS = ["0.0", "-0.0", "1.5", "2.5", "-2.5", "3.14159", "1e20", "1.0e-5", "1e16", "123456.789",
          "Float::NAN", "Float::INFINITY", "-Float::INFINITY", "(0.1+0.2)", "1234.5", "0.5", "-1.75",
          "1e-10", "12.0", "1e100", "0.045", "2.675"]
REGEXES = ["/o/", "/(\\w)(\\w)/", "/(?<first>\\w+)\\s(?<second>\\w+)/", "/\\d+/", "/^/", "/\\s*/",
           "/[aeiou]/i", "/x*/", "/\\b/", "/(a)|(b)/", "/,/", "/\\s+/", "/(\\d)/", "/$/", "/./",
           "/[_-]/", "/(?i)WORLD/", "/l+/", "/\\A\\s+|\\s+\\z/"]
ARRAYS = ["[3, 1, 2]", "[]", "[1, [2, [3, [4]]]]", "['b', 'a', 'c']", "[1, 'a', :b, nil, 2.5]",
          "[[1, 2], [3, 4]]", "[1, 2, 3, 4, 5, 6, 7]", "[nil, false, 1]", "[1.5, 2.25, 3.0]",
          "[[1, :a], [2, :b], [1, :c]]", "%w[pear apple fig apple]", "[5, 3, 5, 1, 3]",
          "[[3, 'c'], [1, 'a']]", "[-2, 0, 2, -4]", "[0.1, 0.2, 0.3]", "[10, 20]", "[[1, 2], [3]]",
          "['a', nil, 'b', nil]", "[{ 'a' => 1 }, { 'a' => 2 }]", "(1..12).to_a"]
HASHES = ["{ a: 1, b: 2 }", "{ 'x' => 1, 'y' => nil }", "{}", "{ 1 => 'one', 2 => 'two' }",
          "{ 'a' => { 'b' => { 'c' => 42 } } }", "{ 'k' => [1, 2], 'j' => [3] }",
          "{ b: 2, a: 1, c: 3 }", "{ 'port' => 80, 'host' => 'web', 'ssl' => true }",
          "{ nil => 1, false => 2, 3.5 => :x }", "{ 'list' => [{ 'n' => 1 }] }"]
SYMS = [":a", ":foo_bar", ":\"with space\"", ":+", ":[]", ":a?", ":b!", ":A", ":\"9x\"", ":x="]
RANGES = ["(1..10)", "(1...10)", "('a'..'e')", "(1..)", "(-5..-1)", "(1.0..2.0)", "(0..0)", "(3..1)",
          "('aa'..'ad')", "(..5)", "(1..10).step(3)", "('A'..'z')"]

INT_BLOCKS = ["{ |x| x * 2 }", "{ |x| x.even? }", "{ |x| x % 3 }", "{ |x| -x }", "{ |x| x.to_s }",
              "{ |x| x > 2 }", "{ |x| [x, x] }", "{ |x| x.nil? }", "{ |x| x.to_s.size }"]
ANY_BLOCKS = ["{ |x| x.to_s }", "{ |x| x.inspect }", "{ |x| x.nil? }", "{ |x| x.class.to_s }",
              "{ |x| x.to_s.size }", "{ |x| !x }", "{ |x| x.is_a?(Integer) }", "{ |x| x.to_s.upcase }"]
PAIR_BLOCKS = ["{ |k, v| v }", "{ |k, v| k.to_s }", "{ |k, v| [k.to_s, v] }", "{ |k, v| v.nil? }",
               "{ |k, v| v.is_a?(Integer) }", "{ |k, v| [v, k] }", "{ |k, v| k.to_s.size }",
               "{ |(k, v)| v }", "{ |pair| pair }", "{ |k, v| v.to_s }"]
STR_BLOCKS = ["{ |m| m.upcase }", "{ |m| m * 2 }", "{ |m| $1.to_s }", "{ |m| $~[0].reverse }",
              "{ |m| m.size.to_s }", "{ |m| '' }", "{ |m| m.inspect }", "{ |m| \"<#{m}>\" }"]
STR2_BLOCKS = ["{ |s| s.upcase }", "{ |s| s.size }", "{ |s| s.reverse }", "{ |s| s.chomp }",
               "{ |s| s }", "{ |s| s.strip.empty? }"]


L = [
    ['{ "o" => "0", "l" => "1" }', '{}', '{ "a" => 1 }', 'Hash.new("?")'],
    ["'*'", "'ab'", "' '"],
    ["'.'", "'-='"],
    ['0', '1', '2', '"first"'],
    [':+', ':*', '0, :+', "'', :+", '{ |s, x| s.to_s + x.to_s }'],
    ["','", '2', "''", '0'],
    ["'-'", '', "', '"],
    ['1', "'a'", 'nil'],
    ['1', '3', "'a'"],
    ["'a'", ':a', "'list'", '1'],
    ["'b'", '0', ':x'],
    [':a', "'x'", '1'],
    ['1', 'nil', "'one'"],
    [':a', "'x'", '1', "'new'"],
    [':a', "'x'", ':zz', '1'],
    [':zz', "'nope'"],
    [':zz', "'nope'"],
    [':a', "'x'", '1'],
    [':a', "'x'", '1'],
    ['1', 'nil', "'one'", '2'],
    [':a', "'x'", '1'],
    [':a', "'x'", '1'],
    [':a', "'x'", 'nil'],
    ['3', "'c'", "'bb'", '1.5', '10', "'ab'"],
    ['3', "'c'", "'bb'", '1.5', '10', "'ab'", '2..3'],
    ['3', "'c'", "'bb'", '1.5', '10', '-3'],
]


def pick(r, xs):
    return xs[r.randrange(len(xs))]


def s(r):
    return pick(r, STRS)


def i(r):
    return pick(r, INTS)


def small(r):
    return pick(r, ["0", "1", "2", "3", "-1", "-2", "5", "10", "-10", "100"])


def f(r):
    return pick(r, FLOATS)


def num(r):
    return f(r) if r.random() < 0.5 else i(r)


def rx(r):
    return pick(r, REGEXES)


def arr(r):
    return pick(r, ARRAYS)


def h(r):
    return pick(r, HASHES)


def short(r):
    return pick(r, ["'a'", "'l'", "'o'", "'lo'", "','", "' '", "''", "'-_'", "'a-z'", "'^a-z'",
                    "'aeiou'", "'x'", "'\\\\'", "'.'", "'_'", "'ab'", "'A-Z'", "'0-9'", "'l-o'"])


def repl(r):
    return pick(r, ["'X'", "'\\\\1'", "'<\\\\0>'", "'\\\\k<first>'", "'[\\\\&]'", "\"\\\\\\\\\"",
                    "'\\\\2\\\\1'", "''", "'$1'", "'\\\\\\''", "'\\\\`'", "'#'"])


def fmt(r):
    flags = pick(r, ["", "-", "+", " ", "0", "#", "-+", "0+"])
    width = pick(r, ["", "5", "10", "1", "*"])
    prec = pick(r, ["", ".2", ".0", ".5", ".10"])
    conv = pick(r, ["d", "i", "f", "s", "x", "X", "o", "b", "e", "E", "g", "G", "p", "c", "u", "a"])
    spec = "%" + flags + width + prec + conv
    args = []
    if width == "*":
        args.append(small(r))
    if conv in "dixXobuc":
        args.append(pick(r, [i(r), f(r), s(r)]) if r.random() < 0.2 else i(r))
    elif conv in "feEgGa":
        args.append(num(r))
    else:
        args.append(pick(r, [s(r), i(r), f(r), arr(r), h(r), "nil", ":sym"]))
    text = pick(r, ["", "x=", "[", "a b "]) + spec + pick(r, ["", "]", " end", "|"])
    return f"format('{text}', {', '.join(args)})"


def string_call(r):
    rcv = s(r)
    m = r.randrange(60)
    opts = [
        lambda: f"{rcv}.gsub({rx(r)}, {repl(r)})",
        lambda: f"{rcv}.gsub({rx(r)}) {pick(r, STR_BLOCKS)}",
        lambda: f"{rcv}.gsub({rx(r)}, {pick(r, L[0])})",
        lambda: f"{rcv}.sub({rx(r)}, {repl(r)})",
        lambda: f"{rcv}.sub({short(r)}, {repl(r)})",
        lambda: f"{rcv}.gsub({short(r)}, {repl(r)})",
        lambda: f"{rcv}.sub({rx(r)}) {pick(r, STR_BLOCKS)}",
        lambda: f"{rcv}.scan({rx(r)})",
        lambda: f"{rcv}.split({pick(r, [rx(r), short(r), 'nil'])}, {small(r)})",
        lambda: f"{rcv}.split({pick(r, [rx(r), short(r)])})",
        lambda: f"{rcv}.tr({short(r)}, {short(r)})",
        lambda: f"{rcv}.tr_s({short(r)}, {short(r)})",
        lambda: f"{rcv}.delete({short(r)})",
        lambda: f"{rcv}.squeeze({pick(r, ['', short(r)])})",
        lambda: f"{rcv}.count({short(r)})",
        lambda: fmt(r),
        lambda: f"{rcv}.center({small(r)}, {pick(r, L[1])})",
        lambda: f"{rcv}.ljust({small(r)}, {pick(r, L[2])})",
        lambda: f"{rcv}.rjust({small(r)})",
        lambda: f"{rcv}.start_with?({pick(r, [short(r), rx(r)])})",
        lambda: f"{rcv}.end_with?({short(r)})",
        lambda: f"{rcv}.casecmp?({s(r)})",
        lambda: f"{rcv}.casecmp({s(r)})",
        lambda: f"{rcv}.each_line.to_a",
        lambda: f"{rcv}.each_line({pick(r, [short(r), 'chomp: true'])}).to_a",
        lambda: f"{rcv}.lines",
        lambda: f"[{rcv}.chomp, {rcv}.chop, {rcv}.strip, {rcv}.lstrip, {rcv}.rstrip]",
        lambda: f"{rcv}.chomp({short(r)})",
        lambda: f"[{rcv}.upcase, {rcv}.downcase, {rcv}.capitalize, {rcv}.swapcase]",
        lambda: f"[{rcv}.succ, {rcv}.next.next]",
        lambda: f"[{rcv}.to_i, {rcv}.to_f, {rcv}.to_r, {rcv}.to_c, {rcv}.to_sym]",
        lambda: f"{rcv}.to_i({pick(r, ['2', '8', '16', '36', '10', '1', '37'])})",
        lambda: f"Integer({rcv})",
        lambda: f"Float({rcv})",
        lambda: f"Integer({rcv}, exception: false)",
        lambda: f"Integer({rcv}, {pick(r, ['2', '8', '16', '36'])})",
        lambda: f"{rcv}[{small(r)}, {small(r)}]",
        lambda: f"{rcv}[{small(r)}..{small(r)}]",
        lambda: f"{rcv}[{rx(r)}, {pick(r, L[3])}]",
        lambda: f"{rcv}.index({pick(r, [short(r), rx(r)])}, {small(r)})",
        lambda: f"{rcv}.rindex({pick(r, [short(r), rx(r)])})",
        lambda: f"{rcv}.partition({pick(r, [short(r), rx(r)])})",
        lambda: f"{rcv}.rpartition({pick(r, [short(r), rx(r)])})",
        lambda: f"{rcv}.match({rx(r)})",
        lambda: f"{rcv}.match({rx(r)})&.captures",
        lambda: f"({rcv} =~ {rx(r)}; [$~ && $~.pre_match, $~ && $~.post_match, $1])",
        lambda: f"{rcv}.each_char.each_slice(3).map(&:join)",
        lambda: f"{rcv}.bytes.sum",
        lambda: f"{rcv}.unpack('C*').first(3)",
        lambda: f"{rcv} * {small(r)}",
        lambda: f"{rcv} % {pick(r, [arr(r), s(r), i(r)])}",
        lambda: f"{rcv}.insert({small(r)}, 'XY')",
        lambda: f"{rcv}.slice({small(r)})",
        lambda: f"{rcv}.delete_prefix({short(r)}).delete_suffix({short(r)})",
        lambda: f"{rcv}.squeeze.tr('a-y', 'b-z')",
        lambda: f"{rcv}.each_char.with_index.select {{ |c, i| i.even? }}.map(&:first).join",
        lambda: f"{rcv}.ord",
        lambda: f"[{rcv}.hash == {rcv}.dup.hash, {rcv}.frozen?, {rcv}.dup.frozen?]",
        lambda: f"{rcv}.encoding.to_s",
        lambda: f"[{rcv}.upcase(:ascii), {rcv}.unicode_normalize(:nfd).size, {rcv}.ascii_only?, {rcv}.valid_encoding?]",
    ]
    return opts[m % len(opts)]()


def num_call(r):
    opts = [
        lambda: f"{num(r)}.divmod({num(r)})",
        lambda: f"{num(r)}.modulo({num(r)})",
        lambda: f"{num(r)}.remainder({num(r)})",
        lambda: f"{num(r)}.fdiv({num(r)})",
        lambda: f"{num(r)} / {num(r)}",
        lambda: f"{num(r)} ** {pick(r, ['2', '-1', '0.5', '3', '-2', '100'])}",
        lambda: f"{f(r)}.round({pick(r, ['', '1', '2', '-1', '-2', '0'])})",
        lambda: f"{f(r)}.round(half: {pick(r, [':even', ':up', ':down'])})",
        lambda: f"{f(r)}.round({pick(r, ['1', '2'])}, half: {pick(r, [':even', ':up', ':down'])})",
        lambda: f"{i(r)}.round({pick(r, ['-1', '-2', '1'])}, half: {pick(r, [':even', ':up', ':down'])})",
        lambda: f"{num(r)}.floor({pick(r, ['', '1', '-1', '2'])})",
        lambda: f"{num(r)}.ceil({pick(r, ['', '1', '-1', '2'])})",
        lambda: f"{num(r)}.truncate({pick(r, ['', '1', '-1'])})",
        lambda: f"{i(r)}.to_s({pick(r, ['2', '8', '16', '36', '1'])})",
        lambda: f"[{f(r)}.to_s, {f(r)}.inspect, {f(r)}.to_i]",
        lambda: f"{f(r)}.to_r",
        lambda: f"{f(r)}.rationalize(Rational(1, 100))",
        lambda: f"Rational({i(r)}, {i(r)})",
        lambda: f"[{num(r)}.abs, {num(r)}.zero?, {num(r)}.positive?, {num(r)}.negative?]",
        lambda: f"{num(r)} <=> {num(r)}",
        lambda: f"[{num(r)} == {num(r)}, {num(r)}.eql?({num(r)}), {num(r)}.equal?({num(r)})]",
        lambda: f"{i(r)}.digits",
        lambda: f"{i(r)}.pow({small(r)}, {pick(r, ['7', '13', '1000'])})",
        lambda: f"[{i(r)}.bit_length, {i(r)} & {i(r)}, {i(r)} | {i(r)}, {i(r)} ^ {i(r)}, ~{i(r)}, {i(r)} << {small(r)}, {i(r)} >> {small(r)}]",
        lambda: f"{num(r)}.clamp({small(r)}, {pick(r, ['10', '100', '0'])})",
        lambda: f"{num(r)}.step({num(r)}, {pick(r, ['1', '2', '0.5', '-1'])}).first(4)",
        lambda: f"[{f(r)}.nan?, {f(r)}.infinite?, {f(r)}.finite?]",
        lambda: f"{num(r)}.coerce({num(r)})",
        lambda: f"Integer.sqrt({pick(r, ['0', '1', '24', '25', '10**20'])})",
        lambda: f"Math.sqrt({num(r)})",
        lambda: f"[Math.log({num(r)}), Math.log2({pick(r, ['8', '1024'])}), Math.log10(1000)]",
        lambda: f"{num(r)}.to_s.rjust(8, '0')",
        lambda: f"[{i(r)}.ceil(-1), {i(r)}.floor(-1), {i(r)}.gcd({i(r)}), {i(r)}.lcm({small(r)})]",
        lambda: f"{num(r)}.between?({small(r)}, 10)",
        lambda: f"{i(r)}.chr",
        lambda: f"{num(r)}.to_i.succ.pred.times.first(3)",
        lambda: f"{num(r)}.integer?",
        lambda: f"{f(r)}.next_float > {f(r)}",
        lambda: f"{i(r)}.upto({small(r)}).to_a",
        lambda: f"{i(r)}.downto({small(r)}).to_a",
    ]
    return pick(r, opts)()


def array_call(r):
    a = arr(r)
    opts = [
        lambda: f"{a}.flatten({pick(r, ['', '1', '0', '-1', '2'])})",
        lambda: f"{a}.product({arr(r)})",
        lambda: f"{a}.combination({small(r)}).to_a",
        lambda: f"{a}.permutation({pick(r, ['0', '1', '2'])}).first(5)",
        lambda: f"{a}.each_slice({pick(r, ['1', '2', '3'])}).to_a",
        lambda: f"{a}.each_cons({pick(r, ['1', '2', '3'])}).to_a",
        lambda: f"{a}.zip({arr(r)}, {arr(r)})",
        lambda: f"{a}.transpose",
        lambda: f"{a}.rotate({small(r)})",
        lambda: f"{a}.group_by {pick(r, ANY_BLOCKS)}",
        lambda: f"{a}.partition {pick(r, ANY_BLOCKS)}",
        lambda: f"{a}.chunk_while {{ |x, y| x == y }}.to_a",
        lambda: f"{a}.slice_when {{ |x, y| x.to_s > y.to_s }}.to_a",
        lambda: f"{a}.each_with_object([]) {{ |x, acc| acc.unshift(x) }}",
        lambda: f"{a}.each_with_object({{}}) {{ |x, acc| acc[x.to_s] = x }}",
        lambda: f"{a}.inject({pick(r, L[4])})",
        lambda: f"{a}.reduce(1) {{ |s, x| s * (x.is_a?(Numeric) ? x : 1) }}",
        lambda: f"{a}.sum",
        lambda: f"{a}.sum(0.0)",
        lambda: f"{a}.minmax",
        lambda: f"[{a}.min, {a}.max, {a}.min(2), {a}.max(2)]",
        lambda: f"{a}.sort_by {pick(r, ANY_BLOCKS)}",
        lambda: f"{a}.sort",
        lambda: f"{a}.sort {{ |x, y| y <=> x }}",
        lambda: f"{a}.uniq {pick(r, ANY_BLOCKS)}",
        lambda: f"{a}.dig({small(r)}, {small(r)})",
        lambda: f"{a}.compact",
        lambda: f"(x = {a}.dup; x.insert({small(r)}, :i); x)",
        lambda: f"(x = {a}.dup; x.fill({pick(r, [':z', '0'])}, {small(r)}); x)",
        lambda: f"(x = {a}.dup; x.fill({pick(r, [':z', '0'])}, {small(r)}, {small(r)}); x)",
        lambda: f"{a}[{small(r)}, {small(r)}]",
        lambda: f"{a}[{small(r)}..{small(r)}]",
        lambda: f"{a}[{small(r)}...]",
        lambda: f"{a}.values_at({small(r)}, {small(r)}, {small(r)}..{small(r)})",
        lambda: f"{a} * {pick(r, L[5])}",
        lambda: f"{a}.join({pick(r, L[6])})",
        lambda: f"{a} - {arr(r)}",
        lambda: f"{a} & {arr(r)}",
        lambda: f"{a} | {arr(r)}",
        lambda: f"{a} <=> {arr(r)}",
        lambda: f"{a}.first({small(r)})",
        lambda: f"{a}.last({small(r)})",
        lambda: f"{a}.take_while {pick(r, ANY_BLOCKS)}",
        lambda: f"{a}.drop_while {pick(r, ANY_BLOCKS)}",
        lambda: f"{a}.each_with_index.map {{ |x, i| [i, x] }}",
        lambda: f"{a}.map.with_index(1) {{ |x, i| \"#{{i}}:#{{x}}\" }}",
        lambda: f"{a}.find_index {pick(r, ANY_BLOCKS)}",
        lambda: f"{a}.tally",
        lambda: f"{a}.filter_map {pick(r, ANY_BLOCKS)}",
        lambda: f"{a}.flat_map {{ |x| [x, x] }}",
        lambda: f"{a}.count {pick(r, ANY_BLOCKS)}",
        lambda: f"{a}.cycle.first({small(r)})",
        lambda: f"{a}.to_h {{ |x| [x.to_s, x] }}",
        lambda: f"{a}.to_h",
        lambda: f"{a}.each_entry.to_a",
        lambda: f"{a}.slice({small(r)}, {small(r)})",
        lambda: f"(x = {a}.dup; [x.delete_at({small(r)}), x])",
        lambda: f"(x = {a}.dup; [x.slice!({small(r)}, 2), x])",
        lambda: f"(x = {a}.dup; x[{small(r)}, {small(r)}] = [:r, :s]; x)",
        lambda: f"(x = {a}.dup; x[{pick(r, ['5', '8', '-1'])}] = :w; x)",
        lambda: f"{a}.inspect",
        lambda: f"{a}.to_s",
        lambda: f"{a}.pack('U*') rescue $!.class",
        lambda: f"{a}.any?({pick(r, ['Integer', 'String', 'nil', '1..3', '/a/'])})",
        lambda: f"[{a}.all?({pick(r, ['Integer', 'String', 'nil', '1..3'])}), {a}.none?, {a}.one?]",
        lambda: f"{a}.include?({pick(r, L[7])})",
        lambda: f"{a}.bsearch {{ |x| x.to_s >= '2' }}",
        lambda: f"{a}.sum {{ |x| x.to_s.size }}",
        lambda: f"{a}.max_by {pick(r, ANY_BLOCKS)}",
        lambda: f"{a}.min_by({small(r)}) {pick(r, ANY_BLOCKS)}",
        lambda: f"{a}.each_slice(2).map(&:sum)",
        lambda: f"{a}.zip({a}.rotate).to_h",
        lambda: f"{a}.sort.reverse.uniq.first(2)",
        lambda: f"{a}.difference({arr(r)}).union({arr(r)})",
        lambda: f"{a}.intersect?({arr(r)})",
        lambda: f"{a}.step rescue $!.class",
        lambda: f"{a}.assoc({pick(r, L[8])})",
        lambda: f"{a}.hash == {a}.dup.hash",
        lambda: f"Array({pick(r, [a, h(r), 'nil', s(r), RANGES[0]])})",
        lambda: f"Array.new({small(r)}) {{ |i| i * i }}",
        lambda: f"{a}.frozen? || {a}.freeze.frozen?",
        lambda: f"{a}.freeze << 1",
    ]
    return pick(r, opts)()


def hash_call(r):
    x = h(r)
    opts = [
        lambda: f"{x}.merge({h(r)}) {{ |k, a, b| [a, b] }}",
        lambda: f"{x}.merge({h(r)}, {h(r)})",
        lambda: f"(y = {x}.dup; y.update({h(r)}); y)",
        lambda: f"{x}.transform_keys(&:to_s)",
        lambda: f"{x}.transform_keys({{ a: :z, 'x' => 'w' }})",
        lambda: f"{x}.transform_values {pick(r, ANY_BLOCKS)}",
        lambda: f"{x}.filter_map {pick(r, PAIR_BLOCKS)}",
        lambda: f"{x}.select {pick(r, PAIR_BLOCKS)}",
        lambda: f"{x}.reject {pick(r, PAIR_BLOCKS)}",
        lambda: f"{x}.find {pick(r, PAIR_BLOCKS)}",
        lambda: f"{x}.min_by {pick(r, PAIR_BLOCKS)}",
        lambda: f"{x}.max_by {pick(r, PAIR_BLOCKS)}",
        lambda: f"{x}.sort_by {pick(r, PAIR_BLOCKS)}",
        lambda: f"{x}.group_by {pick(r, PAIR_BLOCKS)}",
        lambda: f"{x}.partition {pick(r, PAIR_BLOCKS)}",
        lambda: f"{x}.to_h {{ |k, v| [v, k] }}",
        lambda: f"{x}.map {pick(r, PAIR_BLOCKS)}",
        lambda: f"{x}.flat_map {pick(r, PAIR_BLOCKS)}",
        lambda: f"{x}.each_with_object([]) {{ |(k, v), acc| acc << k }}",
        lambda: f"{x}.each_with_index.map {{ |(k, v), i| [i, k, v] }}",
        lambda: f"{x}.each_with_index.to_a",
        lambda: f"{x}.sum([])",
        lambda: f"{x}.invert",
        lambda: f"{x}.dig({pick(r, L[9])}, {pick(r, L[10])})",
        lambda: f"{x}.any? {pick(r, PAIR_BLOCKS)}",
        lambda: f"{x}.all? {pick(r, PAIR_BLOCKS)}",
        lambda: f"{x}.none? {pick(r, PAIR_BLOCKS)}",
        lambda: f"{x}.count {pick(r, PAIR_BLOCKS)}",
        lambda: f"{x}.any?([{pick(r, L[11])}, {pick(r, L[12])}])",
        lambda: f"(y = {x}.dup; y.delete(y.keys.first); y[{pick(r, L[13])}] = 0; y)",
        lambda: f"(y = {x}.dup; k = y.keys.first; v = y.delete(k); y[k] = v; y.keys)",
        lambda: f"(y = {{}}.compare_by_identity; y['a'] = 1; y['a'.dup] = 2; [y.size, y.compare_by_identity?])",
        lambda: f"(d = Hash.new {{ |hh, k| hh[k] = k.to_s * 2 }}; d[:ab]; d[3]; d)",
        lambda: f"(d = Hash.new(0); {arr(r)}.each {{ |e| d[e] += 1 }}; d)",
        lambda: f"(d = Hash.new([]); d[:a] << 1; [d, d[:b], d.default])",
        lambda: f"{x}.fetch({pick(r, L[14])})",
        lambda: f"{x}.fetch({pick(r, L[15])}, 'dflt')",
        lambda: f"{x}.fetch({pick(r, L[16])}) {{ |k| k.to_s * 2 }}",
        lambda: f"{x}.fetch_values({pick(r, L[17])})",
        lambda: f"{x}.values_at({pick(r, L[18])}, :nope)",
        lambda: f"{x}.key({pick(r, L[19])})",
        lambda: f"{x}.slice({pick(r, L[20])}, :b)",
        lambda: f"{x}.except({pick(r, L[21])})",
        lambda: f"{x}.filter_map {{ |k, v| k if v }}",
        lambda: f"{x}.sort_by {{ |k, v| k.to_s }}.to_h",
        lambda: f"{x}.sort",
        lambda: f"{x}.min_by(2) {{ |k, v| v.to_s }}",
        lambda: f"{x}.sum {{ |k, v| v.to_s.size }}",
        lambda: f"{x}.to_a.transpose",
        lambda: f"{x}.inspect",
        lambda: f"{x}.to_s",
        lambda: f"{x}.compact",
        lambda: f"{x}.key?({pick(r, L[22])})",
        lambda: f"{x}.each_pair.to_a",
        lambda: f"{x}.reduce(0) {{ |s, (k, v)| s + k.to_s.size }}",
        lambda: f"{x}.dig(:a) rescue $!.class",
        lambda: f"{x} == {h(r)}",
        lambda: f"{x}.hash == {x}.dup.hash",
        lambda: f"{x}.find_all {{ |k, v| v }}",
        lambda: f"{x}.to_a.flatten(1)",
        lambda: f"{x}.default = 5",
        lambda: f"{x}.filter_map {{ |kv| kv }}",
        lambda: f"{x}.each_slice(2).to_a",
        lambda: f"{x}.zip([1, 2])",
        lambda: f"{x}.first({small(r)})",
        lambda: f"{x}.entries",
        lambda: f"{x}.group_by {{ |k, v| v.class }}.transform_values(&:size)",
        lambda: f"{x}.freeze.merge!(z: 1)",
        lambda: f"{x}.deconstruct_keys(nil) rescue $!.class",
        lambda: f"Hash[{arr(r)}]",
        lambda: f"{x}.to_a.to_h {{ |k, v| [k.to_s, v] }}",
        lambda: f"{x}.sum([]) {{ |k, v| [k] }}",
        lambda: f"{x}.max_by(2) {{ |k, v| k.to_s }}",
        lambda: f"{x}.each_entry.to_a",
        lambda: f"{x}.minmax_by {{ |k, v| v.to_s }}",
        lambda: f"{x}.length",
        lambda: f"{x}.delete_if {{ |k, v| v.nil? }}",
        lambda: f"{x}.keep_if {{ |k, v| v }}",
        lambda: f"{x}.select.with_index {{ |(k, v), i| i > 0 }}",
        lambda: f"{x}.map.with_index {{ |(k, v), i| [k, i] }}",
    ]
    return pick(r, opts)()


def range_call(r):
    g = pick(r, RANGES)
    opts = [
        lambda: f"{g}.step({pick(r, ['2', '3', '0.5'])}).to_a",
        lambda: f"{g}.each_slice({pick(r, ['2', '3'])}).to_a",
        lambda: f"{g}.include?({pick(r, L[23])})",
        lambda: f"{g}.cover?({pick(r, L[24])})",
        lambda: f"{g} === {pick(r, L[25])}",
        lambda: f"{g}.to_a",
        lambda: f"{g}.first({small(r)})",
        lambda: f"[{g}.first, {g}.min, {g}.max]",
        lambda: f"{g}.sum",
        lambda: f"{g}.size",
        lambda: f"{g}.count",
        lambda: f"{g}.inspect",
        lambda: f"{g}.to_s",
        lambda: f"{g}.map {{ |x| x.succ }}.first(3)",
        lambda: f"{g}.minmax",
        lambda: f"{g}.last({small(r)})",
        lambda: f"{g}.reverse_each.first(2)",
        lambda: f"{g}.each_cons(2).first(2)",
        lambda: f"{g}.select(&:even?)",
        lambda: f"{g}.%(3).to_a",
        lambda: f"{g}.exclude_end?",
        lambda: f"[{g}.begin, {g}.end]",
        lambda: f"{g} == {pick(r, RANGES)}",
        lambda: f"{g}.hash == {g}.dup.hash",
        lambda: f"{g}.entries.length",
        lambda: f"{g}.lazy.map {{ |x| x * 2 }}.first(3)",
        lambda: f"{g}.tally",
        lambda: f"{g}.step(2).map {{ |x| x }}",
    ]
    return pick(r, opts)()


def sym_call(r):
    y = pick(r, SYMS)
    opts = [
        lambda: f"[{y}.inspect, {y}.to_s, ({y}.to_proc.call('ab') rescue $!.class)]",
        lambda: f"[{y}.inspect, {y}.length, {y}.upcase, {y}.succ]",
        lambda: f"{y} <=> {pick(r, SYMS)}",
        lambda: f"[{y}, {pick(r, SYMS)}].sort",
        lambda: f"{{ {y} => 1, {pick(r, SYMS)} => 2 }}",
        lambda: f"{y}[0]",
        lambda: f"{y}.start_with?('a')",
        lambda: f"\"#{{{y}}}\"",
        lambda: f"{y}.to_proc",
        lambda: f"%i[a b].map(&{y})",
    ]
    return pick(r, opts)()


def inspect_call(r):
    vals = [s(r), i(r), f(r), arr(r), h(r), pick(r, SYMS), pick(r, RANGES), "nil", "true",
            "Object.new.class", "Struct.new(:a, :b).new(1, 'x')", "[1, [2, { a: [:b, 'c'] }]]",
            "{ 'a' => { b: nil } }", "'quote\"s'", "\"tab\\tnl\\n\\e\\u0001\"", "'#{x}'", "\"\\u00e9\"",
            "'\\\\'", "\"\\#{}\"", "1..2", "{ 1 => { 2 => [3.0] } }", "Comparable",
            "String", "Float::INFINITY", "-0.0", "1e20", "1.0e-5", "Rational(3, 6)", "Complex(1, 2)",
            "'%s'", "[nil, true, false]", ":\"foo-bar\"", ":\"@iv\"", ":\"$g\"", ":\"Const\"", ":\"a=\""]
    v = pick(r, vals)
    opts = [
        lambda: f"{v}.inspect",
        lambda: f"{v}.to_s",
        lambda: f"\"<#{{{v}}}>\"",
        lambda: f"[{v}].to_s",
        lambda: f"{{ k: {v} }}.to_s",
        lambda: f"String({v})",
        lambda: f"{v}.to_s.encoding.to_s",
        lambda: f"format('%s|%p', {v}, {v})",
    ]
    return pick(r, opts)()


def json_yaml_call(r):
    v = pick(r, [h(r), arr(r), s(r), i(r), f(r), "nil", "{ 'a' => [1, 2.5, nil, true], 'b' => { 'c' => 'd' } }",
                 "{ a: :sym }", "[1, [2, []], {}]", "'multi\\nline'", "'yes'", "'123'", "'~'", "':colon'",
                 "'- dash'", "'null'", "'0o17'", "'1_000'", "'@at'", "'a: b'", "'#hash'", "' lead'", "''",
                 "{ 'k' => '' }", "'true'", "'1.0'", "'2021-01-01'", "Float::INFINITY", "'é'"])
    texts = ["'{\"a\": [1, 2.0, null], \"b\": {\"c\": \"d\"}}'", "'[]'", "'[1e3, -0, 0.5]'",
             "'{\"a\":1,}'", "'nul'", "'\"\\\\u00e9\\\\n\"'", "'{\"a\": 1, \"a\": 2}'", "'  [ 1 ]  '",
             "'12345678901234567890'", "'1.5E+2'", "'{\"x\": true}'"]
    ytexts = ["\"---\\na: 1\\nb: [x, 'y', 2.5]\\n\"", "\"- a\\n- b: c\\n  d: e\\n\"", "\"a: yes\\nb: no\\nc: ~\\nd: 0o17\\ne: 010\\nf: 1_000\\n\"",
              "\"key: |\\n  line1\\n  line2\\n\"", "\"key: >\\n  folded\\n  text\\n\"", "\"a: &x 1\\nb: *x\\n\"",
              "\"a: 2021-01-01\\n\"", "\"a: :sym\\n\"", "\"a: 1.0\\nb: .5\\nc: 1e3\\nd: .inf\\ne: -.Inf\\n\"",
              "\"a: 'it''s'\\nb: \\\"esc\\\\t\\\"\\n\"", "\"{a: 1, b: [2, 3]}\\n\"", "\"- - 1\\n  - 2\\n- []\\n\"",
              "\"a:\\n  - x\\n  -\\n    y: 1\\n\"", "\"a: 12:30:00\\n\"", "\"a: 0x1F\\nb: +1\\nc: -0.0\\n\"",
              "\"? complex\\n: value\\n\"", "\"a: b: c\\n\"", "\"a: [1, 2\\n\"", "\"a: 'x'\\na: 'y'\\n\"",
              "\"null: ~\\ntrue: false\\n\"", "\"1: one\\n2.5: two\\n\""]
    opts = [
        lambda: f"(require 'json'; JSON.generate({v}))",
        lambda: f"(require 'json'; JSON.pretty_generate({v}))",
        lambda: f"(require 'json'; {v}.to_json)",
        lambda: f"(require 'json'; JSON.parse({pick(r, texts)}))",
        lambda: f"(require 'json'; JSON.parse({pick(r, texts)}, symbolize_names: true))",
        lambda: f"(require 'json'; JSON.dump({v}))",
        lambda: f"(require 'yaml'; YAML.dump({v}))",
        lambda: f"(require 'yaml'; {v}.to_yaml)",
        lambda: f"(require 'yaml'; YAML.load({pick(r, ytexts)}))",
        lambda: f"(require 'yaml'; YAML.safe_load({pick(r, ytexts)}))",
        lambda: f"(require 'yaml'; YAML.load(YAML.dump({v})) == {v})",
    ]
    return pick(r, opts)()


PROGRAMS = [
    # exceptions
    """class MyError < StandardError
  def initialize(msg = 'my default')
    super
  end
end
r = []
begin
  raise MyError
rescue => e
  r << [e.class, e.message, e.is_a?(StandardError)]
end
begin
  raise MyError, 'custom'
rescue MyError => e
  r << e.message
end
r""",
    """tries = 0
begin
  tries += 1
  raise ArgumentError, "try #{tries}" if tries < 3
  :done
rescue ArgumentError
  retry
ensure
  @ens = tries
end
[tries, @ens]""",
    """def f(x)
  return x * 2 if x > 1
  raise TypeError, "bad #{x.inspect}"
rescue TypeError => e
  "rescued: #{e.message}"
else
  'else'
ensure
  'ensure ignored'
end
[f(1), f(5)]""",
    """[(Integer('zz') rescue $!.message), (Float('') rescue $!.message), (nil + 1 rescue $!.message), (1 + nil rescue $!.message), ('a' + 1 rescue $!.message), ([1] + nil rescue $!.message), ({}.fetch(:x) rescue $!.message), ([].fetch(3) rescue $!.message), (:sym.unknown rescue $!.class), (1 / 0 rescue $!.message), (Hash.new.fetch('k') rescue $!.class)]""",
    """e = RuntimeError.new('boom')
[e.message, e.inspect, e.full_message rescue nil, (raise 'plain' rescue [$!.class, $!.message]), StandardError.new.message, KeyError.new('k').message]""",
    """class ValidationError < StandardError
  attr_reader :field
  def initialize(field, msg = nil)
    @field = field
    super(msg || "#{field} is invalid")
  end
end
begin
  raise ValidationError.new(:port)
rescue StandardError => e
  [e.class.name, e.message, e.field, e.class.ancestors.take(3)]
end""",
    """x = catch(:found) do
  [[1, 2], [3, 4]].each { |a| a.each { |v| throw :found, v * 10 if v == 3 } }
  :none
end
[x, catch { |tag| throw tag }, (throw :nope rescue $!.class)]""",
    """'abc'.frozen? ? 1 : ('abc'.freeze << 'd' rescue [$!.class, $!.message])""",
    """s = 'x'.freeze
[(s << 'y' rescue $!.class), (s.upcase! rescue $!.message), s.dup << 'z', (+s) << 'w', (-'q').frozen?]""",
    """A = Struct.new(:name, :port) do
  def url
    "http://#{name}:#{port}"
  end
end
a = A.new('web', 80)
[a, a.url, a.to_a, a.to_h, a == A.new('web', 80), a.members, A.new('x'), (A.new(1, 2, 3) rescue $!.message)]""",
    """P = Struct.new(:x, :y, keyword_init: true)
p1 = P.new(x: 1, y: 2)
[p1.inspect, p1.x, (p1[:y] = 5), p1.to_h, p1.dig(:x)]""",
    """class Version
  include Comparable
  attr_reader :parts
  def initialize(s)
    @parts = s.split('.').map(&:to_i)
  end
  def <=>(o)
    parts <=> o.parts
  end
  def to_s
    parts.join('.')
  end
end
vs = %w[1.10.0 1.2.3 1.2.10 0.9].map { |v| Version.new(v) }
[vs.sort.map(&:to_s), vs.max.to_s, Version.new('1.0') == Version.new('1.0'), Version.new('2.0').between?(vs.min, vs.max), Version.new('1.5').clamp(Version.new('1.6'), Version.new('2')).to_s]""",
    """require 'set'
s = Set.new([3, 1, 2, 3])
t = Set[2, 5]
[s, s.size, s.include?(2), s | t, s & t, s - t, s ^ t, s.subset?(Set[1, 2, 3, 4]), s.to_a.sort, s.map { |x| x * 2 }.class, s.inspect, s.add?(1), s.add?(9).size]""",
    """class Ghost
  def method_missing(name, *args, &blk)
    if name.to_s.start_with?('get_')
      "got #{name.to_s.sub('get_', '')} #{args.inspect}"
    else
      super
    end
  end
  def respond_to_missing?(name, include_private = false)
    name.to_s.start_with?('get_') || super
  end
end
g = Ghost.new
[g.get_x(1, 2), g.respond_to?(:get_y), g.respond_to?(:other), (g.other rescue $!.class), (g.other rescue $!.message[0, 28])]""",
    """class Builder
  %w[alpha beta].each_with_index do |n, i|
    define_method("#{n}_value") { |x = 1| "#{n}:#{x * (i + 1)}" }
  end
  define_method(:both) { |a, b: 2| [a, b] }
end
b = Builder.new
[b.alpha_value, b.beta_value(5), b.both(1), b.both(1, b: 3), Builder.instance_methods(false).sort, b.respond_to?(:alpha_value)]""",
    """o = Object.new
o.instance_variable_set(:@a, 1)
o.instance_variable_set('@b', [2])
[o.instance_variable_get(:@a), o.instance_variables, o.instance_variable_defined?(:@c), o.instance_variable_get(:@nope), (o.instance_variable_get('bad') rescue $!.class)]""",
    """class Calc
  def add(a, b) = a + b
  private def secret = 42
  protected def prot = 7
  def peek(o) = o.prot
end
c = Calc.new
[c.send(:add, 1, 2), c.public_send(:add, 3, 4), c.send(:secret), (c.public_send(:secret) rescue $!.class), (c.secret rescue $!.class), c.peek(Calc.new), c.respond_to?(:secret), c.respond_to?(:secret, true)]""",
    """def classify(x)
  case x
  when 0 then :zero
  when 1..9 then :digit
  when Integer then :int
  when /\\A\\d+\\z/ then :numeric_string
  when String, Symbol then :text
  when ->(v) { v.respond_to?(:each) } then :enumerable
  when nil then :nil
  else :other
  end
end
[0, 5, 50, '12', 'ab', :s, [1], { a: 1 }, nil, 1.5].map { |x| classify(x) }""",
    """name = 'web'
t = <<~EOS
  Host #{name}
    Port #{40 + 2}
  \\tdone
EOS
u = <<-'RAW'
    raw #{not}
    RAW
[t, u, <<~A + <<~B]
  first
A
  second
B""",
    """class Pt
  def initialize(x, y)
    @x, @y = x, y
  end
  def to_s
    "(#{@x}, #{@y})"
  end
end
pt = Pt.new(1, 2)
["at #{pt}", pt.to_s, "#{nil}|#{[1, nil]}|#{{ a: nil }}|#{:s}|#{1.0}|#{1e20}", pt.inspect.sub(/0x\\h+/, 'X')]""",
    """class Cfg
  attr_accessor :opts
  def initialize
    @opts = {}
  end
  def [](k) = @opts.fetch(k) { raise KeyError, "missing #{k}" }
  def []=(k, v)
    @opts[k] = v
  end
  def each(&block) = @opts.each(&block)
  include Enumerable
end
c = Cfg.new
c[:a] = 1
c['b'] = 2
[c[:a], (c[:z] rescue $!.message), c.map { |k, v| "#{k}=#{v}" }, c.to_a, c.sort_by { |k, v| -v }, c.include?([:a, 1]), c.min_by { |_, v| v }, c.first, c.each_slice(1).to_a, c.sum { |_, v| v }]""",
    """module Greet
  def self.included(base)
    base.extend(ClassMethods)
  end
  module ClassMethods
    def greeting = 'hi'
  end
  def greet = "#{self.class.greeting} #{name}"
end
class Person
  include Greet
  attr_reader :name
  def initialize(n) = @name = n
end
[Person.new('bo').greet, Person.include?(Greet), Person.ancestors.first(2), Person.greeting, Person.instance_method(:greet).owner]""",
    """x = [1, 2, 3].each_slice(2).with_index.map { |sl, i| sl.sum * i }
y = %w[a b c].each_with_index.to_h
z = [[1, 2], [3, 4]].map { |a, b| a * b }
w = { a: 1 }.map { |k, v| [k, v] }.to_h { |k, v| [v, k] }
[x, y, z, w, [[1, [2, 3]]].map { |a, (b, c)| a + b + c }]""",
    """def kw(a, b = 2, *rest, c:, d: 4, **opts, &blk)
  [a, b, rest, c, d, opts, blk&.call]
end
[kw(1, c: 3), kw(1, 2, 3, 4, c: 5, e: 6) { :blk }, (kw(1) rescue $!.message), (kw(c: 1) rescue $!.message), (kw(1, c: 1, **{ 'x' => 1 }) rescue $!.class)]""",
    """def opt(h = {}, x: 1) = [h, x]
def splat(*a, **k) = [a, k]
[opt, opt({ 'a' => 1 }), splat(1, a: 2), splat({ a: 1 }), splat(*[1, 2], **{}), ->(a, b = 2) { [a, b] }.(1), proc { |a, b| [a, b] }.call([1, 2]), lambda { |*a| a }.arity, proc { |a, b| }.arity, method(:opt).arity]""",
    """counter = Hash.new { |h, k| h[k] = [] }
%w[apple avocado banana blueberry cherry].each { |w| counter[w[0]] << w }
[counter, counter.keys, counter.default_proc.class, counter.fetch('z', :none), counter['z'], counter.keys.last]""",
    """r = []
[1, 2, 3, 4].each do |x|
  next if x == 2
  break if x == 4
  r << x
end
s = [1, 2, 3].map { |x| next 0 if x == 2; x }
t = [1, 2, 3].each { |x| break x * 100 if x == 2 }
u = (1..Float::INFINITY).lazy.map { |x| x * 2 }.select { |x| x % 3 == 0 }.first(3)
i = 0
i += 1 while i < 5
j = 10
j -= 3 until j < 0
[r, s, t, u, i, j, loop { break :out }]""",
    """a, (b, c), *d = 1, [2, 3], 4, 5
e, f = { k: 1 }.first
*g, h = [1]
k = l = 3
m, n = n, 1
[a, b, c, d, e, f, g, h, k, l, m, n]""",
    """x = nil
y = x&.length
z = x.to_a
v ||= 5
v &&= v + 1
w = [nil, 2].map { |q| q || 0 }
h = {}
h[:a] ||= []
h[:a] << 1
h[:b] = h.fetch(:b, 0) + 1
[y, z, v, w, h, defined?(foo), defined?(String), defined?(@iv), defined?(v)]""",
    """str = +''
str << 'a' << 'b'
str.concat('c', 'd')
str.prepend('>')
str2 = str.dup
str2[0] = '<'
str2[-1..] = 'END'
str3 = 'hello world'
str3[/o w/] = '0_W'
str3['ll'] = 'LL'
[str, str2, str3, str.replace('new'), str.clear, str.empty?]""",
    """require 'json'
data = { 'name' => 'x', 'list' => [1, 2.0, nil, true], 'nested' => { 'k' => [] }, 'emptyh' => {}, :sym => :val, 'u' => "é\\u0001\\n\\"/" }
[JSON.generate(data), JSON.pretty_generate(data), JSON.parse(JSON.generate(data)), data.to_json == JSON.generate(data)]""",
    """require 'yaml'
data = { 'name' => 'x', 'list' => [1, 2.0, nil, true, 'yes', '1', ''], 'nested' => { 'k' => [], 'm' => {} }, 'multi' => "a\\nb\\n", 'sym' => :s, 'colon' => 'a: b', 'f' => 1e20, 'neg' => -0.5 }
[YAML.dump(data), YAML.load(YAML.dump(data)) == data.merge('sym' => :s)]""",
    """ops = { add: ->(a, b) { a + b }, mul: :*.to_proc, neg: method(:Integer) }
[ops[:add].call(1, 2), ops[:add].(3, 4), ops[:add][5, 6], ops[:mul].call(3, 4), ops[:neg].call('12'), ops[:add].curry[1][2], (ops[:add].call(1) rescue $!.message), ops[:add].lambda?, proc {}.lambda?]""",
    """class Node
  attr_reader :children, :val
  def initialize(val, children = [])
    @val, @children = val, children
  end
  def each(&b)
    return enum_for(:each) unless b
    b.call(val)
    children.each { |c| c.each(&b) }
  end
  include Enumerable
end
t = Node.new(1, [Node.new(2, [Node.new(4)]), Node.new(3)])
[t.to_a, t.map { |v| v * 10 }, t.select(&:even?), t.each.next, t.sort.reverse, t.include?(4), t.each_slice(2).to_a, t.minmax]""",
    """e = [1, 2, 3].each
r = [e.next, e.next, e.next]
begin
  e.next
rescue StopIteration => ex
  r << ex.class
end
en = Enumerator.new do |y|
  y << 1
  y.yield 2, 3
  y << 4
end
[r, en.to_a, en.take(2), en.lazy.map { |x| x.inspect }.to_a, [4, 5].each_with_index.to_a, %w[a b].each.with_index(1).map { |s, i| s * i }]""",
    """h = { 'b' => 1, 'a' => 2 }
h2 = h.sort.to_h
h3 = h.sort_by { |_, v| -v }.to_h
h.each_pair { |k, v| h[k] = v * 10 }
[h, h2, h3, h.min_by { |_, v| v }, h.sum { |_, v| v }, h.to_a.flatten, h.map { |k, v| "#{k}=#{v}" }.join('&'), h.each_with_object({}) { |(k, v), a| a[v] = k }]""",
    """s = 'The quick brown fox'
[s.split.map(&:capitalize).join(' '), s.scan(/\\w+/).map(&:length), s.each_char.select { |c| 'aeiou'.include?(c) }.size, s.sub(/(?<adj>quick) (?<col>brown)/, '\\k<col> \\k<adj>'), s =~ /(?<word>b\\w+)/ ? $~[:word] : nil, s.tr('a-z', 'A-Z'), s.gsub(/o/, 'o' => '0'), s.squeeze('o'), s.index(/q/), s.sum]""",
    """x = 'hello'
y = x
y << ' world'
a = [1, 2]
b = a
b += [3]
h = { k: 'v' }
g = h.dup
g[:k] << '!'
[x, a, b, h, x.equal?(y), a.frozen?, :s.frozen?, 1.frozen?, nil.frozen?, 'lit'.frozen?]""",
    """def fib(n, memo = {})
  return n if n < 2
  memo[n] ||= fib(n - 1, memo) + fib(n - 2, memo)
end
[fib(90), 2**100, (2**100).to_s.size, -(2**70) / 3, (2**70) % -7, (2**64).digits.size, 10**20 / 10**19, Integer.sqrt(10**30), (3**50).bit_length, 12345678901234567890.to_s(36)]""",
    """[1.0.to_s, 1e20.to_s, 1e16.to_s, 1.0e-5.to_s, 0.0001.to_s, -0.0.to_s, (0.0/0).to_s, (1/0.0).to_s, 100.0.inspect, 1.23456789012345e+15.to_s, 9007199254740993.0.to_s, 1.1.round(20), 2.5.round(half: :even), 0.1 * 3, 1e2.to_i, 1.5e300 * 1e10, 3.0.floor(-1), 12.34.floor(1), -12.35.ceil(1), 1234.5678.round(-2), 1234.5678.round(2), 10.0.divmod(3), -7.5.divmod(2)]""",
    """require 'ostruct'
o = OpenStruct.new(a: 1, 'b' => 2)
o.c = 3
[o.a, o.b, o.c, o.d, o.to_h, o.respond_to?(:a), o[:a], o.dig(:a), o]""",
    """obj = Object.new
def obj.to_s = 'custom'
def obj.greet(name = 'you') = "hi #{name}"
[obj.greet, obj.singleton_methods.sort, "#{obj}", obj.respond_to?(:greet), obj.method(:greet).arity, obj.frozen?, obj.class]""",
    """module Util
  module_function
  def twice(x) = x * 2
  PI2 = 6.28
end
module Deep
  module Inner
    VAL = :inner
    def self.get = VAL
  end
end
[Util.twice(2), Util::PI2, Deep::Inner.get, Deep::Inner::VAL, Deep.const_get(:Inner)::VAL, Object.const_defined?(:Util), (Util::NOPE rescue $!.class), (Util::NOPE rescue $!.message), Deep.name, Deep::Inner.name]""",
    """class Base
  def template = "#{prefix}-#{body}"
  def prefix = 'base'
  def body = raise(NotImplementedError, "#{self.class} must implement body")
end
class Impl < Base
  def prefix = super + '!'
  def body = 'impl'
end
[Impl.new.template, (Base.new.template rescue [$!.class, $!.message]), Impl.superclass, Impl.ancestors.include?(Base), Impl.new.is_a?(Base), Impl < Base, Base <= Impl, Impl.instance_of?(Class)]""",
    """ary = [3, 1, 2]
ary.sort!
ary.map! { |x| x * 2 }
ary.select! { |x| x > 2 }
ary.reject!(&:zero?)
ary.concat([9, 9]).uniq!
ary.push(0).unshift(-1)
r = [ary.pop, ary.shift, ary]
ary.delete(9)
ary.clear if ary.empty?
[r, ary, ary.reverse!, ary.compact!, ary.flatten!, ary.uniq!, ary.sort_by! { |x| -x }, ary.keep_if(&:even?), ary.delete_if { false }]""",
    """x = 5
r = if x > 3 then 'big' elsif x > 1 then 'mid' else 'small' end
s = x.positive? && x.odd? ? :po : :other
t = unless x == 5 then 1 end
u = while false do end
v = (1..3).each_with_object([]) { |i, acc| acc << i if i.odd? }
w = x.then { |y| y + 1 }
z = x.tap { |y| y + 100 }
[r, s, t, u, v, w, z, __method__.inspect, ([1, 2] in [Integer, Integer]), (case [1, 2] in [a, b] then a + b end)]""",
    """cfg = { 'db' => { 'host' => 'x', 'port' => 5432 }, 'list' => [1, 2] }
case cfg
in { 'db' => { 'host' => String => host, 'port' => Integer => port } }
  r = [host, port]
end
res = case 5
      in Integer | Float => n if n > 3 then "big #{n}"
      in _ then 'other'
      end
[r, res, (case 1 in String then 1 end rescue $!.class), { a: 1 } in { a: }, ([1, [2, 3]] => [_, [_, c]]; c)]""",
    """def gen(*a, **kw, &b)
  yield(*a) if block_given?
end
[gen(1, 2) { |x, y| x + y }, gen { :none }, gen(1), [[1, 2], [3, 4]].each_with_object([]) { |(a, b), acc| acc << a * b }, [1, 2].each_slice(1).map { |(x)| x }, { a: 1 }.map { |pair| pair.class }, [[1, 2]].map { |x| x }, [[1, 2]].map { |x, | x }]""",
    """v = '3.7.1'
maj, min, pat = v.split('.').map(&:to_i)
parts = v.split('.', 2)
ver = Gem::Version.new(v) rescue nil
[maj, min, pat, parts, ver && ver.segments, ver && (ver <=> Gem::Version.new('3.10')), ver && ver.to_s, v.tr('.', '_'), v.count('.'), v.succ, ver && Gem::Version.new('1.0.0.pre') < Gem::Version.new('1.0.0')]""",
    """str = "key1=val1\\nkey2 = val2\\n# comment\\n\\nkey3=a=b\\n"
h = str.each_line.map(&:strip).reject { |l| l.empty? || l.start_with?('#') }.map { |l| l.split('=', 2).map(&:strip) }.to_h
[h, h.keys.map(&:to_sym), h.transform_values(&:upcase), h.to_a.last, h.sort_by { |k, _| k }.reverse.first, h.select { |k, v| v.include?('=') }]""",
]


def program(r):
    return pick(r, PROGRAMS)


GENS = [(string_call, 30), (num_call, 15), (array_call, 20), (hash_call, 18), (range_call, 6),
        (sym_call, 3), (inspect_call, 6), (json_yaml_call, 8), (program, 4)]


def generate(seed, count):
    r = random.Random(seed)
    total = sum(w for _, w in GENS)
    cases = []
    for n in range(count):
        x = r.randrange(total)
        for g, w in GENS:
            if x < w:
                break
            x -= w
        code = g(r)
        cases.append((f"{g.__name__}_{seed}_{n}", code))
    return cases


def method_of(code):
    """A rough label of the method a snippet exercises: the first `.name` after the receiver."""
    import re
    m = re.search(r"[\]\)\}'\"\w]\.([a-z_]+[?!]?)", code)
    if code.startswith("format("):
        return "format"
    if code.startswith("Integer(") or code.startswith("Float("):
        return code.split("(")[0]
    return m.group(1) if m else code[:20]


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__)
        sys.exit(2)
    seed, count = int(args[0]), int(args[1])
    out = f"/tmp/rubydiff-{seed}"
    show = 40
    if "--out" in args:
        out = args[args.index("--out") + 1]
    if "--show" in args:
        show = int(args[args.index("--show") + 1])
    os.makedirs(out, exist_ok=True)
    cases = generate(seed, count)
    # Deduplicate identical snippets.
    seen = set()
    uniq = []
    for name, code in cases:
        if code in seen:
            continue
        seen.add(code)
        uniq.append((name, code))
    path = os.path.join(out, "cases.txt")
    with open(path, "w") as fh:
        for name, code in uniq:
            fh.write(f"### {name}\n{code}\n")
    runner = os.path.join(ROOT, "scripts", "ruby-diff-run.rb")
    subprocess.run(["ruby", runner, path, os.path.join(out, "ruby.jsonl")], check=True)
    ex = os.path.join(ROOT, "target", "release", "examples", "eval_many")
    if "--ours" in args:
        ex = args[args.index("--ours") + 1]
    with open(os.path.join(out, "ours.jsonl"), "w") as fh:
        subprocess.run([ex, path], stdout=fh, check=True)
    ruby = {}
    for line in open(os.path.join(out, "ruby.jsonl")):
        d = json.loads(line)
        ruby[d["name"]] = d
    ours = {}
    for line in open(os.path.join(out, "ours.jsonl")):
        d = json.loads(line)
        ours[d["name"]] = d
    kinds = Counter()
    by_method = Counter()
    diffs = defaultdict(list)
    codes = dict(uniq)
    for name, code in uniq:
        a, b = ruby.get(name, {}), ours.get(name, {})
        if "timeout" in a:
            kinds["ruby_timeout"] += 1
            continue
        if "value" in a and b.get("value") == a["value"]:
            kinds["same"] += 1
            continue
        if "error" in a and b.get("error") == a["error"]:
            kinds["same"] += 1
            continue
        if "panic" in b:
            k = "panic"
        elif "unsupported" in b:
            k = "unsupported"
        elif "syntax" in b:
            k = "syntax"
        elif "value" in a and "value" in b:
            k = "value"
        elif "error" in a and "error" in b:
            k = "error_class" if a["error"]["class"] != b["error"]["class"] else "error_message"
        elif "error" in a:
            k = "ruby_raises_we_dont"
        else:
            k = "we_raise_ruby_doesnt"
        kinds[k] += 1
        by_method[method_of(code)] += 1
        diffs[k].append((name, code, a, b))
    print("kinds:", dict(kinds))
    print("methods:", by_method.most_common(40))
    with open(os.path.join(out, "diffs.txt"), "w") as fh:
        for k, items in diffs.items():
            for name, code, a, b in items:
                fh.write(f"=== {k} {name}\n{code}\n--- ruby: {json.dumps({x: y for x, y in a.items() if x != 'name'}, ensure_ascii=False)}\n--- ours: {json.dumps({x: y for x, y in b.items() if x != 'name'}, ensure_ascii=False)}\n")
    shown = 0
    for k, items in diffs.items():
        for name, code, a, b in items[: max(1, show // max(1, len(diffs)))]:
            print(f"=== {k} {name}\n{code}\n--- ruby: {a}\n--- ours: {b}")
            shown += 1
    print(f"diffs written to {out}/diffs.txt")


if __name__ == "__main__":
    main()
