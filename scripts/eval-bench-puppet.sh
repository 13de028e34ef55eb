#!/usr/bin/env bash
# Times the expression-evaluation workloads of benches/eval.rs in Puppet 7.23 in-process
# (compile-catalog -e CODE --repeat N -q: median of N compiles in one Ruby process),
# subtracts the median of an empty program (compile overhead) and prints the ratio
# Puppet / puppet-eval against criterion's medians in target/criterion/eval_*/new/estimates.json.
#
# Usage: scripts/eval-bench-puppet.sh [--repeat N]    (run `cargo bench --bench eval` first)
# Env: ORACLE (default /work/shared/oracle), CARGO_TARGET_DIR (default ./target).
set -euo pipefail
cd "$(dirname "$0")/.."
REPEAT=10
[[ "${1:-}" == "--repeat" ]] && REPEAT="$2"
ORACLE="${ORACLE:-/work/shared/oracle}"
TARGET="${CARGO_TARGET_DIR:-target}"

# Extract (name, program) from benches/eval.rs's PROGRAMS so both sides run the same text.
python3 - "$ORACLE" "$REPEAT" "$TARGET" <<'PY'
import json, os, re, subprocess, sys
oracle, repeat, target = sys.argv[1], sys.argv[2], sys.argv[3]
src = open("benches/eval.rs").read()
progs = re.findall(r'\(\s*"(\w+)",\s*"((?:[^"\\]|\\.)*)",\s*"([^"]*)",?\s*\)', src)

def puppet_median(code):
    r = subprocess.run([os.path.join(oracle, "compile-catalog"), "-e", code, "--repeat", repeat, "-q"],
                       capture_output=True, text=True)
    line = [l for l in r.stderr.splitlines() if l.startswith("{")][-1]
    d = json.loads(line)
    if not d.get("ok", True):
        sys.exit(f"puppet failed: {r.stderr}")
    return d["median_ms"]

empty = puppet_median("")
print(f"Puppet 7.23 empty program: median {empty:.2f} ms (subtracted), --repeat {repeat}")
print(f"{'workload':<22}{'puppet ms':>12}{'- empty':>10}{'ours ms':>10}{'ratio':>9}")
for name, prog, _expected in progs:
    code = json.loads('"' + prog + '"')
    p = puppet_median(code)
    net = p - empty
    est = os.path.join(target, "criterion", f"eval_{name}", "new", "estimates.json")
    ours = json.load(open(est))["median"]["point_estimate"] / 1e6 if os.path.exists(est) else None
    if ours:
        print(f"{name:<22}{p:>12.2f}{net:>10.2f}{ours:>10.3f}{net / ours:>8.1f}x")
    else:
        print(f"{name:<22}{p:>12.2f}{net:>10.2f}{'(no criterion estimate: run cargo bench --bench eval)':>10}")
PY
