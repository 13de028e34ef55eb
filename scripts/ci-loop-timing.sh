#!/usr/bin/env bash
# Times the whole CI loop of a control repository, ours against octocatalog-diff's approach,
# in the same run on the same machine:
#
#   1. makes N facts files (default 100) from examples/control-repo/facts: each a copy of one
#      of the repository's four nodes with its own certname (web017.example.com, ...: web
#      nodes still match the `node /^web\d+/` definition, the others fall to `default`),
#      its own IP addresses, and the OS family switched (Debian <-> RedHat) on every third;
#   2. makes the "new" environment: a copy of the repository with a change (a package added
#      in common data, the motd text changed);
#   3. times (a) ours: `catalog_diff --environment OLD --environment NEW --nodes DIR`
#      (release build, one process, every node compiled with both environments on all
#      cores, compared and grouped);
#   4. times (b) octocatalog-diff's approach: one Puppet process per node and environment
#      (what `octocatalog-diff` does: it runs `puppet catalog compile` for the node in each
#      environment), here scripts/control-repo-oracle.rb fed one case (the same directory
#      environment, read by Puppet's own environment loader), started N x 2 times, as many
#      at a time as there are cores (xargs -P), which is kinder to Puppet than
#      octocatalog-diff's one node at a time; Puppet's side does no diff at all;
#   5. and (c) Puppet's lower bound: one Ruby process that loads Puppet once and forks a
#      child per compile (the oracle's batch mode), one compile at a time.
#
# With --puppet-sample K, (b) runs for the first K nodes only and is scaled to N (linear:
# every process does the same work); the printout says so.
#
# Prints the times and the ratios (b)/(a) and (c)/(a). Needs Puppet 7.23's ruby, python3,
# cargo. Not run by CI.
#
# Usage: scripts/ci-loop-timing.sh [--nodes N] [--puppet-sample K] [--keep DIR]
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
n=100
sample=""
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) n="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    --puppet-sample) sample="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
ruby="${RUBY:-/opt/puppetlabs/puppet/bin/ruby}"
[ -x "$ruby" ] || ruby=ruby
cores="$(nproc)"
work="${keep:-$(mktemp -d)}"
mkdir -p "$work"
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT

old="$work/old"
new="$work/new"
facts="$work/facts"
rm -rf "$old" "$new" "$facts"
cp -r "$repo/examples/control-repo" "$old"
cp -r "$repo/examples/control-repo" "$new"
rm -rf "$old/facts" "$new/facts"
python3 - "$repo/examples/control-repo/facts" "$facts" "$n" <<'PY'
import json, os, sys
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(out)
bases = sorted(f[:-5] for f in os.listdir(src) if f.endswith(".json"))
texts = {b: open(f"{src}/{b}.json").read() for b in bases}
families = {"Debian": ("RedHat", "Rocky"), "RedHat": ("Debian", "Debian")}
for i in range(n):
    base = bases[i % len(bases)]
    short = base.split(".")[0]
    role = short.rstrip("0123456789")
    name = f"{role}{i:03d}"
    cert = f"{name}.example.com"
    ip = f"198.51.{100 + i // 250}.{i % 250 + 1}"
    old_ip = json.loads(texts[base])["networking"]["ip"]
    text = texts[base].replace(base, cert).replace(f'"{short}"', f'"{name}"').replace(old_ip, ip)
    facts = json.loads(text)
    if i % 3 == 2:
        fam, osname = families[facts["os"]["family"]]
        facts["os"]["family"], facts["os"]["name"] = fam, osname
    with open(f"{out}/{cert}.json", "w") as f:
        json.dump(facts, f, indent=2)
PY
python3 - "$new" <<'PY'
import sys
d = sys.argv[1]
p = f"{d}/data/common.yaml"
t = open(p).read()
assert t.count("  - vim\n") == 1
t = t.replace("  - vim\n", "  - vim\n  - htop\n").replace("is managed by Puppet", "is managed by Puppet (CI)")
open(p, "w").write(t)
PY

echo "+ cargo build --release --example catalog_diff" >&2
(cd "$repo" && cargo build --release --example catalog_diff >&2)
bin="$repo/target/release/examples/catalog_diff"

now() { date +%s.%N; }

t0=$(now)
set +e
"$bin" --environment "$old" --environment "$new" --nodes "$facts" > "$work/ours.txt" 2> "$work/ours.err"
status=$?
set -e
t1=$(now)
ours=$(echo "$t1 - $t0" | bc)
echo "(a) ours: catalog_diff over $n nodes x 2 environments: ${ours} s (exit $status)" >&2
head -12 "$work/ours.txt" >&2

# One case per line: every node in both environments.
python3 - "$old" "$new" "$facts" > "$work/cases.jsonl" <<'PY'
import json, os, sys
old, new, facts = sys.argv[1:4]
for f in sorted(os.listdir(facts)):
    node = f[:-5]
    for label, env in (("old", old), ("new", new)):
        print(json.dumps({"id": [label, node], "op": "catalog", "env": env, "node": node,
                          "facts": f"{facts}/{f}"}))
PY
oracle="$repo/scripts/control-repo-oracle.rb"
rm -rf "$work/cases"
mkdir -p "$work/cases"
k="${sample:-$n}"
[ "$k" -le "$n" ] || k="$n"
head -n $((k * 2)) "$work/cases.jsonl" | split -l 1 -d -a 4 - "$work/cases/c"

t0=$(now)
ls "$work/cases"/c* | xargs -P "$cores" -I{} sh -c "'$ruby' '$oracle' < {} > {}.out"
t1=$(now)
measured=$(echo "$t1 - $t0" | bc)
perproc=$(echo "$measured * $n / $k" | bc -l)
failed=$(cat "$work/cases"/*.out | grep -c '"ok":false' || true)
echo "(b) Puppet, one process per node and environment ($((k * 2)) processes, $cores at a time): ${measured} s ($failed failed); for $n nodes: $perproc s" >&2

t0=$(now)
"$ruby" "$oracle" < "$work/cases.jsonl" > "$work/batch.out"
t1=$(now)
batch=$(echo "$t1 - $t0" | bc)
echo "(c) Puppet, one process forking a child per compile (sequential): ${batch} s" >&2

printf 'nodes %s, cores %s\nours %.2f s\npuppet per process %.1f s (measured on %s nodes; ratio %.0fx)\npuppet forking batch %.1f s (ratio %.0fx)\n' \
  "$n" "$cores" "$ours" "$perproc" "$k" "$(echo "$perproc / $ours" | bc -l)" "$batch" "$(echo "$batch / $ours" | bc -l)"
