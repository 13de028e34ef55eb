#!/usr/bin/env python3
"""Puppet 7.23's location checks over a corpus, as a fixture for puppet-loader's tests.

Runs `parse-dump --batch --validate -M MODULEPATH` (the oracle, /work/shared/oracle) over a
file list and writes, for every file Puppet refuses, its validation messages with line and
column: {"FILE": ["MESSAGE @L:C", ...]}. Files that validate are listed under "ok".

Usage: scripts/loader-location-fixture.py PARSE_DUMP MODULEPATH FILELIST > fixture.json
  e.g. scripts/loader-location-fixture.py /work/shared/oracle/parse-dump \\
         /usr/share/puppet/modules corpus-files.txt \\
         > crates/puppet-loader/tests/fixtures/corpus-locations.json
"""
import json
import re
import subprocess
import sys

parse_dump, modulepath, filelist = sys.argv[1:4]
out = subprocess.run([parse_dump, "--batch", filelist, "--validate", "-M", modulepath],
                     capture_output=True, text=True, check=True).stdout
LOC = re.compile(r"^(.*) \(file: .*?, line: (\d+), column: (\d+)\)$", re.S)
failed, ok = {}, []
for line in out.splitlines():
    d = json.loads(line)
    if d["ok"]:
        ok.append(d["file"])
        continue
    msgs = [g["message"] for g in d.get("logs", []) if g["level"] == "err"] or [d["error"]]
    items = []
    for m in msgs:
        mm = LOC.match(m)
        items.append(f"{mm.group(1)} @{mm.group(2)}:{mm.group(3)}" if mm else m)
    failed[d["file"]] = sorted(items)
print(json.dumps({"modulepath": modulepath, "failed": failed, "ok": ok}, indent=1, sort_keys=True))
