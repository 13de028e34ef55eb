#!/usr/bin/env python3
"""Whole-process speed and memory, ours against Puppet 7.23's, measured in one run.

What it prints (each figure a ratio against Puppet measured by this same script):

* `node`: for each of the oracle's five nodes (ntp, db, web, keystone, kitchensink; module
  path /usr/share/puppet/modules): Puppet's warm in-process compile (`compile-catalog
  --repeat N --reuse-env`, median; the environment parsed once, as a long-running server
  does), our whole process (`examples/compile`, hyperfine median: start, load what the node
  needs, compile, print the catalog JSON), our in-process compile (`examples/profile_node`,
  median), and the peak RSS of both whole processes (`/usr/bin/time -f %M`).
* `notice`: `compile -e 'notice(1)'` with the same module path: time and RSS.
* `validate`: `validate` over every corpus manifest against Puppet's parser
  (`parse-dump --batch --validate` over the same files, one process).
* `many`: `compile --nodes` over N generated fact sets (the five node manifests as node
  definitions of one site manifest, 1/5 of the nodes each, certname/IP/hostname varied):
  nodes/s on 1 and on 2 threads, and Puppet compiling the same nodes one by one in one warm
  process (`compile-catalog --batch --no-fork --reuse-env`).

Needs Puppet 7.23, hyperfine, the module corpus in /usr/share/puppet/modules and the oracle
directory (ORACLE, default ../shared/oracle next to this checkout). Wall-clock figures: run it
on a quiet machine (or `renice 19` the other work).

`--static` measures binaries linked statically (`-C target-feature=+crt-static`, built with
`--target` the host's triple so that proc-macros stay dynamic, into target/TRIPLE/release):
no dynamic loader at start, about 0.9 ms less per process here (`compile -e 'notice(1)'`
3.69 -> 2.83 ms, perf stat, 2026-11-28), the same catalogs. A glibc static binary cannot
use NSS (user and host name lookups), which nothing here does.

Usage: scripts/speed.py [--runs N] [--nodes N] [--static] [node|notice|validate|many ...]
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE = os.path.abspath(os.environ.get("ORACLE", os.path.join(ROOT, "..", "shared", "oracle")))
CORPUS = "/usr/share/puppet/modules"
NODES = ["ntp", "db", "web", "keystone", "kitchensink"]
TARGET = os.path.abspath(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")))
BIN = os.path.join(TARGET, "release", "examples")


def node_facts(node):
    if node == "keystone":
        return os.path.join(ORACLE, "facts", "debian12-ctl01.json"), "ctl01.example.com"
    return os.path.join(ORACLE, "facts", "debian12-web01.json"), "web01.example.com"


def peak_rss_mb(cmd):
    """Peak resident set size of a command, in MiB."""
    out = subprocess.run(
        ["/usr/bin/time", "-f", "%M"] + cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
    )
    return int(out.stderr.strip().splitlines()[-1]) / 1024.0


def hyperfine_ms(cmd, runs):
    """Median wall time of a command in ms (hyperfine, no shell, 3 warm-up runs)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run(
            ["hyperfine", "-N", "--warmup", "3", "--runs", str(runs), "--export-json", f.name,
             "--output", "null", " ".join(cmd)],
            stdout=subprocess.DEVNULL,
            check=True,
        )
        data = json.load(open(f.name))
    return data["results"][0]["median"] * 1000.0


def puppet_warm_ms(node, runs):
    facts, cert = node_facts(node)
    cmd = [os.path.join(ORACLE, "compile-catalog"), "-q", "--repeat", str(runs + 1), "--reuse-env",
           "-M", CORPUS, "-f", facts, "-n", cert, "-m", os.path.join(ORACLE, "nodes", node + ".pp")]
    out = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    line = [l for l in out.stderr.splitlines() if l.startswith("{")][-1]
    runs_ms = json.loads(line)["runs_ms"][1:]  # the first run parses the environment
    return statistics.median(runs_ms), cmd[:4] + ["1"] + cmd[5:]


def ours_cmd(node):
    facts, cert = node_facts(node)
    return [os.path.join(BIN, "compile"), "-M", CORPUS, "-f", facts, "-n", cert,
            os.path.join(ORACLE, "nodes", node + ".pp")]


def section_node(runs):
    print("node         Puppet warm | ours whole process      | ours in-process        | RSS Puppet  ours")
    for node in NODES:
        puppet_ms, puppet_one = puppet_warm_ms(node, runs)
        whole_ms = hyperfine_ms(ours_cmd(node), max(runs, 10))
        out = subprocess.run([os.path.join(BIN, "profile_node"), node, str(max(runs, 20))],
                             env=dict(os.environ, ORACLE=ORACLE), capture_output=True, text=True,
                             check=True).stdout
        # "ntp: median 301.2µs of 20 compiles, best batch ..."
        median = out.split("median ")[1].split(" of")[0]
        inproc_ms = parse_duration_ms(median)
        rss_puppet = peak_rss_mb(puppet_one)
        rss_ours = peak_rss_mb(ours_cmd(node))
        print(f"{node:<12} {puppet_ms:8.1f} ms | {whole_ms:7.2f} ms {puppet_ms / whole_ms:6.1f}x faster "
              f"| {inproc_ms:7.3f} ms {puppet_ms / inproc_ms:6.0f}x faster "
              f"| {rss_puppet:6.0f} MB {rss_ours:5.1f} MB ({rss_ours / rss_puppet:.2f})")
        sys.stdout.flush()


def parse_duration_ms(text):
    for unit, scale in (("ms", 1.0), ("µs", 1e-3), ("ns", 1e-6), ("s", 1000.0)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * scale
    raise ValueError(text)


def section_notice(runs):
    cmd = [os.path.join(BIN, "compile"), "-M", CORPUS, "-e", "notice(1)"]
    ms = hyperfine_ms(cmd, max(runs, 20))
    print(f"compile -e 'notice(1)' -M {CORPUS}: {ms:.1f} ms, peak RSS {peak_rss_mb(cmd):.1f} MB")


def section_validate(runs):
    files = sorted(os.path.join(d, f) for d, _, names in os.walk(CORPUS, followlinks=True) for f in names
                   if f.endswith(".pp"))
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(files) + "\n")
        listing = f.name
    t = time.monotonic()
    subprocess.run([os.path.join(ORACLE, "parse-dump"), "--batch", listing, "--validate"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    puppet_ms = (time.monotonic() - t) * 1000.0
    os.unlink(listing)
    ours_ms = hyperfine_ms([os.path.join(BIN, "validate"), CORPUS], max(runs, 5))
    print(f"validate {len(files)} corpus files: Puppet's parser {puppet_ms:.0f} ms, ours {ours_ms:.1f} ms, "
          f"{puppet_ms / ours_ms:.0f}x faster")


def make_nodes(dir, count):
    """A site manifest of the five node manifests as regex node definitions, and `count`
    facts files (1/5 per node manifest) with varied certname, hostname and IP."""
    site = []
    for node in NODES:
        text = open(os.path.join(ORACLE, "nodes", node + ".pp")).read()
        header = f"node /^{node}-\\d+\\./ {{"
        site.append(re.sub(r"^node [^{]+\{", lambda _: header, text, count=1, flags=re.M))
    os.makedirs(os.path.join(dir, "facts"))
    with open(os.path.join(dir, "site.pp"), "w") as f:
        f.write("\n".join(site))
    batch = []
    for i in range(count):
        node = NODES[i % len(NODES)]
        facts_file, _ = node_facts(node)
        facts = json.load(open(facts_file))
        cert = f"{node}-{i:04d}.example.com"
        facts.update(
            certname=cert, fqdn=cert, hostname=cert.split(".")[0], clientcert=cert,
            ipaddress=f"192.0.{2 + i // 250}.{1 + i % 250}",
        )
        if isinstance(facts.get("networking"), dict):
            facts["networking"].update(fqdn=cert, hostname=cert.split(".")[0], ip=facts["ipaddress"])
        path = os.path.join(dir, "facts", cert + ".json")
        with open(path, "w") as f:
            json.dump(facts, f)
        batch.append(json.dumps({"id": cert, "manifest": os.path.join(dir, "site.pp"), "facts": path,
                                 "node": cert}))
    with open(os.path.join(dir, "batch.jsonl"), "w") as f:
        f.write("\n".join(batch) + "\n")


def section_many(count):
    dir = tempfile.mkdtemp(prefix="speed-nodes-")
    try:
        make_nodes(dir, count)
        rates = {}
        for threads in (1, 2):
            t = time.monotonic()
            out = subprocess.run(
                [os.path.join(BIN, "compile"), "-M", CORPUS, "--nodes", os.path.join(dir, "facts"),
                 "--out", os.path.join(dir, f"out{threads}"), "--threads", str(threads),
                 os.path.join(dir, "site.pp")],
                capture_output=True, text=True)
            secs = time.monotonic() - t
            failed = out.returncode != 0
            rates[threads] = count / secs
            print(f"compile --nodes ({count} nodes, {threads} thread{'s' if threads > 1 else ''}): "
                  f"{secs:.2f} s, {rates[threads]:.0f} nodes/s{' (some nodes failed)' if failed else ''}")
        print(f"scaling 1 -> 2 threads: {rates[2] / rates[1]:.2f}x")
        t = time.monotonic()
        out = subprocess.run(
            [os.path.join(ORACLE, "compile-catalog"), "--batch", os.path.join(dir, "batch.jsonl"),
             "--no-fork", "--reuse-env", "-M", CORPUS],
            capture_output=True, text=True)
        secs = time.monotonic() - t
        ok = sum(1 for l in out.stdout.splitlines() if '"ok":true' in l)
        print(f"Puppet, one process, node by node: {secs:.1f} s for {count} nodes ({ok} ok), "
              f"{count / secs:.1f} nodes/s; ours on 1 thread {rates[1] / (count / secs):.0f}x, "
              f"on 2 threads {rates[2] / (count / secs):.0f}x")
    finally:
        shutil.rmtree(dir)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--nodes", type=int, default=500)
    p.add_argument("--static", action="store_true", help="statically linked binaries")
    p.add_argument("sections", nargs="*", default=["node", "notice", "validate", "many"])
    args = p.parse_args()
    build = ["cargo", "build", "--release", "-q", "--example", "compile", "--example",
             "profile_node", "--example", "validate"]
    env = dict(os.environ)
    if args.static:
        global BIN
        host = next(l.split()[1] for l in subprocess.run(
            ["rustc", "-vV"], capture_output=True, text=True, check=True).stdout.splitlines()
            if l.startswith("host:"))
        build += ["--target", host]
        env["RUSTFLAGS"] = (env.get("RUSTFLAGS", "") + " -C target-feature=+crt-static").strip()
        BIN = os.path.join(TARGET, host, "release", "examples")
    subprocess.run(build, cwd=ROOT, check=True, env=env)
    for s in args.sections:
        {"node": lambda: section_node(args.runs), "notice": lambda: section_notice(args.runs),
         "validate": lambda: section_validate(args.runs), "many": lambda: section_many(args.nodes)}[s]()


if __name__ == "__main__":
    main()
