#!/usr/bin/env python3
"""Differential compile testing: generated programs compiled by the real Puppet 7.23.

Generates programs with `puppet-difftest gen` (crates/puppet-difftest: a seeded generator,
the same seed always gives the same program), compiles each with the oracle's
`compile-catalog --batch` (canonical JSON, or Puppet's error text; see
/work/shared/oracle/README.md) as `-e` code for node node.example.com, and writes one JSON
line per program:

  {"id": "c000001", "seed": 1, "code": "...", "puppet": <Puppet's answer>}

where the answer is the batch line as compile-catalog printed it, less `id`, `node` and
`environment`: {"ok": true, "classes", "resources", "edges"} or {"ok": false, "error":
Puppet's message}. Its canonical form (puppet_difftest::canonical_puppet: resources sorted by
type and title, tags and parameter names sorted, nested values as Puppet keeps them, Ruby
object addresses left out of messages) is what ours is compared with.
`puppet-difftest check FILE` compares our
compiles with such a file; `crates/puppet-difftest/tests/compile_diff.rs` does it for the
committed sample at every `cargo test`.

Usage:
  scripts/compile-diff.py --seed 1 --count 5000 --out /tmp/compile-diff.jsonl [--fork]
  scripts/compile-diff.py --seed 1 --count 400 \\
      --out crates/puppet-difftest/tests/fixtures/compile_diff.jsonl    (the committed sample)
By default the batch runs in one Ruby process (`--no-fork`, ~15 ms a program: the programs
use core types only, so nothing can leak from one to the next); `--fork` compiles each in a
forked child. Needs Puppet 7.23 (puppet-agent), cargo, and the oracle ($ORACLE, default
../shared/oracle next to this checkout). CI never runs this.
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def oracle_dir():
    for d in (os.environ.get("ORACLE"), os.path.join(ROOT, "..", "shared", "oracle"),
              os.path.join(ROOT, "..", "..", "shared", "oracle")):
        if d and os.path.exists(os.path.join(d, "compile-catalog")):
            return d
    sys.exit("compile-catalog not found: set ORACLE")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=400)
    ap.add_argument("--out", required=True)
    ap.add_argument("--fork", action="store_true")
    args = ap.parse_args()

    gen = subprocess.run(
        ["cargo", "run", "--quiet", "--release", "-p", "puppet-difftest", "--", "gen",
         "--seed", str(args.seed), "--count", str(args.count)],
        cwd=ROOT, capture_output=True, text=True, check=True)
    programs = [json.loads(l) for l in gen.stdout.splitlines() if l.strip()]
    batch = "".join(json.dumps({"id": p["id"], "code": p["code"], "node": "node.example.com"}) + "\n"
                    for p in programs)
    cmd = ["nice", "-n", "10", os.path.join(oracle_dir(), "compile-catalog"), "--batch", "-"]
    if not args.fork:
        cmd.append("--no-fork")
    run = subprocess.run(cmd, input=batch, capture_output=True, text=True, check=True)
    answers = {}
    for l in run.stdout.splitlines():
        if l.strip():
            a = json.loads(l)
            answers[a["id"]] = a
    n = errors = 0
    with open(args.out, "w") as out:
        for p in programs:
            a = answers.get(p["id"])
            if a is None:
                print("%s: no answer from Puppet" % p["id"], file=sys.stderr)
                continue
            for k in ("id", "node", "environment"):
                a.pop(k, None)
            p["puppet"] = a
            errors += 0 if a.get("ok") else 1
            out.write(json.dumps(p, ensure_ascii=False, separators=(",", ":")) + "\n")
            n += 1
    print("wrote %d programs (%d errors in Puppet) to %s" % (n, errors, args.out))


if __name__ == "__main__":
    main()
