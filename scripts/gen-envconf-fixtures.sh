#!/usr/bin/env bash
# Regenerates what the real Puppet 7.23 compiles for tests/fixtures/envconf/production, a
# directory environment whose module Ruby reads the environment through
# Puppet::Settings::EnvironmentConf and Dir.glob (as SIMP's compliance_markup backend does):
# writes tests/fixtures/envconf/expected.json, the message of its Notify[envconf] (paths
# relative to the environmentpath). scripts/control-repo-oracle.rb sets Puppet up (an
# environmentpath holding the directory as `production`). Needs Puppet 7.23 (Debian
# puppet-agent) and python3; CI does not run this, tests/environment_conf.rs reads the file.
#
# Usage: scripts/gen-envconf-fixtures.sh
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
fix="$repo/tests/fixtures/envconf"
echo "{\"id\":\"envconf\",\"op\":\"catalog\",\"env\":\"$fix/production\",\"node\":\"node.example.com\",\"facts\":\"$repo/tests/fixtures/hiera-ruby/env/facts/node.example.com.json\"}" \
  | ruby "$repo/scripts/control-repo-oracle.rb" \
  | python3 -c '
import json, sys
r = json.loads(sys.stdin.readline())
if not r.get("ok"):
    sys.exit("Puppet failed: " + r.get("error", ""))
res = [x for x in r["raw"]["resources"] if x["type"] == "Notify" and x["title"] == "envconf"]
json.dump({"message": res[0]["parameters"]["message"], "logs": r.get("logs", [])}, sys.stdout, indent=1)
print()' > "$fix/expected.json"
echo "wrote $fix/expected.json" >&2
