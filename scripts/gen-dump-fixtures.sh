#!/usr/bin/env bash
# Regenerates crates/puppet-syntax/tests/dump/*.dump from the real Puppet: each `.pp` input's
# expected output is what `puppet parser dump` prints for it (via the oracle's `parse-dump`).
# Needs Puppet 7.23 and the oracle scripts; CI does not run this, it only compares against
# the committed `.dump` files (crates/puppet-syntax/tests/dump.rs).
#
# Usage: scripts/gen-dump-fixtures.sh [PARSE_DUMP]   (default /work/shared/oracle/parse-dump)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
oracle="${1:-${PARSE_DUMP:-/work/shared/oracle/parse-dump}}"
dir="$here/crates/puppet-syntax/tests/dump"
if [ ! -x "$oracle" ]; then
  echo "parse-dump not found at $oracle (pass its path as the first argument)" >&2
  exit 2
fi
n=0
for pp in "$dir"/*.pp; do
  out="${pp%.pp}.dump"
  if ! "$oracle" "$pp" > "$out.tmp"; then
    echo "Puppet rejects $pp:" >&2
    cat "$out.tmp" >&2
    rm -f "$out.tmp"
    exit 1
  fi
  mv "$out.tmp" "$out"
  n=$((n + 1))
done
echo "wrote $n .dump files in $dir"
