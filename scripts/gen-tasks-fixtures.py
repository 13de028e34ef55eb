#!/usr/bin/env python3
"""Regenerates crates/puppet-syntax/tests/fixtures/tasks/expected.json: what Puppet 7.23's
parser says about each `.pp` file there in tasks mode (Bolt's plans): `puppet parser
validate --tasks FILE` (each error as [line, column, message], Puppet's "Language validation
logged N errors. Giving up" and the syntax error prefix left out) and, for files without an
`apply` (whose expression Puppet's dump prints as a raw object), `puppet parser dump --tasks
FILE` (the dump after its `--- FILE` header). tests/tasks.rs compares puppet-syntax's
`parse_tasks`, `validate::validate_tasks` and dump with them. Needs Puppet 7.23
(puppet-agent); CI only reads the JSON.

Usage: scripts/gen-tasks-fixtures.py
"""
import json
import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(os.path.dirname(HERE), "crates/puppet-syntax/tests/fixtures/tasks")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
ERROR = re.compile(r"^Error: (?:Could not parse for environment \w+: )?(.*) \(file: [^,]*, line: (\d+), column: (\d+)\)$")

expected = {}
for name in sorted(f for f in os.listdir(FIX) if f.endswith(".pp")):
    path = os.path.join(FIX, name)
    out = subprocess.run(["puppet", "parser", "validate", "--tasks", path],
                         capture_output=True, text=True)
    errors = []
    for line in ANSI.sub("", out.stdout + out.stderr).splitlines():
        m = ERROR.match(line)
        if m:
            errors.append([int(m.group(2)), int(m.group(3)), m.group(1)])
    entry = {"errors": errors}
    text = open(path).read()
    if "apply" not in text:
        dump = subprocess.run(["puppet", "parser", "dump", "--tasks", path],
                              capture_output=True, text=True).stdout
        entry["dump"] = ANSI.sub("", dump).split(name, 1)[-1].strip()
    expected[name] = entry
with open(os.path.join(FIX, "expected.json"), "w") as f:
    json.dump(expected, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"wrote {len(expected)} files to {FIX}/expected.json")
