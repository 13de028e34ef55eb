#!/usr/bin/env python3
"""Regenerates tests/fixtures/hiera-v3/expected.json: what Puppet 7.23 compiles for each case
of that directory, a global hiera.yaml of version 3 (Hiera 3's `:backends:`/`:hierarchy:`
format, deprecated and still read by Puppet 7 in the global layer).

Each case is a directory holding `hiera.yaml` (the global configuration; `<DIR>` stands for
the case's own directory), its data, and `site.pp` and optionally `modules/`, or instead
`env/`: a directory environment (with its own Hiera layer), compiled by
`scripts/control-repo-oracle.rb` as the environment `production` of a server whose
`hiera_config` is the case's `hiera.yaml`. The case is copied
to a temporary directory with `<DIR>` replaced by the copy's path and compiled by the
oracle's `compile-catalog --batch --with-logs` for node.example.com with `facts.json` here
(the oracle's Debian web facts), and the expectation keeps, with the copy's path written `<DIR>` again:
  {"ok": true, "notices": [notice messages in order], "warnings": [warning messages]}
  or {"ok": false, "error": Puppet's message without " on node NAME", "warnings": [...]}

tests/hiera_v3.rs compiles the same cases (files in memory, <DIR> = /fixtures/CASE) and
compares. Needs Puppet 7.23 (puppet-agent) and the oracle (../shared/oracle); CI only reads
the JSON.

Usage: scripts/gen-hiera-v3-fixtures.py [--oracle DIR]
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIX = os.path.join(ROOT, "tests/fixtures/hiera-v3")
NODE = "node.example.com"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", default=os.path.join(ROOT, "../shared/oracle"))
    args = ap.parse_args()
    facts = os.path.join(FIX, "facts.json")  # the Debian web facts of the oracle
    cases = sorted(d for d in os.listdir(FIX) if os.path.isdir(os.path.join(FIX, d)))
    tmp = tempfile.mkdtemp(prefix="hiera-v3-")
    try:
        lines, env_lines = [], []
        for case in cases:
            dst = os.path.join(tmp, case)
            shutil.copytree(os.path.join(FIX, case), dst)
            for base, _, files in os.walk(dst):
                for f in files:
                    p = os.path.join(base, f)
                    text = open(p).read()
                    if "<DIR>" in text:
                        open(p, "w").write(text.replace("<DIR>", dst))
            if os.path.isdir(os.path.join(dst, "env")):
                env_lines.append(json.dumps({
                    "id": case, "op": "catalog", "env": os.path.join(dst, "env"),
                    "hiera": os.path.join(dst, "hiera.yaml"), "facts": facts, "node": NODE}))
                continue
            modules = os.path.join(dst, "modules")
            lines.append(json.dumps({
                "id": case, "manifest": os.path.join(dst, "site.pp"),
                "modulepath": modules if os.path.isdir(modules) else "",
                "hiera": os.path.join(dst, "hiera.yaml"), "facts": facts, "node": NODE}))
        out = subprocess.run(
            [os.path.join(args.oracle, "compile-catalog"), "--batch", "-", "--with-logs"],
            input="\n".join(lines) + "\n", capture_output=True, text=True, check=True).stdout
        if env_lines:
            out += "\n" + subprocess.run(
                ["ruby", os.path.join(HERE, "control-repo-oracle.rb")],
                input="\n".join(env_lines) + "\n", capture_output=True, text=True,
                check=True).stdout
        expected = {}
        for line in out.splitlines():
            if not line.strip():
                continue
            r = json.loads(line)
            case = r["id"]
            dst = os.path.join(tmp, case)
            logs = r.get("logs", [])
            warnings = [l["message"] for l in logs if l.get("level") == "warning"]
            if r.get("ok"):
                e = {"ok": True,
                     "notices": [l["message"] for l in logs if l.get("level") == "notice"],
                     "warnings": warnings}
            else:
                e = {"ok": False, "error": r.get("error", "").replace(f" on node {NODE}", ""),
                     "warnings": warnings}
            expected[case] = json.loads(json.dumps(e).replace(dst, "<DIR>"))
        with open(os.path.join(FIX, "expected.json"), "w") as f:
            json.dump(expected, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"wrote {len(expected)} cases to {FIX}/expected.json")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
