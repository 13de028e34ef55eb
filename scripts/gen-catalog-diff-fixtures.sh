#!/usr/bin/env bash
# Regenerates tests/fixtures/catalog_diff/after/<edit>.json: Puppet 7.23's catalog of a node of
# examples/control-repo after a scripted edit of the repository, for every edit of
# tests/fixtures/catalog_diff/edits.json (see its "comment" for the format). Each edit is
# applied to a fresh copy of the repository, which scripts/control-repo-oracle.rb compiles as
# its environment; the catalogs are Puppet's own catalog JSON made reproducible, like
# tests/fixtures/control-repo/raw/<node>.json, which are the catalogs before the edits. The
# unedited copy is compiled too and must give those files (run
# scripts/gen-control-repo-fixtures.sh first when the repository changed).
#
# Needs Puppet 7.23 (Debian puppet-agent) with its ruby, and python3. CI does not run this;
# tests/catalog_diff.rs only reads the fixtures.
#
# Usage: scripts/gen-catalog-diff-fixtures.sh [EDIT...]   (default: every edit)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
fixtures="$repo/tests/fixtures/catalog_diff"
case "${1:-}" in -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$fixtures/after"

# Copies of the repository, edited; the cases for the oracle.
python3 - "$repo/examples/control-repo" "$fixtures/edits.json" "$tmp" "$@" > "$tmp/cases.jsonl" <<'EOF'
import json, os, shutil, sys
src, edits_file, tmp, wanted = sys.argv[1], sys.argv[2], sys.argv[3], set(sys.argv[4:])
edits = json.load(open(edits_file))["edits"]
unknown = wanted - {e["name"] for e in edits}
if unknown:
    sys.exit(f"unknown edits: {sorted(unknown)}")
def case(id_, env, node):
    print(json.dumps({"id": id_, "op": "catalog", "env": env, "node": node,
                      "facts": f"{env}/facts/{node}.json"}))
base = f"{tmp}/base"
shutil.copytree(src, base, symlinks=True)
for node in sorted({e["node"] for e in edits}):
    case(["base", node], base, node)
for e in edits:
    if wanted and e["name"] not in wanted:
        continue
    env = f"{tmp}/{e['name']}"
    shutil.copytree(src, env, symlinks=True)
    for ch in e["changes"]:
        path = os.path.join(env, ch["file"])
        if "write" in ch:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").write(ch["write"])
            continue
        old, new = ch["replace"]
        text = open(path).read()
        if text.count(old) != 1:
            sys.exit(f"{e['name']}: the text to replace occurs {text.count(old)} times in {ch['file']}")
        open(path, "w").write(text.replace(old, new))
    case(["after", e["name"]], env, e["node"])
EOF
echo "+ $(wc -l < "$tmp/cases.jsonl") compiles through scripts/control-repo-oracle.rb" >&2
ruby "$repo/scripts/control-repo-oracle.rb" < "$tmp/cases.jsonl" > "$tmp/results.jsonl"

python3 - "$repo/tests/fixtures/control-repo/raw" "$fixtures/after" "$tmp/results.jsonl" <<'EOF'
import json, sys
raw_dir, after_dir, results = sys.argv[1], sys.argv[2], sys.argv[3]

def lines(doc):
    body = []
    for k, v in doc.items():
        if isinstance(v, list) and v:
            items = ",\n".join("    " + json.dumps(e, ensure_ascii=False) for e in v)
            body.append(f"  {json.dumps(k)}: [\n{items}\n  ]")
        else:
            body.append(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}")
    return "{\n" + ",\n".join(body) + "\n}\n"

for line in open(results):
    r = json.loads(line)
    kind, name = r["id"]
    if not r.get("ok"):
        sys.exit(f"Puppet failed to compile {kind} {name}: {r.get('error')}")
    if kind == "base":
        committed = json.load(open(f"{raw_dir}/{name}.json"))
        if committed != r["raw"]:
            sys.exit(f"the unedited repository does not give {raw_dir}/{name}.json: run scripts/gen-control-repo-fixtures.sh")
        continue
    open(f"{after_dir}/{name}.json", "w").write(lines(r["raw"]))
    print(f"{name}: {len(r['raw']['resources'])} resources", file=sys.stderr)
EOF
echo "wrote $fixtures/after" >&2
