#!/usr/bin/env bash
# Regenerates tests/fixtures/catalogs/<name>.json: the catalogs the real Puppet 7.23 compiles
#   * for the five oracle nodes ntp, db, web, keystone, kitchensink (ORACLE/nodes/<name>.pp,
#     modulepath /usr/share/puppet/modules, no global Hiera; keystone with the facts
#     debian12-ctl01.json, the others with debian12-web01.json, as in ORACLE/BASELINE.md);
#   * for the bundled example environment examples/env (node web01.example.com, its facts
#     file, its modules, and its hiera.yaml passed as the global hiera.yaml; see below)
#     -> example-env.json.
# Output is the oracle's canonical catalog JSON (`compile-catalog`: classes sorted, resources
# sorted by [type, title] with tags, exported flag and parameters, containment edges) plus
# --with-order ("classes_in_order", "resource_order": catalog insertion order) and
# --with-logs (warnings/notices/deprecations), written with one top-level key per line and one
# array element (resource, edge, class, log) per line. In "logs", the absolute paths of
# this checkout and of the oracle directory are made relative ("examples/env/...",
# "<oracle>/nodes/..."), so the fixtures do not depend on where they were generated.
#
# Environment-level Hiera: compile-catalog builds its environment with
# Puppet::Node::Environment.create (no environment directory), so Puppet never reads an
# environment's own hiera.yaml there. examples/env/hiera.yaml is therefore given with -H (the
# global layer); its datadir "data" is relative to the hiera.yaml file in Hiera 5, so it reads
# examples/env/data as the environment layer would, and the catalog is the same.
#
# Needs: Puppet 7.23 (Debian puppet-agent) with ruby, the oracle scripts (compile-catalog,
# nodes/, facts/; see the oracle README) and the module corpus (Debian puppet-module-*
# packages in /usr/share/puppet/modules). CI does not run this; tests only read the fixtures.
#
# Usage: scripts/gen-catalog-fixtures.sh [--oracle DIR] [--modulepath PATH] [--out DIR] [NAME...]
#   NAME: ntp db web keystone kitchensink example-env (default: all six)
# Env (arguments win): ORACLE   directory holding compile-catalog, nodes/ and facts/
#                               (default: the directory of `compile-catalog` on PATH, else
#                               ../shared/oracle next to this checkout)
#                      MODULEPATH  module path for the oracle nodes (default /usr/share/puppet/modules)
#                      OUT_DIR     where to write (default tests/fixtures/catalogs in this checkout)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"

oracle="${ORACLE:-}"
if [ -z "$oracle" ]; then
  if cc="$(command -v compile-catalog 2>/dev/null)"; then
    oracle="$(dirname "$cc")"
  else
    oracle="$repo/../shared/oracle"
  fi
fi
modulepath="${MODULEPATH:-/usr/share/puppet/modules}"
out="${OUT_DIR:-$repo/tests/fixtures/catalogs}"
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --oracle) oracle="$2"; shift 2 ;;
    --modulepath) modulepath="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
[ ${#names[@]} -gt 0 ] || names=(ntp db web keystone kitchensink example-env)

oracle="$(cd "$oracle" 2>/dev/null && pwd)" || { echo "oracle directory not found (set ORACLE or --oracle)" >&2; exit 2; }
cc="$oracle/compile-catalog"
if [ ! -x "$cc" ]; then
  echo "compile-catalog not found at $cc (set ORACLE or pass --oracle DIR)" >&2
  exit 2
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"
common=(--with-order --with-logs)

# Makes the log paths relative and refuses a catalog whose parameters mention this machine's
# checkout, the oracle directory or a temp dir (the fixture would not be reproducible).
postprocess() { # IN OUT
  ruby -rjson -e '
    repo, oracle, src, dst = ARGV
    cat = JSON.parse(File.read(src))
    fix = lambda do |s|
      s.gsub("#{repo}/", "").gsub("#{oracle}/", "<oracle>/")
    end
    (cat["logs"] || []).each do |l|
      l.each_key { |k| l[k] = fix.call(l[k]) if l[k].is_a?(String) }
    end
    bad = (cat["resources"] || []).select do |r|
      t = JSON.generate(r["parameters"])
      t.include?(repo) || t.include?(oracle) || t.include?("compile-catalog-")
    end
    unless bad.empty?
      warn "#{src}: parameters of #{bad.map { |r| "#{r["type"]}[#{r["title"]}]" }.join(", ")} contain machine paths"
      exit 1
    end
    # One top-level key per line, and one array element (resource, edge, log...) per line:
    # small files that still diff well.
    body = cat.map do |k, v|
      if v.is_a?(Array) && !v.empty?
        "  #{JSON.generate(k)}: [\n" + v.map { |e| "    #{JSON.generate(e)}" }.join(",\n") + "\n  ]"
      else
        "  #{JSON.generate(k)}: #{JSON.generate(v)}"
      end
    end
    File.write(dst, "{\n" + body.join(",\n") + "\n}\n")
  ' "$repo" "$oracle" "$1" "$2"
}

compile() { # NAME ARGS...
  local name="$1"; shift
  local tmp="$out/.$name.json.tmp"
  echo "+ compile-catalog $* ${common[*]}" >&2
  if ! "$cc" "$@" "${common[@]}" > "$tmp"; then
    echo "Puppet failed to compile $name:" >&2
    cat "$tmp" >&2
    rm -f "$tmp"
    exit 1
  fi
  postprocess "$tmp" "$out/$name.json"
  rm -f "$tmp"
  local warnings
  warnings="$(ruby -rjson -e 'puts JSON.parse(File.read(ARGV[0]))["logs"].count { |l| l["level"] != "notice" }' "$out/$name.json")"
  printf '%-12s %7d bytes, %s warning/error log lines\n' "$name" "$(wc -c < "$out/$name.json")" "$warnings" >&2
}

env_dir="$repo/examples/env"
for name in "${names[@]}"; do
  case "$name" in
    ntp|db|web|kitchensink)
      compile "$name" -M "$modulepath" -f "$oracle/facts/debian12-web01.json" \
        -n web01.example.com -m "$oracle/nodes/$name.pp" ;;
    keystone)
      compile "$name" -M "$modulepath" -f "$oracle/facts/debian12-ctl01.json" \
        -n ctl01.example.com -m "$oracle/nodes/$name.pp" ;;
    example-env)
      compile "$name" -M "$env_dir/modules" -f "$env_dir/facts/web01.example.com.json" \
        -n web01.example.com -H "$env_dir/hiera.yaml" -m "$env_dir/manifests/site.pp" ;;
    *) echo "unknown fixture name '$name'" >&2; exit 2 ;;
  esac
done
echo "wrote ${#names[@]} catalog(s) to $out" >&2
