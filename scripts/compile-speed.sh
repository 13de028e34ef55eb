#!/usr/bin/env bash
# Compile speed of the five public nodes, ours against Puppet 7.23's, in one run.
#
# For each node: Puppet's `compile-catalog --repeat N --reuse-env` (the environment and its
# parsed code reused, as a long-running server does; its timings go to stderr) and our
# `profile_node` (best of five batches of N in-process compiles sharing one loaded
# environment). Needs Puppet 7.23, the module corpus in /usr/share/puppet/modules and the
# oracle directory (ORACLE, default ../shared/oracle). Usage: scripts/compile-speed.sh [N]
set -euo pipefail
N=${1:-10}
ORACLE=${ORACLE:-$(cd "$(dirname "$0")/../../shared/oracle" && pwd)}
cd "$(dirname "$0")/.."
cargo build --release --example profile_node -q
for node in ntp db web keystone kitchensink; do
  facts=debian12-web01.json; cert=web01.example.com
  if [ "$node" = keystone ]; then facts=debian12-ctl01.json; cert=ctl01.example.com; fi
  echo "== $node"
  "$ORACLE/compile-catalog" -q --repeat "$N" --reuse-env -M /usr/share/puppet/modules \
    -f "$ORACLE/facts/$facts" -n "$cert" -m "$ORACLE/nodes/$node.pp" 2>&1 >/dev/null | tail -3
  ORACLE="$ORACLE" ./target/release/examples/profile_node "$node" "$N"
done
