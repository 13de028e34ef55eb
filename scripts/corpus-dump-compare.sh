#!/usr/bin/env bash
# Compares our dump (`cargo run --release --example dump -- --jsonl`) with Puppet's
# (`parse-dump --batch`, the oracle running `puppet parser dump`) on every `.pp` file of the
# public module corpus, and prints how many agree. A file agrees when both dumps are equal,
# or both reject it. Needs Puppet 7.23, the oracle scripts and the corpus; CI has none of
# them and uses the fixtures of crates/puppet-syntax/tests/dump instead.
#
# Usage: scripts/corpus-dump-compare.sh [--verbose]
#   env: PARSE_DUMP (default /work/shared/oracle/parse-dump), CORPUS (default
#        /usr/share/puppet/modules), CORPUS_LIST (a file list; default: every .pp under CORPUS)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
oracle="${PARSE_DUMP:-/work/shared/oracle/parse-dump}"
corpus="${CORPUS:-/usr/share/puppet/modules}"
verbose="${1:-}"
if [ ! -x "$oracle" ] || [ ! -d "$corpus" ]; then
  echo "needs Puppet's parse-dump ($oracle) and the corpus ($corpus)" >&2
  exit 2
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ -n "${CORPUS_LIST:-}" ]; then
  cp "$CORPUS_LIST" "$work/list.txt"
elif [ -f "$(dirname "$oracle")/corpus-files.txt" ]; then
  cp "$(dirname "$oracle")/corpus-files.txt" "$work/list.txt"
else
  find -L "$corpus" -name '*.pp' -type f | sort > "$work/list.txt"
fi
"$oracle" --batch "$work/list.txt" > "$work/puppet.jsonl" 2>/dev/null
(cd "$here" && cargo run -q --release --example dump -- --jsonl $(cat "$work/list.txt")) > "$work/ours.jsonl"
python3 - "$work/puppet.jsonl" "$work/ours.jsonl" "$verbose" <<'PY'
import json, sys
def load(path):
    out = {}
    with open(path) as fh:
        for line in fh:
            if line.strip():
                r = json.loads(line)
                out[r["file"]] = r
    return out
puppet, ours = load(sys.argv[1]), load(sys.argv[2])
verbose = sys.argv[3] == "--verbose"
agree, differ = 0, []
for f, p in puppet.items():
    o = ours.get(f)
    if o is None:
        differ.append((f, "no output from us"))
    elif p["ok"] and o["ok"]:
        if p["dump"] == o["dump"]:
            agree += 1
        else:
            differ.append((f, "dumps differ"))
    elif not p["ok"] and not o["ok"]:
        agree += 1
    elif p["ok"]:
        differ.append((f, "we reject it: " + o.get("error", "")))
    else:
        differ.append((f, "Puppet rejects it: " + p.get("error", "")))
total = len(puppet)
for f, why in differ if verbose else []:
    print(f"DIFF {f}: {why}")
pct = 100.0 * agree / total if total else 0.0
print(f"corpus dump: {agree} of {total} files agree with Puppet ({pct:.2f}%)")
PY
