#!/usr/bin/env python3
"""Regenerate the puppet-graph fixtures from the real Puppet 7.23.

What it does: for every case of the conformance file `graph.jsonl`, write the
case's manifest to `<tmp>/<case>/manifest.pp`, compile it with Puppet's own
compiler (`compile-catalog --raw --batch`, node `testnode`, no facts, the same
settings the conformance cases were recorded with) and store Puppet's raw
catalog JSON (`Puppet::Resource::Catalog#to_data_hash`) as
`crates/puppet-graph/tests/fixtures/<sanitised id>.json`.

Normalisation, so that regenerating gives identical files:
  * the temp directory is cut from `file` (the manifest is then `manifest.pp`,
    as in the recorded `puppet apply` runs);
  * `version` is set to 0 and `catalog_uuid` to a fixed value.

Cases that Puppet refuses to compile (`compile_error_contains`): the catalog
they would produce without the compiler's relationship check is synthesised by
compiling the manifest plus a stub declaration of the missing resource, then
deleting that resource and its containment edge again. A relationship that
came from a chaining arrow is moved from the `before`/`notify` parameter into
the catalog's `relationships` extension (origin `arrow`), which is how our own
compiler reports arrows; Puppet ignores unknown catalog keys. These fixtures
carry `"synthesised": "..."` saying so.

It also writes `expectations.jsonl` (the few fields the crate's own tests
need, copied from graph.jsonl) next to the fixtures.

Usage: scripts/graph-fixtures.py [--conformance DIR] [--oracle DIR] [--out DIR]
Requires Puppet 7.23 (`puppet-agent`) and the oracle scripts.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Stub declarations for the cases Puppet refuses to compile (see above):
# id -> (stub code, ref of the stub, [(source ref, param, target ref)] moved to
# the `relationships` extension as arrows).
SYNTHESISED = {
    "error/relationship-to-missing-resource": (
        "notify { 'missing': }\n",
        "Notify[missing]",
        [("Notify[a]", "before", "Notify[missing]")],
    ),
    "error/require-missing-resource": ("notify { 'missing': }\n", "Notify[missing]", []),
}


def sanitise(case_id):
    return re.sub(r"[^A-Za-z0-9_.-]+", "__", case_id)


def strip_dir(value, prefix):
    if isinstance(value, str) and value.startswith(prefix):
        return value[len(prefix):]
    return value


def remove_resource(cat, ref):
    def rref(r):
        return "%s[%s]" % (r["type"], r["title"])

    cat["resources"] = [r for r in cat["resources"] if rref(r) != ref]
    cat["edges"] = [e for e in cat["edges"] if e["target"] != ref and e["source"] != ref]


def move_to_arrows(cat, moves):
    rels = []
    for source, param, target in moves:
        for r in cat["resources"]:
            if "%s[%s]" % (r["type"], r["title"]) != source:
                continue
            params = r.get("parameters", {})
            vals = params.get(param)
            if vals is None:
                continue
            if not isinstance(vals, list):
                vals = [vals]
            vals = [v for v in vals if v != target]
            if vals:
                params[param] = vals
            else:
                del params[param]
            if not params:
                r.pop("parameters", None)
            rels.append({
                "source": source,
                "target": target,
                "kind": param,
                "origin": "arrow",
                "file": r.get("file"),
                "line": r.get("line"),
            })
    if rels:
        cat["relationships"] = rels


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--conformance", default=os.path.join(ROOT, "..", "shared", "conformance"))
    ap.add_argument("--oracle", default=os.path.join(ROOT, "..", "shared", "oracle"))
    ap.add_argument("--out", default=os.path.join(ROOT, "crates", "puppet-graph", "tests", "fixtures"))
    args = ap.parse_args()

    cases = [json.loads(l) for l in open(os.path.join(args.conformance, "graph.jsonl")) if l.strip()]
    os.makedirs(args.out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="graph-fixtures-")
    batch = []
    for c in cases:
        d = os.path.join(tmp, sanitise(c["id"]))
        os.makedirs(d)
        code = c["manifest"]
        if c["id"] in SYNTHESISED:
            code += SYNTHESISED[c["id"]][0]
        with open(os.path.join(d, "manifest.pp"), "w") as f:
            f.write(code)
        batch.append({"id": c["id"], "manifest": os.path.join(d, "manifest.pp"), "node": "testnode"})
    inp = "\n".join(json.dumps(b) for b in batch) + "\n"
    proc = subprocess.run(
        [os.path.join(args.oracle, "compile-catalog"), "--raw", "--batch", "-"],
        input=inp, capture_output=True, text=True, check=True,
    )
    results = {}
    for line in proc.stdout.splitlines():
        if line.strip():
            r = json.loads(line)
            results[r["id"]] = r
    failures = 0
    expectations = []
    for c in cases:
        r = results.get(c["id"])
        if not r or not r.get("ok"):
            print("compile failed: %s: %s" % (c["id"], r and r.get("error")), file=sys.stderr)
            failures += 1
            continue
        cat = r["raw"]
        prefix = os.path.join(tmp, sanitise(c["id"])) + "/"
        for res in cat["resources"]:
            if "file" in res:
                res["file"] = strip_dir(res["file"], prefix)
        cat["version"] = 0
        cat["catalog_uuid"] = "00000000-0000-0000-0000-000000000000"
        if c["id"] in SYNTHESISED:
            _, stub, moves = SYNTHESISED[c["id"]]
            remove_resource(cat, stub)
            move_to_arrows(cat, moves)
            cat["synthesised"] = (
                "Puppet refuses to compile this manifest; catalog made by compiling it with a stub "
                "%s that was then removed (see scripts/graph-fixtures.py)" % stub
            )
        with open(os.path.join(args.out, sanitise(c["id"]) + ".json"), "w") as f:
            json.dump(cat, f, indent=1, ensure_ascii=False)
            f.write("\n")
        keep = {k: c[k] for k in ("id", "apply_args", "order", "failed", "skipped", "refreshed",
                                  "cycles", "cycle_error_contains", "compile_error_contains") if k in c}
        expectations.append(keep)
    with open(os.path.join(args.out, "expectations.jsonl"), "w") as f:
        for e in expectations:
            f.write(json.dumps(e, ensure_ascii=False) + "\n")
    print("wrote %d fixtures to %s (%d failures)" % (len(expectations), args.out, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
