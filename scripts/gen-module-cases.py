#!/usr/bin/env python3
"""Regenerate the expectations of crates/puppet-eval/tests/fixtures/module_cases/ from Puppet 7.23.

Each case is a directory holding a main manifest `site.pp`, module directories and
`case.json` ({"modulepath": [directories relative to the case directory, as given],
optionally "settings": {Puppet setting: value}, e.g. {"strict": "error"}). The
script compiles every case with the oracle's `compile-catalog --batch --with-logs`, from
inside the case directory so that relative module paths mean what they say, and writes
`expected.json` beside it, in the reduced form tests/module_cases.rs compares:

  {"ok": true, "resources": [[ref, sorted tags, parameters], ...] (sorted by ref, without
   Stage[main], Class[main], Class[Settings]), "classes": [sorted, without settings],
   "logs": [[level, message], ...] (err and warning, in order)}
  or {"ok": false, "error": Puppet's message without " on node NAME"}

and, for a catalog, from a second run with `--raw` (Puppet's own catalog JSON; the
canonical form sorts): "tag_order": {ref: tags in the order Puppet writes them}, and
"written": {"resources": [[ref, kind, file, line, [parameter names in
order]], ...] in catalog order (files written as in messages), "edges": [[source, target], ...] in order, "tags": the
catalog's own tags in order}.

The case directory's absolute path is written `<DIR>` in messages, the directory of all
cases `<CASES>` (a case may use another's modules).

Needs Puppet 7.23 (puppet-agent) and the oracle scripts (/work/shared/oracle/README.md);
CI does not run this, the test only reads the files.

Usage: scripts/gen-module-cases.py [--oracle DIR] [CASE...]
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CASES = os.path.join(ROOT, "crates/puppet-eval/tests/fixtures/module_cases")
NODE = "node.example.com"
DROP = {"Stage[main]", "Class[main]", "Class[Settings]"}


def reduce(out, case_dir):
    def clean(s):
        return s.replace(case_dir, "<DIR>").replace(os.path.abspath(CASES), "<CASES>")

    if not out.get("ok"):
        msg = out["error"]
        suffix = " on node " + NODE
        if msg.endswith(suffix):
            msg = msg[: -len(suffix)]
        return {"ok": False, "error": clean(msg)}
    resources = []
    for r in out["resources"]:
        ref = "%s[%s]" % (r["type"], r["title"])
        if ref in DROP:
            continue
        params = r.get("parameters") or {}
        resources.append([ref, sorted(r["tags"]), {k: params[k] for k in sorted(params)}])
    resources.sort(key=lambda x: x[0])
    logs = [[l["level"], clean(l["message"])] for l in out.get("logs", [])
            if l["level"] in ("err", "warning")]
    return {"ok": True, "resources": resources,
            "classes": sorted(c for c in out["classes"] if c != "settings"), "logs": logs}


def written(cat, case_dir):
    """What of Puppet's catalog JSON the sorted form leaves out: orders, kinds, locations."""
    def rel(f):
        if f is None:
            return None
        return f.replace(case_dir, "<DIR>").replace(os.path.abspath(CASES), "<CASES>")
    resources = [["%s[%s]" % (r["type"], r["title"]), r.get("kind"), rel(r.get("file")),
                  r.get("line"), list(r.get("parameters") or {})] for r in cat["resources"]]
    edges = [[e["source"], e["target"]] for e in cat["edges"]]
    return {"resources": resources, "edges": edges, "tags": cat.get("tags", [])}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", default=os.environ.get(
        "ORACLE", os.path.join(ROOT, "..", "shared", "oracle")))
    ap.add_argument("cases", nargs="*")
    args = ap.parse_args()
    names = args.cases or sorted(d for d in os.listdir(CASES)
                                 if os.path.isdir(os.path.join(CASES, d)))
    oracle = os.path.abspath(os.path.join(args.oracle, "compile-catalog"))
    for name in names:
        case_dir = os.path.join(CASES, name)
        spec = json.load(open(os.path.join(case_dir, "case.json")))
        line = json.dumps({"id": name, "manifest": "site.pp",
                           "modulepath": ":".join(spec["modulepath"]), "node": NODE})
        settings = [a for k, v in sorted(spec.get("settings", {}).items())
                    for a in ("--setting", "%s=%s" % (k, v))]
        p = subprocess.run([oracle, "--batch", "-", "--with-logs"] + settings, input=line + "\n",
                           capture_output=True, text=True, cwd=case_dir, check=True)
        out = json.loads(p.stdout.splitlines()[-1])
        expected = reduce(out, case_dir)
        if expected["ok"]:
            p = subprocess.run([oracle, "--batch", "-", "--raw"] + settings, input=line + "\n",
                               capture_output=True, text=True, cwd=case_dir, check=True)
            raw = json.loads(p.stdout.splitlines()[-1])
            order = {}
            for r in raw["raw"]["resources"]:
                ref = "%s[%s]" % (r["type"], r["title"])
                if ref not in DROP:
                    order[ref] = r["tags"]
            expected["tag_order"] = {k: order[k] for k in sorted(order)}
            expected["written"] = written(raw["raw"], case_dir)
        with open(os.path.join(case_dir, "expected.json"), "w") as f:
            json.dump(expected, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print("%s: %s" % (name, "ok" if expected["ok"] else expected["error"][:100]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
