#!/usr/bin/env python3
"""Counts the corpus call sites of the modules' Ruby functions.

Lists every module's Ruby functions (4.x `lib/puppet/functions/**`, 3.x
`lib/puppet/parser/functions/*.rb`), then counts in all `.pp` and `.epp` files
of the modules the calls `name(...)`, `$x.name(...)` and `$x.name` (method call
without arguments). Prints JSON: [{name, module, api, calls}] sorted by calls.

Usage: corpus_calls.py [MODULES_DIR]   (default /usr/share/puppet/modules)
"""
import json, os, re, sys

root = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/puppet/modules"
builtins = set("""abs alert all annotate any assert_type binary_file break call camelcase capitalize
ceiling chomp chop compare contain convert_to crit debug defined dig downcase each emerg empty epp
err eyaml_lookup_key filter find_file find_template flatten floor get getvar group_by hiera
hiera_array hiera_hash hiera_include hocon_data import include index info inline_epp join json_data
keys length lest lookup lstrip map match max min module_directory new next notice partition reduce
regsubst require return reverse_each round rstrip scanf size slice sort split step strftime strip
then tree_each type unique unwrap upcase values versioncmp warning with yaml_data create_resources
digest fail file fqdn_rand generate inline_template md5 realize sha1 sha256 shellquote sprintf tag
tagged template""".split())

funcs = {}
for mod in sorted(os.listdir(root)):
    for sub, api in (("lib/puppet/functions", "4.x"), ("lib/puppet/parser/functions", "3.x")):
        d = os.path.join(root, mod, sub)
        for dp, _, fs in os.walk(d):
            for f in sorted(fs):
                if not f.endswith(".rb"):
                    continue
                src = open(os.path.join(dp, f), encoding="utf-8", errors="replace").read()
                if api == "4.x":
                    m = re.search(r"create_function\(\s*:?['\"]?([\w:]+)", src)
                else:
                    m = re.search(r"newfunction\(\s*:?['\"]?(\w+)", src)
                if not m:
                    continue
                name = m.group(1).lower()
                key = (mod, name)
                if key in funcs and funcs[key]["api"] == "4.x":
                    continue
                funcs[key] = {"name": name, "module": mod, "api": api,
                              "file": os.path.relpath(os.path.join(dp, f), os.path.join(root, mod)),
                              "shadowed_by_builtin": name in builtins}

texts = []
for dp, _, fs in os.walk(root, followlinks=True):
    for f in fs:
        if f.endswith(".pp") or f.endswith(".epp"):
            texts.append(open(os.path.join(dp, f), encoding="utf-8", errors="replace").read())
# strip comments (naive: '#' to end of line outside strings is close enough for counting)
texts = [re.sub(r"(?m)^\s*#.*$", "", t) for t in texts]
big = "\n".join(texts)

names = sorted({v["name"] for v in funcs.values()})
counts = {}
for n in names:
    pat = re.escape(n)
    call = re.compile(r"(?<![\w$:])(?:::)?" + pat + r"\s*\(")
    meth = re.compile(r"\." + pat + r"(?![\w:])")
    defn = re.compile(r"function\s+(?:::)?" + pat + r"\s*\(")
    counts[n] = len(call.findall(big)) + len(meth.findall(big)) - len(defn.findall(big))

out = []
for v in funcs.values():
    v["calls"] = counts[v["name"]]
    out.append(v)
out.sort(key=lambda v: (-v["calls"], v["name"], v["module"]))
json.dump(out, sys.stdout, indent=1)
