#!/usr/bin/env bash
# Compiles `include CLASS` with the real Puppet 7.23 for every class of a module path (default
# the corpus, /usr/share/puppet/modules) with the facts of web01 (ORACLE/facts/
# debian12-web01.json, certname web01.example.com), one forked compile per class
# (`compile-catalog --batch`), and writes Puppet's answers as JSON lines: the canonical catalog
# or `{"ok":false,"error":...}`, each with `"id": CLASS`.
#
# The classes are listed by this project's loader (`cargo run --example modules -- --format
# json`), which finds the same classes as Puppet's (crates/puppet-loader/tests/corpus.rs).
# The output is the input of
#   cargo run --release --example compare_nodes -- --classes OUT [--verbose]
# which compiles each class the same way here and counts equal catalogs, catalogs that
# differ, and classes only one side compiles. It is not committed (11 MB for the corpus):
# the comparison needs the corpus anyway. About 6 minutes for the 772 corpus classes.
#
# Needs: Puppet 7.23 (Debian puppet-agent), the oracle scripts (compile-catalog, facts/; see
# the oracle README) and the module corpus. CI does not run this.
#
# Usage: scripts/gen-class-catalogs.sh [--oracle DIR] [--modulepath PATH] [--out FILE]
#                                      [--facts NAME --node CERTNAME]
#   defaults: ORACLE = the directory of compile-catalog on PATH, else ../shared/oracle next
#   to this checkout; PATH = /usr/share/puppet/modules; FILE = target/class-catalogs.jsonl;
#   NAME = debian12-web01.json (in ORACLE/facts), CERTNAME = web01.example.com. Compare
#   other facts with `compare_nodes --classes FILE --class-facts NAME --class-node CERTNAME`.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"

oracle="${ORACLE:-}"
modulepath="/usr/share/puppet/modules"
out="$repo/target/class-catalogs.jsonl"
facts="debian12-web01.json"
node="web01.example.com"
while [ $# -gt 0 ]; do
  case "$1" in
    --oracle) oracle="$2"; shift 2 ;;
    --modulepath) modulepath="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --facts) facts="$2"; shift 2 ;;
    --node) node="$2"; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
if [ -z "$oracle" ]; then
  if cc="$(command -v compile-catalog 2>/dev/null)"; then
    oracle="$(dirname "$cc")"
  else
    oracle="$repo/../shared/oracle"
  fi
fi
[ -x "$oracle/compile-catalog" ] || { echo "no compile-catalog in $oracle" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$repo" && cargo run --release -q --example modules -- --modulepath "$modulepath" --format json) \
  > "$work/modules.json"
python3 - "$work/modules.json" > "$work/batch.jsonl" <<'EOF'
import json, sys
defs = json.load(open(sys.argv[1]))["definitions"]
for name in sorted(d["name"] for d in defs if d["kind"] == "class"):
    print(json.dumps({"id": name, "code": f"include {name}"}))
EOF
mkdir -p "$(dirname "$out")"
echo "compiling $(wc -l < "$work/batch.jsonl") classes with Puppet..." >&2
"$oracle/compile-catalog" --batch "$work/batch.jsonl" -M "$modulepath" \
  -f "$oracle/facts/$facts" -n "$node" > "$out"
echo "wrote $out" >&2
