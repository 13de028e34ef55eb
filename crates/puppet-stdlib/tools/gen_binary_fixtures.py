#!/usr/bin/env python3
"""Generates fixtures/binary.json: which stdlib functions answer binary (ASCII-8BIT) strings.

Puppet's catalog writes a binary Ruby string as {"__ptype": "Binary", "__pvalue": <base64>}
and any other string as itself. Each case is compiled by the oracle (`compile-catalog --batch
-M MODULES`, one forked compile per case) as `notify { 'x': message => FN(ARGS) }`, and the
fixture keeps the message parameter as Puppet's catalog writes it (or the error message).
CI has no Puppet: the JSON is committed and `tests/oracle.rs` (`binary_strings_as_puppet`)
compares the native implementations against it.

An argument is written as JSON: {"p": Puppet literal}, {"b64": base64 of bytes} for a binary
string of those bytes (given to Puppet as `base64('decode', ...)`), {"array": [args]}.

Usage: gen_binary_fixtures.py [ORACLE] [MODULES]
  ORACLE  default /work/shared/oracle/compile-catalog
  MODULES default /usr/share/puppet/modules
"""
import json, os, subprocess, sys

oracle = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/oracle/compile-catalog"
modules = sys.argv[2] if len(sys.argv) > 2 else "/usr/share/puppet/modules"
here = os.path.dirname(os.path.abspath(__file__))
out_path = os.path.join(here, "..", "fixtures", "binary.json")

P = lambda s: {"p": s}
B = lambda b64: {"b64": b64}
A = lambda *xs: {"array": list(xs)}
HELLO = B("aGVsbG8=")      # "hello"
HIGH = B("//4=")           # bytes FF FE

CASES = [
    ("pw_hash", [P("'secret'"), P("'SHA-512'"), P("'saltsalt'")]),
    ("pw_hash", [P("'secret'"), P("'SHA-256'"), P("'saltsalt'")]),
    ("pw_hash", [P("'secret'"), P("'md5'"), P("'saltsalt'")]),
    ("pw_hash", [P("''"), P("'md5'"), P("'saltsalt'")]),
    ("base64", [P("'decode'"), P("'aGVsbG8='")]),
    ("base64", [P("'decode'"), P("'aGVsbG8='"), P("'strict'")]),
    ("base64", [P("'decode'"), P("'aGVsbG8'"), P("'urlsafe'")]),
    ("base64", [P("'decode'"), P("'/+7d'")]),
    ("base64", [P("'decode'"), P("'w6k='")]),
    ("base64", [P("'encode'"), HELLO]),
    ("base64", [P("'encode'"), HIGH, P("'strict'")]),
    ("base64", [P("'encode'"), P("'hello'")]),
    ("delete", [HELLO, P("'l'")]),
    ("suffix", [A(HELLO, P("'a'")), P("'.x'")]),
    ("prefix", [A(HELLO), P("'x.'")]),
    ("suffix", [A(HIGH), P("'é'")]),
    ("reverse", [HELLO]),
    ("shell_escape", [HELLO]),
    ("pick", [P("undef"), HELLO]),
    ("upcase", [HIGH]),
    ("capitalize", [HELLO]),
    ("strip", [HIGH]),
]


def render(arg):
    if "p" in arg:
        return arg["p"]
    if "b64" in arg:
        return f"base64('decode', '{arg['b64']}')"
    return "[" + ", ".join(render(a) for a in arg["array"]) + "]"


def clean(msg):
    msg = msg.split(" (file: ")[0].split(" (line: ")[0]
    for prefix in ("Evaluation Error: ", "Error while evaluating a Function Call, "):
        if msg.startswith(prefix):
            msg = msg[len(prefix):]
    return msg


def main():
    lines = []
    for i, (fn, args) in enumerate(CASES):
        code = f"notify {{ 'x': message => {fn}({', '.join(render(a) for a in args)}) }}"
        lines.append(json.dumps({"id": str(i), "code": code, "modulepath": modules}))
    p = subprocess.run([oracle, "--batch", "-"], input="\n".join(lines) + "\n",
                       capture_output=True, text=True, check=False)
    results = {}
    for line in p.stdout.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        results[r.get("id")] = r
    fixtures = []
    for i, (fn, args) in enumerate(CASES):
        r = results[str(i)]
        case = {"function": fn, "args": args}
        if r.get("ok"):
            notify = [x for x in r["resources"] if x["type"] == "Notify"][0]
            case["message"] = (notify.get("parameters") or {}).get("message")
        else:
            case["error"] = clean(r.get("error", ""))
        fixtures.append(case)
    with open(out_path, "w") as f:
        json.dump({"generator": "tools/gen_binary_fixtures.py", "puppet": "7.23.0",
                   "cases": fixtures}, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{len(fixtures)} cases written to {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
