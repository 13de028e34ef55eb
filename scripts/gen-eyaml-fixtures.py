#!/usr/bin/env python3
"""Regenerates the fixtures of puppet-hiera's eyaml test (crates/puppet-hiera/tests/eyaml.rs):
a key pair and eyaml data files made with the real `eyaml`, and Puppet's answers to a set of
lookups through `eyaml_lookup_key` (values, errors, warnings).

Needs: Puppet 7.23 with the hiera-eyaml gem (Debian 12: `puppet-agent`, `hiera-eyaml` 3.3.0,
which gives the `eyaml` command), and the oracle's `compile-catalog`
(default /work/shared/oracle/compile-catalog, or $COMPILE_CATALOG).

Usage: scripts/gen-eyaml-fixtures.py [--keep-keys]
  --keep-keys   reuse the committed key pairs (only re-encrypt the data and re-ask Puppet)

The fixture tree is copied to /tmp/puppet-rs-eyaml before Puppet reads it (Puppet's messages
name absolute paths; the test serves the same tree from memory under that root).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "crates", "puppet-hiera", "tests", "fixtures", "eyaml")
ROOT = "/tmp/puppet-rs-eyaml"
COMPILE = os.environ.get("COMPILE_CATALOG", "/work/shared/oracle/compile-catalog")
KEEP = "--keep-keys" in sys.argv[1:]


def keys(name):
    return [
        "--pkcs7-private-key=" + os.path.join(FIX, "keys", name + "private_key.pkcs7.pem"),
        "--pkcs7-public-key=" + os.path.join(FIX, "keys", name + "public_key.pkcs7.pem"),
    ]


def enc(text, form="string", pair=""):
    with tempfile.NamedTemporaryFile("w", delete=False) as f:
        f.write(text)
    try:
        out = subprocess.run(
            ["eyaml", "encrypt", "-f", f.name, "-o", form] + keys(pair),
            check=True, capture_output=True, text=True,
        ).stdout
    finally:
        os.unlink(f.name)
    return out.strip()


def block(text, indent="    "):
    lines = [l.strip() for l in enc(text, "block").splitlines() if l.strip()]
    return "\n".join(indent + l for l in lines)


def q(s):
    return json.dumps(s)


HIERA = """---
version: 5
defaults:
  datadir: data
hierarchy:
  - name: "secrets"
    lookup_key: eyaml_lookup_key
    paths: ["nodes/%%{trusted.certname}.eyaml", "common.eyaml"]
    options:
      pkcs7_private_key: %(root)s/keys/private_key.pkcs7.pem
      pkcs7_public_key:  %(root)s/keys/public_key.pkcs7.pem
  - name: "plain yaml"
    data_hash: yaml_data
    path: common.yaml
  - name: "not a hash"
    lookup_key: eyaml_lookup_key
    path: list.eyaml
    options:
      pkcs7_private_key: %(root)s/keys/private_key.pkcs7.pem
      pkcs7_public_key:  %(root)s/keys/public_key.pkcs7.pem
  - name: "error cases"
    lookup_key: eyaml_lookup_key
    path: errors.eyaml
    options:
      pkcs7_private_key: %(root)s/keys/private_key.pkcs7.pem
      pkcs7_public_key:  %(root)s/keys/public_key.pkcs7.pem
  - name: "another key pair"
    lookup_key: eyaml_lookup_key
    path: wrongkey.eyaml
    options:
      pkcs7_private_key: %(root)s/keys/other_private_key.pkcs7.pem
      pkcs7_public_key:  %(root)s/keys/other_public_key.pkcs7.pem
  - name: "key and certificate of different pairs"
    lookup_key: eyaml_lookup_key
    path: mismatch.eyaml
    options:
      pkcs7_private_key: %(root)s/keys/other_private_key.pkcs7.pem
      pkcs7_public_key:  %(root)s/keys/public_key.pkcs7.pem
  - name: "no private key file"
    lookup_key: eyaml_lookup_key
    path: missingkey.eyaml
    options:
      pkcs7_private_key: %(root)s/keys/absent.pem
      pkcs7_public_key:  %(root)s/keys/public_key.pkcs7.pem
  - name: "no public key option"
    lookup_key: eyaml_lookup_key
    path: nopub.eyaml
    options:
      pkcs7_private_key: %(root)s/keys/private_key.pkcs7.pem
  - name: "no private key option"
    lookup_key: eyaml_lookup_key
    path: nopriv.eyaml
    options:
      pkcs7_public_key:  %(root)s/keys/public_key.pkcs7.pem
  - name: "certificate file is not a certificate"
    lookup_key: eyaml_lookup_key
    path: badcert.eyaml
    options:
      pkcs7_private_key: %(root)s/keys/private_key.pkcs7.pem
      pkcs7_public_key:  %(root)s/keys/private_key.pkcs7.pem
  - name: "key file is not a key"
    lookup_key: eyaml_lookup_key
    path: badkey.eyaml
    options:
      pkcs7_private_key: %(root)s/keys/public_key.pkcs7.pem
      pkcs7_public_key:  %(root)s/keys/public_key.pkcs7.pem
""" % {"root": ROOT}

HIERA_NOPATH = """---
version: 5
hierarchy:
  - name: "eyaml without a path"
    lookup_key: eyaml_lookup_key
    options:
      pkcs7_private_key: %(root)s/keys/private_key.pkcs7.pem
      pkcs7_public_key:  %(root)s/keys/public_key.pkcs7.pem
""" % {"root": ROOT}

HIERA_BROKEN = """---
version: 5
hierarchy:
  - name: "broken yaml"
    lookup_key: eyaml_lookup_key
    path: broken.eyaml
    options:
      pkcs7_private_key: %(root)s/keys/private_key.pkcs7.pem
      pkcs7_public_key:  %(root)s/keys/public_key.pkcs7.pem
""" % {"root": ROOT}


def data_files():
    secret = enc("hunter2")
    files = {}
    files["nodes/node.example.com.eyaml"] = "\n".join([
        "---",
        "secret: " + enc("node secret"),
        "node_only: 'from the node file'",
        "merged_hash:",
        "  a: 'node'",
        "  pw: " + enc("node-pw"),
        "",
    ])
    files["common.eyaml"] = "\n".join([
        "---",
        "lookup_options:",
        "  merged_hash:",
        "    merge: deep",
        "secret: 'shadowed by the node file'",
        "plain: 'hello'",
        "string_form: " + secret,
        "block: >",
        block("folded block"),
        "literal_block: |",
        block("literal block"),
        "multi: \"user=" + enc("alice") + " pass=" + enc("s3cret") + "!\"",
        "interp_plain: '%{trusted.certname}-%{::role}'",
        "interp_secret: " + enc("role is %{::role}"),
        "array:",
        "  - 'plain'",
        "  - " + enc("a1"),
        "  - '%{::role}'",
        "hash:",
        "  '%{::role}_key': " + enc("h1"),
        "  nested:",
        "    list:",
        "      - " + enc("h2"),
        "      - 3",
        "  " + enc("k") + ": 'encrypted key, kept'",
        "trailing_newline: " + enc("line\n"),
        "two_newlines: " + enc("x\n\n"),
        "crlf: " + enc("y\r\n"),
        "number: 42",
        "flag: true",
        "nothing: ~",
        "default_scheme: " + secret.replace("ENC[PKCS7,", "ENC["),
        "lower_scheme: " + secret.replace("ENC[PKCS7,", "ENC[pkcs7,"),
        "not_a_block: \"see ENC[docs$] and ENC[] here\\n\"",
        "unicode: " + enc("h\u00e9llo \u2713"),
        "merged_hash:",
        "  b: 'common'",
        "  pw: 'common-pw'",
        "role_cached: '%{role}'",
        "",
    ])
    files["common.yaml"] = "\n".join([
        "---",
        "from_yaml: 'yaml level'",
        "node_only: 'shadowed'",
        "role_yaml: '%{role}'",
        "",
    ])
    files["list.eyaml"] = "---\n- a\n- b\n"
    files["errors.eyaml"] = "\n".join([
        "---",
        "gpg: 'ENC[GPG,hQEMAw==]'",
        "corrupt: 'ENC[PKCS7,AAAA]'",
        "docs: 'see ENC[docs] here'",
        "empty_body: 'ENC[PKCS7, ]'",
        "in_array: ['fine', 'ENC[PKCS7,MIIB]']",
        "",
    ])
    files["wrongkey.eyaml"] = "---\nwrongkey_plain: 'plain values need no key'\nwrongkey_secret: " + secret + "\n"
    files["mismatch.eyaml"] = "---\nmismatch_secret: " + secret + "\n"
    files["missingkey.eyaml"] = "---\nmissingkey_plain: 'fine'\nmissingkey_secret: " + secret + "\n"
    files["nopub.eyaml"] = "---\nnopub_secret: " + secret + "\n"
    files["nopriv.eyaml"] = "---\nnopriv_secret: " + secret + "\n"
    files["badcert.eyaml"] = "---\nbadcert_secret: " + secret + "\n"
    files["badkey.eyaml"] = "---\nbadkey_secret: " + secret + "\n"
    # A file Puppet's safe YAML load refuses (syntax errors are worded by our YAML loader,
    # not Psych's words: not compared here).
    files["broken.eyaml"] = "---\nbroken: 2020-01-01\n"
    return files


# Lookups: [key, scope], scope "top" ($role = 'web') or "class" (in class c, $role = 'db').
VALUE_KEYS = [
    "plain", "secret", "node_only", "string_form", "block", "literal_block", "multi",
    "interp_plain", "interp_secret", "array", "hash", "trailing_newline", "two_newlines",
    "crlf", "number", "flag", "nothing", "default_scheme", "lower_scheme", "not_a_block",
    "unicode", "from_yaml", "absent", "wrongkey_plain", "missingkey_plain",
]
CASES = [
    {"name": "values", "lookups": [[k, "top"] for k in VALUE_KEYS]},
    {"name": "deep merge through lookup_options", "lookups": [["merged_hash", "top"]]},
    {"name": "answers are kept per key for the compilation",
     "lookups": [["role_cached", "top"], ["role_yaml", "top"],
                 ["role_cached", "class"], ["role_yaml", "class"]]},
    {"name": "a file that is not a hash", "lookups": [["listed", "top"]], "logs": True},
]
for key in ["gpg", "corrupt", "docs", "empty_body", "in_array", "wrongkey_secret",
            "mismatch_secret", "missingkey_secret", "nopub_secret", "nopriv_secret",
            "badcert_secret", "badkey_secret"]:
    CASES.append({"name": "error " + key, "lookups": [[key, "top"]]})
CASES.append({"name": "error no path", "hiera": "hiera-nopath.yaml", "lookups": [["plain", "top"]]})
CASES.append({"name": "error broken yaml", "hiera": "hiera-broken.yaml", "lookups": [["broken", "top"]]})


def manifest(case):
    top = [l for l in case["lookups"] if l[1] == "top"]
    cls = [l for l in case["lookups"] if l[1] == "class"]

    def calls(ls):
        return ", ".join("lookup(%s, undef, undef, '__absent__')" % q(k) for k, _ in ls)

    code = "$role = 'web'\n"
    code += "notify { 'top': message => [%s] }\n" % calls(top)
    if cls:
        code += "class c { $role = 'db'\n notify { 'class': message => [%s] } }\ninclude c\n" % calls(cls)
    return code


def main():
    if not KEEP:
        if os.path.isdir(os.path.join(FIX, "keys")):
            shutil.rmtree(os.path.join(FIX, "keys"))
        for pair in ["", "other_"]:
            subprocess.run(["eyaml", "createkeys"] + keys(pair), check=True, capture_output=True)
    if os.path.isdir(os.path.join(FIX, "data")):
        shutil.rmtree(os.path.join(FIX, "data"))
    for path, text in data_files().items():
        full = os.path.join(FIX, "data", path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
    for name, text in [("hiera.yaml", HIERA), ("hiera-nopath.yaml", HIERA_NOPATH),
                       ("hiera-broken.yaml", HIERA_BROKEN)]:
        with open(os.path.join(FIX, name), "w") as f:
            f.write(text)

    shutil.rmtree(ROOT, ignore_errors=True)
    shutil.copytree(FIX, ROOT, ignore=shutil.ignore_patterns("cases.json"))
    out = []
    for case in CASES:
        hiera = os.path.join(ROOT, case.get("hiera", "hiera.yaml"))
        with tempfile.NamedTemporaryFile("w", suffix=".pp", delete=False) as f:
            f.write(manifest(case))
        args = [COMPILE, "-m", f.name, "-H", hiera, "--json-errors"]
        if case.get("logs"):
            args.append("--with-logs")
        res = subprocess.run(args, capture_output=True, text=True)
        os.unlink(f.name)
        try:
            doc = json.loads(res.stdout)
        except ValueError:
            sys.exit("case %r: no JSON from compile-catalog:\n%s%s" % (case["name"], res.stdout, res.stderr))
        entry = {"name": case["name"], "hiera": case.get("hiera", "hiera.yaml"),
                 "lookups": case["lookups"]}
        if doc.get("ok"):
            msgs = {}
            for r in doc["resources"]:
                if r["type"] == "Notify" and r["title"] in ("top", "class"):
                    msgs[r["title"]] = list(r["parameters"]["message"])
            entry["values"] = [msgs[scope].pop(0) for _, scope in case["lookups"]]
            if case.get("logs"):
                entry["warnings"] = [l["message"] for l in doc.get("logs", [])
                                     if l.get("level") == "warning"]
        else:
            entry["error"] = doc["error"]
        out.append(entry)
    with open(os.path.join(FIX, "cases.json"), "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("wrote %d cases" % len(out))


main()
