#!/usr/bin/env python3
"""Regenerate crates/puppet-eval/src/settings/puppet-7.23-server.jsonl from real Puppet 7.23.

What it is: the table of Puppet's settings that `$settings::x`, `$settings::all_local`,
`Puppet[:x]` and `Puppet.settings[:x]` read (puppet-eval's `settings` module embeds it), as a
Puppet server compiling as root sees them (run mode `server`, the `--section server` view of
`puppet config print all`), one JSON line per setting in Puppet's own order:

  {"name": "ssldir",          # the setting
   "kind": "directory",       # Puppet's setting class (DirectorySetting): how a value is munged
   "default": "$confdir/ssl", # the value before interpolation, as Puppet looks it up (the run
                              # mode's directories, then the default; a default computed by
                              # Ruby code is recorded as computed), JSON: string, bool, integer,
                              # array or null
   "values": [...],           # enum kinds only: the allowed values
   "alias_for": "masterport", # alias kind only
   "from": "node",            # only where the compile, not the table, gives the value (below)
   "expect": {"type": "String", "value": "/var/lib/puppet/ssl"}}
                              # what a manifest reads as $settings::x: the value, and
                              # type($settings::x, 'generalized'); a Float infinity is "Infinity"

How: the embedded Ruby program below loads Puppet with run mode `server` as `puppet master`
would, on a host it says is `node.example.com` (Facter's hostname and domain are stubbed,
so nothing of this host's name is recorded), reads each setting's class and raw value from
Puppet::Settings, then compiles (with Puppet's own compiler, in memory: nothing is written)
a manifest that reads `$settings::all_local` and the type of each value, in a static
`production` environment with no module path and no main manifest.

Values the compile gives, not the table ("from"): `certname` (the node name: as the compile
is the server's for that node; the setting may be overridden), `srv_domain` (the certname's
domain), `environment` (the compile's environment), `strict_variables` (the compile's),
`modulepath` and `manifest` (the environment's: "" and "no_manifest" here), `environmentpath`
(the directory holding the environment's directory, when that is named after the
environment; the default otherwise) and `code` (the probe's own code in Puppet; "" in the
table).

Needs: Puppet 7.23 (Debian package puppet-agent) and ruby, run as root (Puppet's system
directories), with a puppet.conf that sets nothing. CI does not run this; the tests read
the data file.

Usage: scripts/gen-settings-table.py [--out FILE] [--print]
"""
import argparse
import json
import os
import re
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_OUT = os.path.join(ROOT, "crates/puppet-eval/src/settings/puppet-7.23-server.jsonl")

FROM_COMPILE = {
    "certname": "node",
    "srv_domain": "node_domain",
    "environment": "environment",
    "strict_variables": "strict_variables",
    "modulepath": "modulepath",
    "manifest": "manifest",
    "code": "code",
    "environmentpath": "environmentpath",
}

RUBY = r'''
require 'puppet'
require 'json'
# The host is node.example.com, whatever this machine is called.
class << Puppet::Settings
  def hostname_fact; 'node'; end
  def domain_fact; 'example.com'; end
end
# A server's run mode, as Puppet::Application sets it for `puppet master` before it reads
# its settings (the run mode's directories, the [server] section first).
Puppet.settings.preferred_run_mode = :server
Puppet.send(:do_initialize_settings_for_run_mode, :server, [], true, true, {})
Puppet::Util::Log.close_all
s = Puppet.settings
raise "run mode is #{Puppet.run_mode.name}" unless Puppet.run_mode.name == :server
chain = s.values(nil, :server)

def plain(v)
  case v
  when Symbol then v.to_s
  when Array then v.map { |e| plain(e) }
  when Hash then v.to_h { |k, e| [plain(k), plain(e)] }
  when Float then v.infinite? ? (v > 0 ? 'Infinity' : '-Infinity') : v
  else v
  end
end

rows = []
s.each do |name, setting|
  next if name == :name # Puppet leaves `name` out of $settings
  kind = setting.class.name.split('::').last.sub(/Setting$/, '')
  kind = kind.gsub(/([a-z])([A-Z])/, '\1_\2').downcase
  row = { 'name' => name.to_s, 'kind' => kind }
  if setting.respond_to?(:alias_name)
    row['default'] = nil
    row['alias_for'] = setting.alias_name.to_s
  else
    row['default'] = plain(chain.lookup(name))
  end
  row['values'] = setting.values.map(&:to_s) if setting.respond_to?(:values)
  rows << row
end

env = Puppet::Node::Environment.create(:production, [], Puppet::Node::Environment::NO_MANIFEST)
Puppet[:code] = <<~'PP'
  notify { 'values': message => $settings::all_local }
  notify { 'types': message => $settings::all_local.map |$k, $v| { [$k, String(type($v, 'generalized'))] }.convert_to(Hash) }
PP
node = Puppet::Node.new('node.example.com', environment: env)
catalog = Puppet.override({ environments: Puppet::Environments::Static.new(env), current_environment: env }, 'settings table') do
  Puppet::Parser::Compiler.compile(node)
end
values = catalog.resource('Notify', 'values')[:message]
types = catalog.resource('Notify', 'types')[:message]
raise "all_local has #{values.size} settings, the table #{rows.size}" unless values.size == rows.size
rows.each do |row|
  n = row['name']
  raise "#{n} is not in $settings::all_local" unless values.key?(n)
  row['expect'] = { 'type' => types[n], 'value' => plain(values[n]) }
end
raise 'all_local order differs' unless values.keys == rows.map { |r| r['name'] }
rows.each { |r| puts JSON.generate(r) }
'''


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--print", action="store_true", help="print the table, write nothing")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("run as root: the table is a root server's view (system directories)")
    conf = subprocess.run(["puppet", "config", "print", "config"], capture_output=True,
                          text=True, check=True).stdout.strip()
    if os.path.exists(conf):
        with open(conf, encoding="utf-8") as f:
            set_lines = [l for l in f if l.strip() and not l.lstrip().startswith("#")]
        if set_lines:
            sys.exit(f"{conf} sets something ({set_lines[0].strip()}); the table is Puppet's defaults")
    proc = subprocess.run(["ruby", "-e", RUBY], capture_output=True, text=True, check=False,
                          cwd="/")
    if proc.returncode != 0:
        sys.exit(f"ruby failed ({proc.returncode}):\n{proc.stderr}")
    rows = [json.loads(l) for l in proc.stdout.splitlines() if l.strip()]
    out = []
    for r in rows:
        name = r["name"]
        if name in FROM_COMPILE:
            r["from"] = FROM_COMPILE[name]
        if name == "code":
            r["default"] = ""
            r["expect"] = {"type": "String", "value": ""}
        line = {k: r[k] for k in ("name", "kind", "default", "values", "alias_for", "from",
                                   "expect") if k in r}
        out.append(json.dumps(line, ensure_ascii=False))
    text = "\n".join(out) + "\n"
    # Nothing of this host: its names, its home, its addresses.
    host = socket.gethostname()
    leaks = {host, socket.getfqdn(), os.path.expanduser("~"), ROOT} - {"localhost"}
    try:
        leaks.update(a for a in socket.gethostbyname_ex(host)[2] if not a.startswith("127."))
    except OSError:
        pass
    for p in leaks:
        if p and len(p) > 1 and re.search(r"(?<![\w.-])" + re.escape(p) + r"(?![\w-])", text):
            sys.exit(f"this host's {p!r} appears in the table")
    if args.print:
        sys.stdout.write(text)
        return
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {len(out)} settings to {os.path.relpath(args.out, ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
