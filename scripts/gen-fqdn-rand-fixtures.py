#!/usr/bin/env python3
"""Regenerate crates/puppet-functions/tests/fixtures/fqdn_rand.jsonl and
crates/puppet-stdlib/fixtures/seeded_rand.jsonl from real Puppet 7.23.

What it does: for each (fqdn, call) pair in CASES below, compiles
`notice(String(<call>))` with the oracle's `compile-catalog --batch --with-logs`, the node's
facts being `{"networking": {"fqdn": FQDN}}` (no fqdn fact at all when FQDN is null), and
writes one JSON line per case:

  {"fqdn": FQDN or null, "args": [Puppet literal text of each argument],
   "value": Puppet's result as a string}            or
  {"fqdn": ..., "args": [...], "error": Puppet's message without "Evaluation Error: Error
   while evaluating a Function Call, " and the trailing location}

crates/puppet-functions/tests/fqdn_rand.rs reads it and calls `fqdn_rand` through the
registry with `$facts` set accordingly.

The second file holds stdlib's seeded functions (`fqdn_rotate`, `fqdn_rand_string`,
`seeded_rand`, `seeded_rand_string`) in the same form (key "call" holding the whole call
text instead of "args"), compiled with `-M MODULES` (stdlib 8.5) and the legacy `fqdn` fact
as well; "warnings" lists the warnings logged. crates/puppet-stdlib/tests/seeded_rand.rs
reads it.

Needs: Puppet 7.23 (Debian package puppet-agent, ruby) and the oracle script
compile-catalog (see the oracle's README.md, section compile-catalog). CI does not run
this; the test only reads the fixture.

Usage: scripts/gen-fqdn-rand-fixtures.py [--oracle DIR] [--modules DIR]
  --oracle DIR   directory holding compile-catalog (default: $ORACLE, else the directory of
                 `compile-catalog` on PATH, else ../shared/oracle next to this checkout)
  --modules DIR  modulepath holding stdlib (default /usr/share/puppet/modules)
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(ROOT, "crates/puppet-functions/tests/fixtures/fqdn_rand.jsonl")
STDLIB_OUT = os.path.join(ROOT, "crates/puppet-stdlib/fixtures/seeded_rand.jsonl")

FQDNS = ["web01.example.com", "db-02.prod.example.net", "Mixed.Case.Example.COM", "localhost", None]

# Argument lists (Puppet literals), tried with every fqdn above.
ARGS = [
    ["100"],
    ["30", "'x'"],
    ["60", "'cron job 1'"],
    ["1"],
    ["2"],
    ["'100'"],
    ["4294967296", "'big'"],
    ["9223372036854775807"],
    ["1000", "42"],
    ["1000", "undef", "true"],
    ["1000", "'s'", "false"],
    ["7", "[1, [2, 'a']]"],
    ["0"],
    ["-3"],
    ["'abc'"],
    [],
]


# stdlib calls, tried with every fqdn above.
STDLIB_CALLS = [
    "fqdn_rotate(['a', 'b', 'c', 'd'])",
    "fqdn_rotate('abcdef')",
    "fqdn_rotate([1, 2, 3], 'custom seed')",
    "fqdn_rotate([1, 2, 3], 'a', ['b', 'c'])",
    "fqdn_rotate([])",
    "fqdn_rotate('x')",
    "fqdn_rotate(3)",
    "fqdn_rand_string(10)",
    "fqdn_rand_string('12', 'ab')",
    "fqdn_rand_string(5, undef, 'seed')",
    "fqdn_rand_string(0)",
    "fqdn_rand_string(3, 5)",
    "seeded_rand(100, 'x')",
    "seeded_rand(1000000, 'db-02')",
    "seeded_rand('20', 'seed')",
    "seeded_rand(0, 'x')",
    "seeded_rand(10, 5)",
    "seeded_rand_string(8, 'x')",
    "seeded_rand_string(5, '', 'abcdef')",
    "seeded_rand_string(20, 'some::password')",
]


def strip_error(msg):
    msg = re.sub(r"^Evaluation Error: Error while evaluating a Function Call, ", "", msg)
    return re.sub(r" \(line: \d+, column: \d+\) on node \S+$", "", msg)


def oracle_dir(given):
    if given:
        return given
    if os.environ.get("ORACLE"):
        return os.environ["ORACLE"]
    found = shutil.which("compile-catalog")
    if found:
        return os.path.dirname(found)
    return os.path.join(os.path.dirname(ROOT), "shared", "oracle")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle")
    ap.add_argument("--modules", default="/usr/share/puppet/modules")
    opts = ap.parse_args()
    tool = os.path.join(oracle_dir(opts.oracle), "compile-catalog")
    cases = []
    lines = []
    for fqdn in FQDNS:
        for args in ARGS:
            facts = {} if fqdn is None else {"networking": {"fqdn": fqdn}}
            code = "notice(String(fqdn_rand(%s)))" % ", ".join(args)
            lines.append(json.dumps({"id": str(len(cases)), "code": code, "facts": facts,
                                     "node": "testnode"}))
            cases.append((fqdn, args))
    out = subprocess.run([tool, "--batch", "-", "--with-logs"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True).stdout
    results = {}
    for line in out.splitlines():
        d = json.loads(line)
        results[d["id"]] = d
    with open(OUT, "w") as f:
        for i, (fqdn, args) in enumerate(cases):
            d = results[str(i)]
            rec = {"fqdn": fqdn, "args": args}
            if d.get("ok"):
                notices = [x["message"] for x in d.get("logs", []) if x["level"] == "notice"]
                rec["value"] = notices[0]
            else:
                rec["error"] = strip_error(d["error"])
            f.write(json.dumps(rec) + "\n")
    print("wrote %d cases to %s" % (len(cases), OUT), file=sys.stderr)

    cases = []
    lines = []
    for fqdn in FQDNS:
        for call in STDLIB_CALLS:
            facts = {} if fqdn is None else {"fqdn": fqdn, "networking": {"fqdn": fqdn}}
            lines.append(json.dumps({"id": str(len(cases)), "code": "notice(String(%s))" % call,
                                     "facts": facts, "node": "testnode",
                                     "modulepath": opts.modules}))
            cases.append((fqdn, call))
    out = subprocess.run([tool, "--batch", "-", "--with-logs"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True).stdout
    results = {json.loads(line)["id"]: json.loads(line) for line in out.splitlines()}
    with open(STDLIB_OUT, "w") as f:
        for i, (fqdn, call) in enumerate(cases):
            d = results[str(i)]
            rec = {"fqdn": fqdn, "call": call}
            logs = d.get("logs", [])
            if d.get("ok"):
                rec["value"] = [x["message"] for x in logs if x["level"] == "notice"][0]
            else:
                rec["error"] = strip_error(d["error"])
            rec["warnings"] = [x["message"] for x in logs if x["level"] == "warning"]
            f.write(json.dumps(rec) + "\n")
    print("wrote %d cases to %s" % (len(cases), STDLIB_OUT), file=sys.stderr)


if __name__ == "__main__":
    main()
