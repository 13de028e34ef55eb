#!/usr/bin/env python3
"""Graph differential testing: generated manifests run through the real `puppet apply`.

Each case is a manifest made from a seed (Python's `random.Random(seed)`, so the same seed
gives the same manifest): notify and exec resources at top level, in classes and in
defined-type instances (some declared inside classes), relationships written as
metaparameters (`before`, `require`, `notify`, `subscribe`) and as chaining arrows
(`->`, `~>`, `<-`, `<~`) between resources, classes and define instances, execs that
fail (`/bin/false`), execs that are already in sync (`unless => '/bin/true'`,
`onlyif => '/bin/false'`), `refreshonly` execs whose refresh fails, execs with a
`refresh` command, resources with `noop => true`, a few dependency cycles, and runs with
`--noop`. Beside the manifest the generator writes the scenario the offline simulation
needs (which resources are in sync, fail when applied, fail when refreshed), derived from
exec semantics: that is the knowledge a real run has and a simulation must be told.

For each case the script asks Puppet 7.23 for two things (see /work/shared/oracle/README.md):
  * the catalog: `compile-catalog --raw --batch` (Puppet's own catalog JSON; `file` and
    `line` are dropped to keep the fixture small);
  * the run: `apply-order [--noop]` (a real `puppet apply` in a sandbox; 2-5 s each).
and stores the answers as one JSON line per case in the fixture that
`crates/puppet-graph/tests/graph_diff.rs` reads:
  {"id", "seed", "noop", "manifest", "scenario": {"in_sync", "fail", "fail_refresh"},
   "catalog": {...}, "puppet": {"evaluation_order", "changed", "failed",
   "failed_to_restart", "skipped", "refreshed", "would_refresh", "scheduled_refreshes",
   "dependency_failures", "cycles"}}

Usage:
  scripts/graph-diff.py gen  --seed S --count N DIR      write DIR/<id>.pp and DIR/<id>.json
  scripts/graph-diff.py run  DIR [--jobs 2]              ask Puppet (resumable: cases with an
                                                         answer are skipped; runs at nice 10)
  scripts/graph-diff.py fixture DIR OUT.jsonl            assemble the fixture
  scripts/graph-diff.py all  --seed S --count N DIR OUT.jsonl   the three in a row
The committed fixture was made with
  scripts/graph-diff.py all --seed 1 --count 600 /tmp/graph-diff \\
      crates/puppet-graph/tests/fixtures/graph_diff.jsonl
Needs Puppet 7.23 (puppet-agent), bubblewrap and the oracle scripts ($ORACLE, default
../shared/oracle next to this checkout). CI never runs this; the test reads the fixture.
"""

import argparse
import concurrent.futures
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ORACLE = os.environ.get("ORACLE", os.path.join(ROOT, "..", "..", "shared", "oracle"))
if not os.path.isdir(ORACLE):
    ORACLE = os.path.join(ROOT, "..", "shared", "oracle")

PUPPET_KEYS = ["evaluation_order", "changed", "failed", "failed_to_restart", "skipped",
               "refreshed", "would_refresh", "scheduled_refreshes", "dependency_failures",
               "cycles"]


# --- generator ----------------------------------------------------------------------------

class Res:
    """One leaf resource: its Puppet text and what a real run does with it."""

    def __init__(self, rng, title, unit):
        self.title = title
        self.unit = unit
        kind = rng.choices(
            ["notify", "exec_ok", "exec_fail", "ro_ok", "ro_fail", "sync", "refresh_cmd",
             "returns"],
            weights=[24, 22, 7, 14, 5, 12, 6, 3])[0]
        self.kind = kind
        self.type = "Notify" if kind == "notify" else "Exec"
        self.attrs = []
        self.in_sync = False
        self.fails = False
        self.refresh_fails = False
        if kind == "notify":
            if rng.random() < 0.3:
                self.attrs.append(("message", "'msg %s'" % title))
        else:
            cmd = "/bin/true"
            if kind == "exec_ok":
                pass
            elif kind == "exec_fail":
                cmd = "/bin/false"
                self.fails = True
                # Refreshing an exec without a `refresh` command runs its command again.
                self.refresh_fails = True
            elif kind == "ro_ok":
                self.attrs.append(("refreshonly", "true"))
            elif kind == "ro_fail":
                cmd = "/bin/false"
                self.attrs.append(("refreshonly", "true"))
                self.refresh_fails = True
            elif kind == "sync":
                cmd = rng.choice(["/bin/true", "/bin/false"])
                if rng.random() < 0.5:
                    self.attrs.append(("unless", "'/bin/true'"))
                else:
                    self.attrs.append(("onlyif", "'/bin/false'"))
                if rng.random() < 0.3:
                    self.attrs.append(("refreshonly", "true"))
                self.in_sync = True
            elif kind == "refresh_cmd":
                # A `refresh` command's status is never checked: its refresh cannot fail.
                self.attrs.append(("refresh", rng.choice(["'/bin/true'", "'/bin/false'"])))
                if rng.random() < 0.4:
                    self.attrs.append(("refreshonly", "true"))
            elif kind == "returns":
                cmd = "/bin/false"
                self.attrs.append(("returns", "[0, 1]"))
            self.attrs.insert(0, ("command", "'%s'" % cmd))
        if rng.random() < 0.06:
            self.attrs.append(("noop", "true"))

    def ref(self):
        return "%s['%s']" % (self.type, self.title)

    def plain_ref(self):
        return "%s[%s]" % (self.type, self.title)


class Unit:
    """Top level, a class or a define instance: a group of resources."""

    def __init__(self, kind, name, parent=None):
        self.kind = kind          # "top", "class", "define"
        self.name = name          # class name, or (define type, instance title)
        self.parent = parent
        self.resources = []

    def top(self):
        u = self
        while u.parent is not None and u.parent.kind != "top":
            u = u.parent
        return u

    def ref(self):
        if self.kind == "class":
            return "Class['%s']" % self.name
        if self.kind == "define":
            return "%s['%s']" % (self.name[0].capitalize(), self.name[1])
        return None


REL_PARAMS = ["before", "require", "notify", "subscribe"]
ARROWS = ["->", "~>", "<-", "<~"]


def generate(seed):
    """The manifest and scenario of case `seed`."""
    rng = random.Random(seed)
    top = Unit("top", None)
    units = [top]
    classes = []
    n_classes = rng.randint(0, 3)
    for i in range(n_classes):
        u = Unit("class", "gc%d" % i, top)
        classes.append(u)
        units.append(u)
    n_defines = rng.randint(0, 2)
    define_types = ["gd%d" % i for i in range(n_defines)]
    instances = []
    for d in define_types:
        for j in range(rng.randint(1, 2)):
            parent = top if not classes or rng.random() < 0.6 else rng.choice(classes)
            u = Unit("define", (d, "%s_i%d" % (d, j)), parent)
            instances.append(u)
            units.append(u)
    # Define bodies: the same resources (by suffix) in every instance of a type.
    define_bodies = {}
    for d in define_types:
        body = []
        for k in range(rng.randint(1, 3)):
            body.append(Res(rng, "${title}_r%d" % k, None))
        define_bodies[d] = body
    counter = [0]

    def fresh(unit):
        counter[0] += 1
        r = Res(rng, "r%d" % counter[0], unit)
        unit.resources.append(r)
        return r

    for u in [top] + classes:
        for _ in range(rng.randint(1 if u.kind == "top" else 1, 5 if u.kind == "top" else 3)):
            fresh(u)
    for inst in instances:
        body = define_bodies[inst.name[0]]
        for tmpl in body:
            r = Res.__new__(Res)
            r.__dict__.update(tmpl.__dict__)
            r.title = tmpl.title.replace("${title}", inst.name[1])
            r.unit = inst
            r.attrs = list(tmpl.attrs)
            inst.resources.append(r)

    # Relationships. Units are ordered by a random rank of their top-level ancestor; an
    # edge goes from a lower rank to a higher one (between different top-level groups) or
    # along the written order of resources in one unit, so the graph is acyclic unless a
    # cycle is added on purpose.
    groups = [u for u in units if u.top() is u and u.kind != "top"]
    group_rank = {id(g): i for i, g in enumerate(rng.sample(groups, len(groups)))}
    top_rank = {}
    for i, r in enumerate(rng.sample(top.resources, len(top.resources))):
        top_rank[id(r)] = i

    def rank_of(node):
        """(group rank, position) of a resource or unit for the acyclic order."""
        if isinstance(node, Res):
            g = node.unit.top()
            if g.kind == "top":
                return (top_rank[id(node)] * 10, 0)
            return (group_rank[id(g)] * 10 + 5, node.unit.resources.index(node))
        g = node.top()
        return (group_rank[id(g)] * 10 + 5, -1)

    nodes = []
    for u in units:
        nodes.extend(u.resources)
        if u.kind != "top":
            nodes.append(u)

    def related(a, b):
        """Edges between a unit and what it contains, or inside one group across units,
        would make cycles through containment."""
        ga = a.unit.top() if isinstance(a, Res) else a.top()
        gb = b.unit.top() if isinstance(b, Res) else b.top()
        if ga.kind == "top" or gb.kind == "top":
            return False
        if ga is not gb:
            return False
        # Same group: only leaf-to-leaf inside the same unit.
        return not (isinstance(a, Res) and isinstance(b, Res) and a.unit is b.unit)

    edges = []
    n_edges = rng.randint(0, min(10, len(nodes) * 2))
    for _ in range(n_edges * 3):
        if len(edges) >= n_edges or len(nodes) < 2:
            break
        a, b = rng.sample(nodes, 2)
        if related(a, b):
            continue
        if rank_of(a) > rank_of(b):
            a, b = b, a
        if rank_of(a) == rank_of(b):
            continue
        edges.append((a, b))
    cyclic = False
    if edges and rng.random() < 0.04:
        a, b = rng.choice(edges)
        edges.append((b, a))
        cyclic = True

    # Each edge a-before-b is written as a metaparameter on a leaf, or as an arrow.
    meta = {}   # id(res) -> [(param, ref)]
    arrows = []
    for a, b in edges:
        refresh = rng.random() < 0.45
        how = rng.random()
        if how < 0.5 and isinstance(a, Res) and a.unit.kind != "define":
            meta.setdefault(id(a), []).append(("notify" if refresh else "before", b))
        elif how < 0.75 and isinstance(b, Res) and b.unit.kind != "define":
            meta.setdefault(id(b), []).append(("subscribe" if refresh else "require", a))
        else:
            if rng.random() < 0.5:
                arrows.append((a, "~>" if refresh else "->", b))
            else:
                arrows.append((b, "<~" if refresh else "<-", a))

    def ref_of(node):
        return node.ref()

    def res_text(r, indent):
        attrs = list(r.attrs)
        by_param = {}
        for p, target in meta.get(id(r), []):
            by_param.setdefault(p, []).append(ref_of(target))
        for p, refs in by_param.items():
            attrs.append((p, refs[0] if len(refs) == 1 else "[%s]" % ", ".join(refs)))
        title = r.title
        q = '"' if "$" in title else "'"
        if not attrs:
            return "%s%s { %s%s%s: }\n" % (indent, r.type.lower(), q, title, q)
        width = max(len(k) for k, _ in attrs)
        body = "".join("%s  %s => %s,\n" % (indent, k.ljust(width), v) for k, v in attrs)
        return "%s%s { %s%s%s:\n%s%s}\n" % (indent, r.type.lower(), q, title, q, body, indent)

    out = ["# graph-diff case %d\n" % seed]
    for d in define_types:
        out.append("define %s() {\n" % d)
        for tmpl in define_bodies[d]:
            out.append(res_text(tmpl, "  "))
        out.append("}\n")
    for c in classes:
        out.append("class %s {\n" % c.name)
        for r in c.resources:
            out.append(res_text(r, "  "))
        for inst in instances:
            if inst.parent is c:
                out.append("  %s { '%s': }\n" % inst.name)
        out.append("}\n")
    for c in classes:
        form = rng.random()
        if form < 0.6:
            out.append("include %s\n" % c.name)
        elif form < 0.85:
            out.append("class { '%s': }\n" % c.name)
        else:
            out.append("contain %s\n" % c.name)
    for inst in instances:
        if inst.parent is top:
            out.append("%s { '%s': }\n" % inst.name)
    for r in top.resources:
        out.append(res_text(r, ""))
    for a, arrow, b in arrows:
        out.append("%s %s %s\n" % (ref_of(a), arrow, ref_of(b)))

    leaves = [r for u in units for r in u.resources]
    scenario = {
        "in_sync": [r.plain_ref() for r in leaves if r.in_sync],
        "fail": [r.plain_ref() for r in leaves if r.fails],
        "fail_refresh": [r.plain_ref() for r in leaves if r.refresh_fails],
    }
    noop = rng.random() < 0.15
    return {"id": "g%05d" % seed, "seed": seed, "noop": noop, "cyclic": cyclic,
            "manifest": "".join(out), "scenario": scenario}


# --- driving Puppet -----------------------------------------------------------------------

def cmd_gen(args):
    os.makedirs(args.dir, exist_ok=True)
    for seed in range(args.seed, args.seed + args.count):
        case = generate(seed)
        with open(os.path.join(args.dir, case["id"] + ".pp"), "w") as f:
            f.write(case["manifest"])
        with open(os.path.join(args.dir, case["id"] + ".json"), "w") as f:
            json.dump(case, f)
    print("wrote %d cases to %s" % (args.count, args.dir))


def case_ids(d):
    return sorted(f[:-5] for f in os.listdir(d)
                  if f.endswith(".json") and not f.endswith(".catalog.json")
                  and not f.endswith(".apply.json"))


def apply_one(d, cid):
    case = json.load(open(os.path.join(d, cid + ".json")))
    cmd = ["nice", "-n", "10", os.path.join(ORACLE, "apply-order"), "--timeout", "120"]
    if case["noop"]:
        cmd.append("--noop")
    cmd.append(os.path.join(d, cid + ".pp"))
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        return cid, "apply-order exit %d: %s" % (p.returncode, p.stderr.strip()[:300])
    with open(os.path.join(d, cid + ".apply.json.tmp"), "w") as f:
        f.write(p.stdout)
    os.replace(os.path.join(d, cid + ".apply.json.tmp"), os.path.join(d, cid + ".apply.json"))
    return cid, None


def cmd_run(args):
    d = args.dir
    ids = case_ids(d)
    need_cat = [c for c in ids if not os.path.exists(os.path.join(d, c + ".catalog.json"))]
    if need_cat:
        batch = "".join(json.dumps({"id": c, "manifest": os.path.abspath(os.path.join(d, c + ".pp")),
                                    "node": "apply-order.example.com"}) + "\n" for c in need_cat)
        p = subprocess.run(["nice", "-n", "10", os.path.join(ORACLE, "compile-catalog"), "--raw",
                            "--batch", "-", "--no-fork"],
                           input=batch, capture_output=True, text=True, check=True)
        for line in p.stdout.splitlines():
            r = json.loads(line)
            with open(os.path.join(d, r["id"] + ".catalog.json"), "w") as f:
                json.dump(r, f)
        print("compiled %d catalogs" % len(need_cat), flush=True)
    todo = [c for c in ids if not os.path.exists(os.path.join(d, c + ".apply.json"))]
    errors = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for n, (cid, err) in enumerate(ex.map(lambda c: apply_one(d, c), todo), 1):
            if err:
                errors += 1
                print("%s: %s" % (cid, err), file=sys.stderr, flush=True)
            if n % 25 == 0:
                print("applied %d/%d" % (n, len(todo)), flush=True)
    print("applied %d cases (%d errors)" % (len(todo), errors))
    return 1 if errors else 0


def trim_catalog(cat):
    for r in cat.get("resources", []):
        r.pop("file", None)
        r.pop("line", None)
    for k in ("version", "code_id", "catalog_uuid", "catalog_format", "environment", "name"):
        cat.pop(k, None)
    return cat


def cmd_fixture(args):
    d = args.dir
    n = 0
    with open(args.out, "w") as out:
        for cid in case_ids(d):
            # The case as the generator makes it now (its scenario follows the generator's
            # current exec semantics); Puppet's answers hold only if the manifest is the one
            # Puppet ran.
            seed = json.load(open(os.path.join(d, cid + ".json")))["seed"]
            case = generate(seed)
            ran = open(os.path.join(d, cid + ".pp")).read()
            if ran != case["manifest"]:
                print("%s: the generator now makes another manifest; run again" % cid,
                      file=sys.stderr)
                continue
            try:
                comp = json.load(open(os.path.join(d, cid + ".catalog.json")))
                run = json.load(open(os.path.join(d, cid + ".apply.json")))
            except (OSError, ValueError) as e:
                print("%s: no answer (%s)" % (cid, e), file=sys.stderr)
                continue
            if not comp.get("ok") or not run.get("ok"):
                print("%s: Puppet failed: %s" % (cid, comp.get("error") or run.get("error")),
                      file=sys.stderr)
                continue
            case.pop("cyclic", None)
            case["catalog"] = trim_catalog(comp["raw"])
            case["puppet"] = {k: run.get(k, []) for k in PUPPET_KEYS}
            out.write(json.dumps(case, ensure_ascii=False, separators=(",", ":")) + "\n")
            n += 1
    print("wrote %d cases to %s" % (n, args.out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--count", type=int, default=600)
    g.add_argument("dir")
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("--jobs", type=int, default=2)
    f = sub.add_parser("fixture")
    f.add_argument("dir")
    f.add_argument("out")
    a = sub.add_parser("all")
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("--count", type=int, default=600)
    a.add_argument("--jobs", type=int, default=2)
    a.add_argument("dir")
    a.add_argument("out")
    args = ap.parse_args()
    if args.cmd == "gen":
        return cmd_gen(args)
    if args.cmd == "run":
        return cmd_run(args)
    if args.cmd == "fixture":
        return cmd_fixture(args)
    cmd_gen(args)
    rc = cmd_run(args)
    cmd_fixture(args)
    return rc


if __name__ == "__main__":
    sys.exit(main() or 0)
