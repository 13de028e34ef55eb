#!/usr/bin/env python3
"""Regenerate crates/puppet-types/tests/fixtures/semver_ranges.jsonl from real Puppet 7.23.

What it does: builds a fixed, seeded list of SemanticPuppet range strings (hand-picked ones
plus random combinations of partial versions, operators with and without spaces or a `v`,
hyphen ranges, intersections and `||` unions, valid and invalid), compiles for each one a
small manifest with the oracle's `compile-catalog --batch --with-logs` that does

    $r = SemVerRange('RANGE')
    notice("${r}")                  # the range as a string (SemanticPuppet's to_s)
    notice(String($r, '%p'))        # Puppet's %p of the range (SemanticPuppet's inspect)
    notice(VERSIONS.filter |$v| { SemVer($v) =~ $r })   # which of VERSIONS it admits

and writes one JSON line per range, in the form crates/puppet-types/tests/semver_ranges.rs
reads:

  {"range": RANGE, "s": "...", "p": "...", "in": [versions admitted, in VERSIONS order]}
  or
  {"range": RANGE, "error": Puppet's message without "Evaluation Error: Error while
      evaluating a Function Call, " and the trailing " (line: N, column: M) on node NAME"}

A first line {"versions": VERSIONS} lists the versions every range is tested against.
Ranges holding a quote or a backslash are not generated (they would need escaping in the
manifest). Ruby object addresses in messages (`#<...:0x00007f...`) are replaced by
`0x0000000000000000`.

Needs: Puppet 7.23 (Debian package puppet-agent) and the oracle script compile-catalog
(see the oracle's README.md). CI does not run this; the test only reads the fixture.

Usage: scripts/gen-semver-fixtures.py [--oracle DIR] [--out FILE] [--count N]
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_OUT = os.path.join(ROOT, "crates/puppet-types/tests/fixtures/semver_ranges.jsonl")
NODE = "node.example.com"

VERSIONS = [
    "0.0.0", "0.0.1", "0.0.2", "0.1.0", "0.1.1", "0.2.0", "1.0.0", "1.0.1", "1.1.0",
    "1.2.0", "1.2.3", "1.2.4", "1.3.0", "1.9.9", "2.0.0", "2.3.4", "2.3.5", "2.4.0",
    "3.0.0", "10.0.0", "0.0.0-0", "0.0.1-rc1", "1.0.0-0", "1.0.0-alpha", "1.0.0-rc1",
    "1.2.3-0", "1.2.3-rc1", "1.2.3-rc.1", "1.2.3-rc.2", "1.2.4-rc1", "2.0.0-0",
    "2.0.0-rc1", "2.3.4-beta", "1.0.0+b5", "1.2.3+b5", "1.2.3-rc1+b5",
]

HAND = [
    "1.2.3", "=1.2.3", "1.2.3-rc1", "1.2.3+b5", "1.2.3-rc1+b5", "1", "1.2", "1.x", "1.X",
    "1.*", "1.2.x", "1.2.*", "x", "X", "*", "x.x", "*.*.*", "1.x.x", "0", "0.0", "0.x",
    ">1.2.3", ">=1.2.3", "<1.2.3", "<=1.2.3", ">1.2", ">=1.2", "<1.2", "<=1.2", ">1",
    ">=1", "<1", "<=1", ">1.x", ">=1.x", "<1.x", "<=1.x", ">x", ">=x", "<x", "<=x",
    ">*", "~1", "~1.2", "~1.2.3", "~1.2.3-rc1", "~x", "~1.x", "~0", "~0.0", "~0.0.1",
    "~>1.2", "~=1.2", "^1", "^1.2", "^1.2.3", "^1.2.3-rc1", "^0", "^0.0", "^0.1",
    "^0.1.2", "^0.0.1", "^0.0", "^0.x", "^0.0.x", "^1.x", "^x", "^0.0.1-rc1",
    "1.2 - 2.3.4", "1.2.3 - 2.3.4", "1 - 2", "1.x - 2.x", "1.2.3-rc1 - 2.3.4-beta",
    "1.2.3 - 2", "1.2.3 -2.3.4", "1.2.3- 2.3.4", "1.2.3  -  2.3.4",
    ">=1.0.0 <2.0.0", ">1.0.0 <=2.3.4", ">=1.2.3-rc1 <2.0.0", ">=1.0.0 <2.0.0-0",
    ">=1.0.0-rc1", ">=1.0.0-0", "<2.0.0-rc1", "<=2.0.0-rc1", ">1.2.3-rc.1",
    ">= 6.0.0", ">=v1.2.3", "> 1.x", "~ 1.2", "<=  2", "^ 1.2.3", "= 7.23.0",
    ">= 6.0.0 < 8.0.0", "=v1.2.3", ">=   v1.2", "v1.2.3", "v1", "1.2.3 || 2.x",
    "1.x || 2.x", "1.x || >=2.0.0", "1.0.0 || >=2.0.0", "<1.0.0 || >=2.0.0",
    ">=1.0.0 || >=2.0.0", "1.x || 1.2.x", "1.2.3 || 1.2.3", "1.0.0 ||", "|| 1.0.0",
    "||", "1.0.0 || || 2.0.0", "1.0.0||2.0.0", " 1.0.0", "1.0.0 ", " ", "  ",
    ">2.0.0 <1.0.0", ">2.0.0 <1.0.0 >0.5.0", ">=1.0.0 <1.0.0", ">=1.0.0 <=1.0.0",
    ">1.0.0 <=1.0.0", ">=1.0.0 >=1.2.0", "<2.0.0 <1.5.0", ">1.2.3 >=1.2.3", "1.2.3 >=1.0.0",
    "1.x 1.2.x", "1.x >1.2", "a", "1.2.3.4", "01.2.3", "1.02.3", "1.2.3-01", "1.2.3-",
    "1.2.3+", "1.2.3-rc..1", "-1.2.3", ">=1.2.3-rc.01", "1.x.3", "1.2.x-rc1", "1.2-rc1",
    ">==1.2.3", "=>1.2.3", "!1.2.3", "~~1.2", "<>1.2", "1.2.3 - ", "- 1.2.3",
    "1.2.3 - 2.3.4 - 3", "1.2.3 - 2.3.4 || 3.x", "1.0.0 - 1.5.0 || 1.2.0 - 2.0.0",
    "1.0.0 - 2.0.0 || 1.5.0 - 2.0.0", "<1.0.0 || >=1.0.0", "1.0.0 || 1.0.1",
    "1.0.0 || 1.0.2", "<=1.0.0 || 1.0.1", ">=1.0.0 <1.1.0 || >=1.1.0 <2.0.0",
    ">=0.0.0", "<0.0.0", "<0.0.0-0", ">=0.0.0-0",
]

PARTIALS = [
    "0", "1", "2", "0.0", "0.1", "1.0", "1.2", "2.3", "0.0.0", "0.0.1", "0.1.2", "1.0.0",
    "1.2.3", "2.3.4", "1.9.9", "2.0.0", "x", "*", "X", "1.x", "1.*", "0.x", "1.2.x",
    "0.0.x", "1.x.x", "1.2.3-rc1", "1.2.3-rc.1", "1.0.0-0", "2.0.0-rc1", "1.2.3+b5",
    "1.2.3-rc1+b5", "1.2.4-rc1", "0.0.1-rc1", "v1.2.3", "01", "1.2.3.4", "a",
]
OPS = ["", "", "=", ">", ">=", "<", "<=", "~", "^", "~>", "~=", "> ", ">= ", "<v",
       ">=v", "~ ", "^v", "=", "<  "]


def random_ranges(rng, count):
    def simple():
        return rng.choice(OPS) + rng.choice(PARTIALS)

    def conj():
        k = rng.choice([1, 1, 2, 2, 3])
        if rng.random() < 0.15:
            return rng.choice(PARTIALS) + rng.choice([" - ", "  -  ", " -", "-"]) + rng.choice(PARTIALS)
        return " ".join(simple() for _ in range(k))

    out = []
    for _ in range(count):
        k = rng.choice([1, 1, 1, 2, 2, 3])
        sep = rng.choice([" || ", "||", "  ||  "])
        out.append(sep.join(conj() for _ in range(k)))
    return out


def manifest(r):
    vs = ", ".join(f"'{v}'" for v in VERSIONS)
    return (
        f"$r = SemVerRange('{r}')\n"
        'notice("S:${r}")\n'
        "notice(\"P:${String($r, '%p')}\")\n"
        f"notice(\"M:${{[{vs}].filter |$v| {{ SemVer($v) =~ $r }}}}\")\n"
    )


def strip_error(msg):
    m = msg
    if m.endswith(" on node " + NODE):
        m = m[: -len(" on node " + NODE)]
    m = re.sub(r" \(line: \d+(?:, column: \d+)?\)$", "", m)
    for prefix in ("Evaluation Error: ", "Error while evaluating a Function Call, "):
        if m.startswith(prefix):
            m = m[len(prefix):]
    return re.sub(r"0x[0-9a-f]{16}", "0x0000000000000000", m)


def oracle_dir(arg):
    if arg:
        return arg
    if os.environ.get("ORACLE"):
        return os.environ["ORACLE"]
    found = shutil.which("compile-catalog")
    if found:
        return os.path.dirname(found)
    return os.path.join(os.path.dirname(ROOT), "shared", "oracle")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle")
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--count", type=int, default=900)
    args = ap.parse_args()
    rng = random.Random(20261128)
    ranges = []
    seen = set()
    for r in HAND + random_ranges(rng, args.count):
        if "'" in r or "\\" in r or r in seen or r == "":
            continue
        seen.add(r)
        ranges.append(r)
    with tempfile.TemporaryDirectory(prefix="semver-fixtures-") as tmp:
        batch = os.path.join(tmp, "batch.jsonl")
        with open(batch, "w") as f:
            for i, r in enumerate(ranges):
                f.write(json.dumps({"id": str(i), "code": manifest(r)}) + "\n")
        proc = subprocess.run(
            [os.path.join(oracle_dir(args.oracle), "compile-catalog"), "--batch", batch,
             "--with-logs", "--json-errors", "--node", NODE],
            capture_output=True, text=True, check=False)
    results = {}
    for line in proc.stdout.splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if "id" in d:
            results[d["id"]] = d
    lines = [json.dumps({"versions": VERSIONS})]
    for i, r in enumerate(ranges):
        d = results.get(str(i))
        if d is None:
            sys.exit(f"no answer for {r!r}: {proc.stderr[-2000:]}")
        rec = {"range": r}
        if not d.get("ok"):
            rec["error"] = strip_error(d["error"])
        else:
            logs = [l["message"] for l in d.get("logs", []) if l.get("level") == "notice"]
            got = {m[:2]: m[2:] for m in logs}
            rec["s"] = got["S:"]
            rec["p"] = got["P:"]
            inside = got["M:"].strip("[]")
            rec["in"] = [v.strip() for v in inside.split(",")] if inside else []
        lines.append(json.dumps(rec))
    text = "\n".join(lines) + "\n"
    for leak in (ROOT, tempfile.gettempdir() + "/semver-fixtures-", os.path.expanduser("~")):
        if leak in text:
            sys.exit(f"fixture would hold a path of this machine: {leak}")
    with open(args.out, "w") as f:
        f.write(text)
    print(f"{len(ranges)} ranges -> {args.out}")


if __name__ == "__main__":
    main()
