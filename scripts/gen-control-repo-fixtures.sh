#!/usr/bin/env bash
# Regenerates what the real Puppet 7.23 says about the sample control repository
# examples/control-repo, used as a directory environment (see scripts/control-repo-oracle.rb for
# how Puppet is set up: environmentpath with the repository as environment `production`,
# environment.conf, the environment's hiera.yaml and data/, no global hiera.yaml):
#
#   tests/fixtures/control-repo/catalogs/<node>.json
#       each node's catalog in compile-catalog's canonical form (classes and resources sorted,
#       containment edges), with "classes_in_order", "resource_order" and "logs", one
#       top-level key per line and one array element per line;
#   tests/fixtures/control-repo/raw/<node>.json
#       Puppet's own catalog JSON (to_data_hash, what `puppet catalog compile` and our
#       `compile` print), made reproducible: "version" 1700000000, "catalog_uuid" a fixed
#       UUID, "file" relative to the environment directory;
#   tests/fixtures/control-repo/lookups/<node>.json
#       `puppet lookup` for every key of scripts/control-repo-lookups.txt: the value as YAML
#       and the --explain text, with the exit status; the environment directory is written
#       as <environment> in the texts.
#
# Nodes: every facts/<certname>.json of the repository.
# Needs Puppet 7.23 (Debian puppet-agent) with its ruby, and python3. CI does not run this;
# tests only read the fixtures.
#
# Usage: scripts/gen-control-repo-fixtures.sh [--out DIR]
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
out="$repo/tests/fixtures/control-repo"
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
env_dir="$repo/examples/control-repo"
mkdir -p "$out/catalogs" "$out/raw" "$out/lookups"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

python3 - "$env_dir" "$repo/scripts/control-repo-lookups.txt" > "$tmp/cases.jsonl" <<'EOF'
import json, os, sys
env, keys_file = sys.argv[1], sys.argv[2]
nodes = sorted(f[:-5] for f in os.listdir(f"{env}/facts") if f.endswith(".json"))
keys = []
for line in open(keys_file):
    line = line.split("#", 1)[0].strip()
    if line:
        key, _, merge = line.partition(" ")
        keys.append((key, merge.strip() or None))
for node in nodes:
    facts = f"{env}/facts/{node}.json"
    print(json.dumps({"id": ["catalog", node], "op": "catalog", "env": env, "node": node, "facts": facts}))
    for key, merge in keys:
        for explain in (False, True):
            print(json.dumps({"id": ["lookup", node, key, merge, explain], "op": "lookup", "env": env,
                              "node": node, "facts": facts, "key": key, "merge": merge, "explain": explain}))
EOF
echo "+ $(wc -l < "$tmp/cases.jsonl") cases through scripts/control-repo-oracle.rb" >&2
ruby "$repo/scripts/control-repo-oracle.rb" < "$tmp/cases.jsonl" > "$tmp/results.jsonl"

python3 - "$env_dir" "$out" "$tmp/results.jsonl" <<'EOF'
import json, re, sys
env, out, results = sys.argv[1], sys.argv[2], sys.argv[3]
# Where the oracle put the environment: <tmp>/envs-<pid>/production (a symlink to env).
envpath = re.compile(r"/[^\"'\s]*/envs-\d+/production")

def lines(doc):
    """One top-level key per line, one array element per line."""
    body = []
    for k, v in doc.items():
        if isinstance(v, list) and v:
            items = ",\n".join("    " + json.dumps(e, ensure_ascii=False) for e in v)
            body.append(f"  {json.dumps(k)}: [\n{items}\n  ]")
        else:
            body.append(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}")
    return "{\n" + ",\n".join(body) + "\n}\n"

lookups = {}
for line in open(results):
    r = json.loads(line)
    kind = r["id"][0]
    if kind == "catalog":
        node = r["id"][1]
        if not r.get("ok"):
            sys.exit(f"Puppet failed to compile {node}: {r.get('error')}")
        canon = dict(r["canonical"])
        canon["logs"] = r["logs"]
        text = json.dumps(canon)
        if envpath.search(text) or env in text:
            sys.exit(f"{node}: the canonical catalog mentions a machine path")
        open(f"{out}/catalogs/{node}.json", "w").write(lines(canon))
        raw = r["raw"]
        if envpath.search(json.dumps(raw)) or env in json.dumps(raw):
            sys.exit(f"{node}: the raw catalog mentions a machine path")
        open(f"{out}/raw/{node}.json", "w").write(lines(raw))
        print(f"{node}: {len(raw['resources'])} resources", file=sys.stderr)
    else:
        _, node, key, merge, explain = r["id"]
        if "error" in r:
            sys.exit(f"lookup {key} on {node} failed inside the oracle: {r['error']}")
        entry = lookups.setdefault(node, {}).setdefault((key, merge), {"key": key, "merge": merge})
        entry["explain" if explain else "value"] = envpath.sub("<environment>", r["output"])
        entry["explain_status" if explain else "status"] = r["status"]
for node, entries in lookups.items():
    doc = {"node": node, "lookups": list(entries.values())}
    with open(f"{out}/lookups/{node}.json", "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{node}: {len(entries)} lookups", file=sys.stderr)
EOF
echo "wrote $out" >&2
