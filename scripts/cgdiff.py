#!/usr/bin/env python3
"""Cost per compile by function, from two callgrind runs of the same program with different
repeat counts: the difference between the runs is the repeated work alone, without loading.

Typical use, in-process compile cost of an oracle node (profile_node does 1+6N compiles, so
N=3 and N=8 are 30 compiles apart):

  ORACLE=../shared/oracle valgrind --tool=callgrind --callgrind-out-file=/tmp/a.3 \
      target/release/examples/profile_node keystone 3
  ORACLE=../shared/oracle valgrind --tool=callgrind --callgrind-out-file=/tmp/a.8 \
      target/release/examples/profile_node keystone 8
  scripts/cgdiff.py /tmp/a.3 /tmp/a.8 30          # inclusive cost per compile
  scripts/cgdiff.py /tmp/a.3 /tmp/a.8 30 --self   # self cost per compile

Usage: cgdiff.py A B RUNS_APART [--self] [TOP]   (needs callgrind_annotate on PATH)
"""
import re
import subprocess
import sys


def load(path, inclusive):
    out = subprocess.run(
        ["callgrind_annotate", "--inclusive=" + ("yes" if inclusive else "no"),
         "--threshold=100", "--auto=no", path],
        capture_output=True, text=True, check=True).stdout
    costs = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+(.*)", line)
        if not m or "=>" in line:
            continue
        name = re.sub(r" \[[^\]]*\]$", "", m.group(2))
        costs[name] = costs.get(name, 0) + int(m.group(1).replace(",", ""))
    return costs


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) < 3:
        sys.exit(__doc__)
    a, b, runs = args[0], args[1], int(args[2])
    top = int(args[3]) if len(args) > 3 else 60
    inclusive = "--self" not in sys.argv
    before, after = load(a, inclusive), load(b, inclusive)
    total = (after.get("PROGRAM TOTALS", 0) - before.get("PROGRAM TOTALS", 0)) / runs
    rows = sorted(((after.get(k, 0) - before.get(k, 0)) / runs, k) for k in set(before) | set(after))
    for cost, name in reversed(rows[-top:]):
        share = 100 * cost / total if total else 0
        print(f"{cost / 1e3:10.1f}K {share:5.1f}%  {name[:170]}")


if __name__ == "__main__":
    main()
