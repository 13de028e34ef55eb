#!/bin/sh
# Fills corpus/<target>/ with the seed inputs of each fuzz target (creating the folders):
# the committed seeds under seeds/<target>/, the crates' test fixtures, and, when they are
# on this machine, the conformance cases (../../shared/conformance, or $CONFORMANCE) and
# the small files of a module corpus (/usr/share/puppet/modules, or $MODULES).
# Files already in corpus/ are kept; run it from anywhere. Not part of any test.
set -eu
cd "$(dirname "$0")"
conformance=${CONFORMANCE:-../../shared/conformance}
modules=${MODULES:-/usr/share/puppet/modules}

# copy_named TARGET FILE: copies FILE into corpus/TARGET under a name made of its path.
copy_named() {
    name=$(printf '%s' "$2" | cksum | cut -d' ' -f1)
    cp "$2" "corpus/$1/$name.${2##*.}"
}

# from_jsonl TARGET FIELD FILE: each line's FIELD (a JSON string) becomes one input.
from_jsonl() {
    [ -f "$3" ] || return 0
    python3 - "$1" "$2" "$3" <<'EOF'
import json, sys, zlib
target, field, path = sys.argv[1:]
with open(path, encoding="utf-8") as f:
    for line in f:
        text = json.loads(line).get(field)
        if isinstance(text, str) and text:
            name = "%08x" % zlib.crc32((path + text).encode())
            with open(f"corpus/{target}/{name}.pp", "w", encoding="utf-8") as out:
                out.write(text)
EOF
}

for t in parse_all erb_render compile hiera_yaml ruby_run; do
    mkdir -p "corpus/$t"
    if [ -d "seeds/$t" ]; then cp seeds/$t/* "corpus/$t/"; fi
done

# parse_all: the parser fixtures, the conformance sources, small manifests and templates.
for f in ../crates/puppet-syntax/test_data/*/*/*.pp ../crates/puppet-syntax/test_data/*/*/*.epp; do
    copy_named parse_all "$f"
done
from_jsonl parse_all source "$conformance/parse.jsonl"
from_jsonl parse_all source "$conformance/parse_errors.jsonl"

# erb_render: the hand templates of puppet-erb's tests.
cp ../crates/puppet-erb/tests/fixtures/hand/*.erb corpus/erb_render/

# compile: the conformance manifests and programs, as main manifests.
from_jsonl compile manifest "$conformance/catalog.jsonl"
from_jsonl compile manifest "$conformance/graph.jsonl"
from_jsonl compile source "$conformance/eval.jsonl"
from_jsonl compile source "$conformance/eval_errors.jsonl"
from_jsonl compile source "$conformance/functions.jsonl"

# hiera_yaml: hiera's test data files, as the environment's common.yaml (the default
# hierarchy reads it) looked up by their first key.
for f in $(find ../crates/puppet-hiera/tests/fixtures -name '*.yaml' -size -8k 2>/dev/null | sort); do
    key=$(sed -n 's/^\([A-Za-z_][A-Za-z0-9_:]*\):.*/\1/p' "$f" | head -n 1)
    name=$(printf '%s' "$f" | cksum | cut -d' ' -f1)
    { printf '##----\n'; cat "$f"; printf '\n##----\n##----\n##----\n##----\n##----\n##----\n##----\n%s\n' "$key"; } \
        > "corpus/hiera_yaml/$name.yaml"
done

# ruby_run: puppet-ruby's fuzz fixtures and Ruby fixture cases.
cp ../crates/puppet-ruby/tests/fixtures/fuzz/* corpus/ruby_run/

if [ -d "$modules" ]; then
    # ruby_run: the small function files of the modules (4.x and 3.x).
    for f in $(find -L "$modules" -path '*/lib/puppet/*functions/*.rb' -size -6k | sort); do
        copy_named ruby_run "$f"
    done
    for f in $(find -L "$modules" \( -name '*.pp' -o -name '*.epp' \) -size -4k | sort | awk 'NR % 7 == 0'); do
        copy_named parse_all "$f"
    done
    for f in $(find -L "$modules" -name '*.erb' -size -4k | sort); do
        copy_named erb_render "$f"
    done
    for f in $(find -L "$modules" -path '*/data/*.yaml' -size -8k | sort); do
        key=$(sed -n 's/^\([A-Za-z_][A-Za-z0-9_:]*\):.*/\1/p' "$f" | head -n 1)
        name=$(printf '%s' "$f" | cksum | cut -d' ' -f1)
        { printf '##----\n'; cat "$f"; printf '\n##----\n##----\n##----\n##----\n##----\n##----\n##----\n%s\n' "$key"; } \
            > "corpus/hiera_yaml/$name.yaml"
    done
fi
for t in parse_all erb_render compile hiera_yaml ruby_run; do
    echo "corpus/$t: $(ls "corpus/$t" | wc -l) inputs"
done
