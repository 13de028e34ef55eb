#!/usr/bin/env bash
# Regenerates what the real Puppet 7.23 compiles for the environments of
# tests/fixtures/legacy-envs (each a directory environment, compiled by
# scripts/control-repo-oracle.rb for node.example.com with tests/fixtures/legacy-envs/facts.json):
# environment functions where Puppet's global environment loader finds them, and the deprecated
# data providers (an environment's `environment_data_provider`, a module's `data_provider` in
# metadata.json). Writes tests/fixtures/legacy-envs/expected.json: per environment, the
# notices and warnings logged, or the error (the environment directory written <environment>).
# Needs Puppet 7.23 (Debian puppet-agent) and python3. CI does not run this; tests/legacy_envs.rs
# only reads the fixture.
#
# Usage: scripts/gen-legacy-env-fixtures.sh
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
fix="$repo/tests/fixtures/legacy-envs"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for d in "$fix"/*/; do
  name="$(basename "$d")"
  printf '{"id": "%s", "op": "catalog", "env": "%s", "node": "node.example.com", "facts": "%s"}\n' \
    "$name" "${d%/}" "$fix/facts.json"
done > "$tmp/cases.jsonl"
ruby "$repo/scripts/control-repo-oracle.rb" < "$tmp/cases.jsonl" > "$tmp/results.jsonl"
python3 - "$fix" "$tmp/results.jsonl" <<'PY'
import json, re, sys
fix, results = sys.argv[1:3]
envpath = re.compile(r"/[^\"'\s]*/envs-\d+/production")
def clean(text):
    text = envpath.sub("<environment>", text)
    return re.sub(re.escape(fix) + r"/[\w-]+", "<environment>", text)
out = {}
for line in open(results):
    r = json.loads(line)
    logs = r.get("logs", [])
    e = {"notices": [l["message"] for l in logs if l["level"] == "notice"],
         "warnings": [clean(l["message"]) for l in logs if l["level"] == "warning"]}
    if not r.get("ok"):
        e["error"] = clean(r.get("error", ""))
    out[r["id"]] = e
with open(f"{fix}/expected.json", "w") as f:
    json.dump(out, f, indent=1, sort_keys=True, ensure_ascii=False)
    f.write("\n")
print(f"wrote {fix}/expected.json: {len(out)} environments", file=sys.stderr)
PY
