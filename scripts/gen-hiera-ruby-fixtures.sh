#!/usr/bin/env bash
# Regenerates what the real Puppet 7.23 answers for the Hiera fixture environment whose
# backends are module functions written in Ruby (lookup_key, data_hash, data_dig) and in the
# Puppet language: tests/fixtures/hiera-ruby/env, used as a directory environment by
# scripts/control-repo-oracle.rb (its hiera.yaml and data/, the modules' hiera.yaml, no
# global hiera.yaml). Writes tests/fixtures/hiera-ruby/expected.json:
#   "lookups": for every key of tests/fixtures/hiera-ruby/keys.txt, `puppet lookup KEY`
#       (the value as YAML, exit status) and `puppet lookup --explain KEY`; the environment
#       directory is written <environment>;
#   "catalog": the catalog of the environment's site.pp (class rbdata: automatic parameter
#       lookup through the backends) in compile-catalog's canonical form, with its logs;
#   "catalog_boom": the compile of tests/fixtures/hiera-ruby/env-boom (the same hierarchy
#       and modules), whose site.pp looks up a key the Ruby backend raises an error for.
# Needs Puppet 7.23 (Debian puppet-agent) and python3. CI does not run this; the test only
# reads the fixture.
#
# Usage: scripts/gen-hiera-ruby-fixtures.sh
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
fix="$repo/tests/fixtures/hiera-ruby"
env_dir="$fix/env"
node=node.example.com
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

python3 - "$env_dir" "$fix/keys.txt" "$node" > "$tmp/cases.jsonl" <<'PY'
import json, sys
env, keys_file, node = sys.argv[1], sys.argv[2], sys.argv[3]
facts = f"{env}/facts/{node}.json"
print(json.dumps({"id": ["catalog"], "op": "catalog", "env": env, "node": node, "facts": facts}))
print(json.dumps({"id": ["catalog_boom"], "op": "catalog", "env": env + "-boom", "node": node,
                  "facts": facts}))
for line in open(keys_file):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    key, _, merge = line.partition(" ")
    for explain in (False, True):
        print(json.dumps({"id": ["lookup", key, merge.strip() or None, explain], "op": "lookup",
                          "env": env, "node": node, "facts": facts, "key": key,
                          "merge": merge.strip() or None, "explain": explain}))
PY
ruby "$repo/scripts/control-repo-oracle.rb" < "$tmp/cases.jsonl" > "$tmp/results.jsonl"

python3 - "$env_dir" "$fix/expected.json" "$tmp/results.jsonl" "$node" <<'PY'
import json, re, sys
env, out, results, node = sys.argv[1:5]
envpath = re.compile(r"/[^\"'\s]*/envs-\d+/production")
def clean(text):
    return envpath.sub("<environment>", text).replace(env, "<environment>")
doc = {"node": node, "lookups": [], "catalog": None, "catalog_boom": None}
entries = {}
for line in open(results):
    r = json.loads(line)
    if r["id"][0] in ("catalog", "catalog_boom"):
        if r.get("ok"):
            canon = dict(r["canonical"])
            canon["logs"] = r["logs"]
            doc[r["id"][0]] = json.loads(clean(json.dumps(canon)))
        else:
            doc[r["id"][0]] = {"error": clean(r.get("error", "")), "logs": r.get("logs", [])}
        continue
    _, key, merge, explain = r["id"]
    e = entries.setdefault((key, merge), {"key": key, "merge": merge})
    if "error" in r:
        # An error Puppet's lookup does not turn into a LookupError (`puppet lookup` prints
        # it as `Error: Could not run: MSG`).
        e["explain_error" if explain else "error"] = clean(r["error"])
    e["explain" if explain else "value"] = clean(r["output"])
    e["explain_status" if explain else "status"] = r["status"]
doc["lookups"] = list(entries.values())
with open(out, "w") as f:
    json.dump(doc, f, indent=1, ensure_ascii=False)
    f.write("\n")
print(f"wrote {out}: {len(entries)} keys", file=sys.stderr)
PY
