#!/usr/bin/env python3
"""Differential tester of our Ruby-regexp translation (puppet-types' regexp.rs) against Ruby.

    scripts/regexp-diff.py SEED COUNT [--show N] [--probe PATH] [--write-fixture FILE]

Generates COUNT random Ruby (Onigmo) patterns from SEED, each with options and a few
texts, and runs them through Ruby 3.1 (scripts/regexp-diff.rb) and through our side
(the `regexp_probe` example of puppet-types, built first with
`cargo build -p puppet-types --example regexp_probe`; --probe names another binary).
Compares: whether the pattern compiles, group names, the groups of the first match (byte
spans), every match of Ruby's iteration (scan/gsub). Prints the differences counted by kind
and by construct, and the first N examples of each kind.

A pattern Ruby accepts and we refuse is counted as "refused" (allowed when our error names
the construct; such patterns never match differently); everything else that differs is a
bug. --write-fixture FILE appends, as JSON lines, each pattern where both sides compiled
and agree, with Ruby's answers: crates/puppet-types/tests/regexp_ruby.rs reads such a file
(crates/puppet-types/tests/fixtures/regexp_ruby.jsonl) without needing Ruby.
"""

import json
import os
import random
import subprocess
import sys
from collections import Counter, defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Characters texts are made of (with those of each pattern's literals).
TEXT_CHARS = list("aAbBcxyzZ019 _-.\n\t/:") + ["é", "É", "ß", "K", "ſ", "\u212a", "ω", "Ω", "日", "😀"]

LITERALS = list("abcxyzAB019 _-.:/,=@") + ["é", "ß", "ω", "日"]


class Gen:
    def __init__(self, rng):
        self.rng = rng
        self.tags = set()
        self.ngroups = 0
        self.names = []
        self.named = False

    def r(self):
        return self.rng.random()

    def choice(self, xs):
        return self.rng.choice(xs)

    def literal(self):
        c = self.choice(LITERALS)
        if c in ".":
            return "\\."
        if ord(c) > 127:
            self.tags.add("non-ascii literal")
        return c

    def escape(self):
        e = self.choice([
            "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "\\h", "\\H", "\\/", "\\-", "\\.",
            "\\n", "\\t", "\\x41", "\\x2e", "\\101", "\\0", "\\u00e9", "\\u{41}", "\\R", "\\X",
            "\\p{Alpha}", "\\p{^Alpha}", "\\P{Digit}", "\\p{Lu}", "\\p{Greek}", "\\p{Word}",
            "\\e", "\\a", "\\v", "\\f", "\\ ", "\\#", "\\:", "\\_", "\\%",
        ])
        self.tags.add("escape " + e)
        return e

    def klass(self):
        parts = []
        neg = self.r() < 0.3
        if neg:
            self.tags.add("negated class")
        for _ in range(self.rng.randint(1, 3)):
            k = self.r()
            if k < 0.3:
                a = self.choice("abcxAX0")
                b = chr(ord(a) + self.rng.randint(0, 5))
                parts.append(f"{a}-{b}")
            elif k < 0.45:
                p = self.choice(["alpha", "digit", "alnum", "space", "upper", "lower", "punct",
                                 "xdigit", "word", "^digit", "^alpha", "blank", "cntrl", "print",
                                 "graph", "ascii"])
                self.tags.add("posix bracket")
                parts.append(f"[:{p}:]")
            elif k < 0.6:
                e = self.choice(["\\d", "\\w", "\\s", "\\h", "\\W", "\\S", "\\D", "\\H", "\\-",
                                 "\\]", "\\\\", "\\/", "\\n", "\\x41", "\\p{Alpha}", "\\^"])
                self.tags.add("class escape " + e)
                parts.append(e)
            elif k < 0.68:
                self.tags.add("class intersection")
                parts.append("a-z&&[^aeiou]" if self.r() < 0.5 else "\\w&&[^\\d]")
            elif k < 0.74:
                self.tags.add("nested class")
                parts.append("[xy]")
            else:
                c = self.choice(list("abcxyz.-_ :/^$|()*+?{}") + ["é", "ß"])
                if c == "^" and not parts:
                    c = "\\^"
                if c == "-":
                    self.tags.add("class dash")
                parts.append(c)
        return "[" + ("^" if neg else "") + "".join(parts) + "]"

    def group(self, depth):
        inner = self.alt(depth + 1)
        k = self.r()
        if k < 0.3:
            self.ngroups += 1
            self.tags.add("group")
            return "(" + inner + ")"
        if k < 0.45:
            self.named = True
            name = self.choice(["a", "b", "word", "n1"])
            self.names.append(name)
            self.tags.add("named group")
            return f"(?<{name}>" + inner + ")"
        if k < 0.55:
            return "(?:" + inner + ")"
        if k < 0.62:
            self.tags.add("atomic group")
            return "(?>" + inner + ")"
        if k < 0.70:
            la = self.choice(["(?=", "(?!", "(?<=", "(?<!"])
            self.tags.add("look-around " + la)
            return la + inner + ")"
        if k < 0.78:
            f = self.choice(["i", "m", "x", "-i", "i-m", "mi", "-mix", "im-x"])
            self.tags.add("inline option group")
            return f"(?{f}:" + inner + ")"
        if k < 0.83:
            f = self.choice(["i", "m", "-i", "x"])
            self.tags.add("inline option")
            return f"(?{f})" + inner
        if k < 0.86:
            self.tags.add("comment")
            return "(?#note)" + inner
        if k < 0.89:
            self.tags.add("absent operator")
            return "(?~" + inner + ")"
        if k < 0.93 and self.ngroups > 0:
            self.tags.add("conditional")
            return f"(?({self.ngroups})" + inner + "|" + self.atom(depth + 1) + ")"
        self.ngroups += 1
        self.tags.add("group")
        return "(" + inner + ")"

    def atom(self, depth):
        k = self.r()
        if k < 0.35:
            return self.literal()
        if k < 0.45:
            self.tags.add("dot")
            return "."
        if k < 0.57:
            return self.escape()
        if k < 0.7:
            return self.klass()
        if k < 0.77:
            a = self.choice(["^", "$", "\\A", "\\z", "\\Z", "\\b", "\\B", "\\G"])
            self.tags.add("anchor " + a)
            return a
        if k < 0.8 and (self.ngroups or self.names):
            if self.names and self.r() < 0.5:
                self.tags.add("named backref")
                return "\\k<" + self.choice(self.names) + ">"
            self.tags.add("numbered backref")
            return "\\" + str(self.rng.randint(1, max(1, self.ngroups)))
        if depth < 3:
            return self.group(depth)
        return self.literal()

    def quant(self, atom):
        k = self.r()
        if k < 0.6:
            return atom
        q = self.choice(["*", "+", "?", "*?", "+?", "??", "*+", "++", "?+", "{2}", "{1,3}",
                         "{,2}", "{2,}", "{1,3}?", "{0}", "{,}", "{x", "{1", "{2,1}"])
        self.tags.add("quantifier " + q)
        if atom in ("^", "$", "\\A", "\\z", "\\Z", "\\b", "\\B", "\\G"):
            self.tags.add("quantified anchor")
        return atom + q

    def seq(self, depth):
        n = self.rng.randint(1, 4)
        return "".join(self.quant(self.atom(depth)) for _ in range(n))

    def alt(self, depth):
        s = self.seq(depth)
        while self.r() < 0.2:
            self.tags.add("alternation")
            s += "|" + self.seq(depth)
        return s


# Cases written by hand, one per construct the translation handles (run with every seed).
HAND_TEXTS = ["", "abc", "a\nb\n", "Hello World", "x1 y22\nz333", "été ÉTÉ", "foo.bar/baz", "aaa",
              "ab12cd", "\u212a\u017f kS", "日本語 text", "a-b_c d\te\r\n", "ABab", "a{2}", "\\x"]
HAND = [
    ("^", ""), ("$", ""), ("^$", ""), ("\\A\\w+", ""), ("\\w+\\z", ""), ("\\w+\\Z", ""),
    ("\\bb", ""), ("\\Bb", ""), ("\\Ga", ""), ("^\\w", ""), ("\\w$", ""), ("a.b", ""), ("a.b", "m"),
    (".+", ""), (".+", "m"), ("A B # comment\n c", "x"), ("[ ]b", "x"), ("(?x) a b", ""), ("ab", "i"),
    ("(?i)ab", ""), ("a(?i)b|c", ""), ("(?i:a)b", ""), ("(?-mix:a.b)", "mix"), ("(?m:a.)b", ""),
    ("[[:alpha:]]+", ""), ("[[:^digit:]]+", ""), ("[[:upper:]][[:lower:]]+", ""), ("[[:punct:]]", ""),
    ("[[:space:]]+", ""), ("[[:word:]]+", ""), ("[[:alnum:]]+", ""), ("[[:xdigit:]]+", ""),
    ("[a-z&&[^aeiou]]+", ""), ("[\\w&&[^\\d]]+", ""), ("\\h+", ""), ("\\H+", ""), ("\\s+", ""),
    ("\\S+", ""), ("\\w+", ""), ("\\W+", ""), ("\\d+", ""), ("\\D+", ""), ("\\R", ""),
    ("\\p{Alpha}+", ""), ("\\p{^Alpha}+", ""), ("\\P{Alpha}+", ""), ("\\p{Lu}", ""), ("\\p{Word}+", ""),
    ("\\p{Han}+", ""), ("\\/", ""), ("[\\/\\-]", ""), ("\\101", ""), ("\\x41\\u0062", ""),
    ("\\u{e9}", ""), ("\\xc3\\xa9", ""), ("\\0", ""), ("\\n", ""), ("a*+", ""), ("a++b", ""),
    ("a?+a", ""), ("a{,2}", ""), ("a{2,}", ""), ("a{1,2}?", ""), ("a{2}?", ""), ("a{1,2}+", ""),
    ("a{", ""), ("a{x}", ""), ("a{,}", ""), ("{2}", ""), ("(a)\\1", ""), ("(?<x>a)\\k<x>", ""),
    ("(?<x>a)(b)", ""), ("(a)(?<x>b)(c)", ""), ("(?>a+)b", ""), ("(?>a+)a", ""), ("a(?=b)", ""),
    ("a(?!b)", ""), ("(?<=a)b", ""), ("(?<!a)b", ""), ("(a)?(?(1)b|c)", ""), ("a(?#comment)b", ""),
    ("é+", "i"), ("ÉTÉ", "i"), ("\\w+", "i"), ("[a-z]+", "i"), ("k", "i"), ("a*", ""), ("x*", ""),
    ("\\b", ""), ("(a)|b", ""), ("^\\s*$", ""), ("\\A\\z", ""), ("^*a", ""), ("\\b?a", ""),
    ("(?=(a))?a", ""), ("(a){0}b", ""), ("\\d{2}(?!\\d)", ""), ("[]a]", ""), ("[a-]", ""), ("[\\]]", ""),
]


def hand_cases():
    return [({"p": p, "f": f, "t": HAND_TEXTS, "r": "<\\0|\\1>"}, ["hand"]) for p, f in HAND]


def gen_case(rng):
    g = Gen(rng)
    pat = g.alt(0)
    if g.named and g.ngroups:
        g.tags.add("named and plain groups")
    flags = "".join(f for f in "imx" if rng.random() < 0.2)
    for f in flags:
        g.tags.add("flag " + f)
    lits = [c for c in pat if c.isalnum() or c in " _-.:/\n"]
    chars = TEXT_CHARS + lits * 2
    texts = [""]
    for _ in range(5):
        n = rng.randint(1, 12)
        texts.append("".join(rng.choice(chars) for _ in range(n)))
    if rng.random() < 0.5:
        texts.append(texts[-1] + "\n")
    rep = rng.choice(["-", "<\\0>", "[\\1]", "\\\\", "<\\k<a>>", "\\&\\&", "(\\2\\1)"])
    return {"p": pat, "f": flags, "t": texts, "r": rep}, sorted(g.tags)


def run(cmd, cases):
    data = "".join(json.dumps(c) + "\n" for c in cases)
    res = subprocess.run(cmd, input=data, capture_output=True, text=True, cwd=ROOT)
    lines = res.stdout.splitlines()
    if len(lines) != len(cases):
        sys.exit(f"{cmd[0]}: {len(lines)} answers for {len(cases)} cases\n{res.stderr[-3000:]}")
    return [json.loads(l) for l in lines]


def names_of(ours):
    groups = defaultdict(list)
    for i, n in enumerate(ours.get("names", []), start=1):
        if n is not None:
            groups[n].append(i)
    return [[n, v] for n, v in groups.items()]


def compare(case, ruby, ours):
    """The kinds of difference (empty when none)."""
    if "err" in ruby and "err" in ours:
        return ["both refuse"], []
    if "err" in ruby:
        return ["accepted, Ruby refuses"], []
    if "err" in ours:
        return ["refused"], []
    kinds = []
    if sorted(map(tuple, ((n, tuple(v)) for n, v in ruby["names"]))) != sorted(
        (n, tuple(v)) for n, v in names_of(ours)
    ):
        kinds.append("group names")
    details = []
    for text, r, o in zip(case["t"], ruby["cases"], ours["cases"]):
        if "timeout" in r or "err" in r:
            continue
        if (r["first"] is None) != (o["first"] is None):
            kinds.append("match or not")
            details.append((text, "first", r["first"], o["first"]))
        elif r["first"] != o["first"]:
            kinds.append("first match groups")
            details.append((text, "first", r["first"], o["first"]))
        elif r["all"] != o["all"]:
            kinds.append("all matches")
            details.append((text, "all", r["all"], o["all"]))
        elif r.get("gsub") != o.get("gsub") and not str(r.get("gsub")).startswith("ERR"):
            kinds.append("gsub")
            details.append((text, "gsub", r.get("gsub"), o.get("gsub")))
        elif r.get("split") != o.get("split"):
            kinds.append("split")
            details.append((text, "split", r.get("split"), o.get("split")))
    if ours.get("paths"):
        kinds.append("paths disagree")
        details.append(("", "paths", None, ours["paths"]))
    return sorted(set(kinds)), details


def main():
    args = sys.argv[1:]
    show = 3
    probe = os.path.join(ROOT, "target/debug/examples/regexp_probe")
    fixture = None
    if "--show" in args:
        i = args.index("--show")
        show = int(args[i + 1])
        del args[i:i + 2]
    if "--probe" in args:
        i = args.index("--probe")
        probe = args[i + 1]
        del args[i:i + 2]
    if "--write-fixture" in args:
        i = args.index("--write-fixture")
        fixture = args[i + 1]
        del args[i:i + 2]
    seed, count = int(args[0]), int(args[1])
    rng = random.Random(seed)
    cases, tags = [], []
    for c, t in hand_cases():
        cases.append(c)
        tags.append(t)
    for _ in range(count):
        c, t = gen_case(rng)
        cases.append(c)
        tags.append(t)
    ruby = run(["ruby", os.path.join(ROOT, "scripts/regexp-diff.rb")], cases)
    ours = run([probe], cases)
    by_kind = Counter()
    by_tag = defaultdict(Counter)
    tag_total = Counter()
    examples = defaultdict(list)
    agree = []
    for case, t, r, o in zip(cases, tags, ruby, ours):
        kinds, details = compare(case, r, o)
        for tag in t:
            tag_total[tag] += 1
        if not kinds or kinds == ["both refuse"]:
            by_kind["agree" if not kinds else "both refuse"] += 1
            agree.append((case, r))
            continue
        if kinds == ["refused"]:
            # Kept in the fixture: we must go on refusing, or match as Ruby does.
            agree.append((case, r))
        for k in kinds:
            by_kind[k] += 1
            if k not in ("both refuse",):
                for tag in t:
                    by_tag[k][tag] += 1
            if len(examples[k]) < show:
                msg = r.get("err") if k == "accepted, Ruby refuses" else o.get("err")
                examples[k].append((case["p"], case["f"], msg, details[:2]))
    print(f"patterns: {count}")
    for k, n in by_kind.most_common():
        print(f"  {k}: {n}")
    for k in examples:
        if k in ("both refuse",):
            continue
        print(f"\n== {k}")
        for p, f, msg, d in examples[k]:
            print(f"  /{p}/{f}  {msg or ''}")
            for text, what, rv, ov in d:
                print(f"     {text!r} {what}: ruby {rv} ours {ov}")
        # Constructs over-represented among this kind.
        ratios = sorted(
            ((n / tag_total[tag], n, tag) for tag, n in by_tag[k].items() if n >= 2),
            reverse=True,
        )[:8]
        print("   constructs: " + ", ".join(f"{tag} {n}/{tag_total[tag]}" for _, n, tag in ratios))
    if fixture:
        with open(fixture, "a") as f:
            for case, r in agree:
                f.write(json.dumps({"p": case["p"], "f": case["f"], "t": case["t"],
                                    "r": case.get("r"), "ruby": r}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
