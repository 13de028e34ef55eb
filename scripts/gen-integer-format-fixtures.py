#!/usr/bin/env python3
"""Regenerate crates/puppet-functions/tests/fixtures/integer_formats.jsonl from real Puppet 7.23.

Ruby's printf rules for integers (flags `-0+ #`, width, precision, `%d %i %u %x %X %o %b %B`,
positive and negative numbers) as Puppet applies them in `sprintf` (Ruby's `format`) and in
`String(value, format)` (Puppet's string converter). Draws CASES random directives (fixed
seed), compiles one manifest with `puppet apply` noticing `sprintf(F, V)` and, for the
conversions `String()` accepts, `String(V, F)`, and writes one JSON line per case:

  {"format": F, "value": V, "sprintf": TEXT, "string": TEXT or null}

Each flag is drawn at most once and widths start at 1: Puppet rejects a flag given twice
(`%00.3x`), as the converter reads a width's leading zero as a flag.
crates/puppet-functions/tests/integer_formats.rs reads the file; CI needs no Puppet. The
same rules for Ruby code (puppet-ruby's `format`) are checked against Ruby in
crates/puppet-ruby/tests/fixtures/cases.txt (`format_integer_*`).

Usage: scripts/gen-integer-format-fixtures.py [CASES]   (default 400; needs `puppet`)
"""
import json, os, random, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "crates/puppet-functions/tests/fixtures/integer_formats.jsonl")
count = int(sys.argv[1]) if len(sys.argv) > 1 else 400
rng = random.Random(20261130)
CONVS = "diuxXobB"
VALUES = [0, 1, 7, 8, 255, -1, -8, -255, 65535, -65536, 9223372036854775807]

cases = []
while len(cases) < count:
    flags = "".join(f for f in "-0+#" if rng.random() < 0.3) + (" " if rng.random() < 0.15 else "")
    width = str(rng.randrange(1, 12)) if rng.random() < 0.6 else ""
    prec = "." + str(rng.randrange(7)) if rng.random() < 0.5 else ""
    fmt = "%" + flags + width + prec + rng.choice(CONVS)
    cases.append((fmt, rng.choice(VALUES)))

lines = []
for i, (fmt, v) in enumerate(cases):
    string = "" if fmt[-1] in "iu" else f"|[${{String({v}, '{fmt}')}}]"
    lines.append(f"notice(\"c{i}=[${{sprintf('{fmt}', {v})}}]{string}\")")
with tempfile.NamedTemporaryFile("w", suffix=".pp", delete=False) as f:
    f.write("\n".join(lines) + "\n")
    manifest = f.name
out = subprocess.run(["puppet", "apply", "--color=false", manifest],
                     capture_output=True, text=True).stdout
os.unlink(manifest)
got = {}
for line in out.splitlines():
    m = re.search(r"Scope\(Class\[main\]\): c(\d+)=\[(.*?)\](?:\|\[(.*)\])?$", line)
    if m:
        got[int(m.group(1))] = (m.group(2), m.group(3))
if len(got) != len(cases):
    sys.exit(f"Puppet answered {len(got)} of {len(cases)} cases:\n{out[-2000:]}")
with open(OUT, "w") as f:
    for i, (fmt, v) in enumerate(cases):
        s, t = got[i]
        f.write(json.dumps({"format": fmt, "value": v, "sprintf": s, "string": t}) + "\n")
print(f"{len(cases)} cases -> {OUT}")
