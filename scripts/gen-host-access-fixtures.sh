#!/usr/bin/env bash
# Regenerates what the real Puppet 7.23 says about generate() on the compiling host, used by
# tests/host_access.rs:
#
#   tests/fixtures/host-access/catalog.json
#       the catalog of `include generated` (tests/fixtures/host-access/modules) for node
#       gen01.example.com, compile-catalog's canonical form;
#   tests/fixtures/host-access/errors.json
#       for every line of tests/fixtures/host-access/errors.txt, the error Puppet gives for
#       `notify { 'x': message => LINE }`, as compile-catalog --json-errors prints it.
#
# Needs Puppet 7.23 and the oracle scripts (/work/shared/oracle or $ORACLE), python3, and
# /bin/echo, /bin/sh, /bin/false. CI does not run this; tests only read the fixtures.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
oracle="${ORACLE:-/work/shared/oracle}"
dir="$repo/tests/fixtures/host-access"
"$oracle/compile-catalog" --node gen01.example.com -M "$dir/modules" --with-logs \
  -e 'include generated' --pretty > "$dir/catalog.json"
python3 - "$oracle/compile-catalog" "$dir" <<'PY'
import json, subprocess, sys
tool, d = sys.argv[1], sys.argv[2]
out = []
for line in open(f"{d}/errors.txt"):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    code = f"notify {{ 'x': message => {line} }}"
    r = subprocess.run([tool, "--json-errors", "-e", code], capture_output=True, text=True)
    doc = json.loads(r.stdout)
    out.append({"expression": line, "code": code, "error": doc.get("error")})
with open(f"{d}/errors.json", "w") as f:
    json.dump(out, f, indent=2, ensure_ascii=False)
    f.write("\n")
PY
