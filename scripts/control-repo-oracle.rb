#!/usr/bin/env ruby
# frozen_string_literal: true
#
# control-repo-oracle.rb: what the real Puppet 7.23 compiles and looks up for the nodes of a
# control repository used as a directory environment. Run by scripts/gen-control-repo-fixtures.sh
# and scripts/gen-catalog-diff-fixtures.sh; see those for the fixtures it makes.
#
# Input: JSON lines on stdin, one case each; output: one JSON line per case, in order.
#   {"id":..,"op":"catalog","env":DIR,"node":CERTNAME,"facts":FILE[,"hiera":FILE]}
#       -> {"id":..,"ok":true,"raw":<to_data_hash, see `reproducible`>,"canonical":{..},"logs":[..]}
#          or {"id":..,"ok":false,"error":MSG}
#   {"id":..,"op":"lookup","env":DIR,"node":CERTNAME,"facts":FILE,"key":K,
#    "merge":null|"first"|"unique"|"hash"|"deep","explain":BOOL}
#       -> {"id":..,"status":0|1,"output":TEXT}   (what `puppet lookup` prints and exits with)
#
# How Puppet is set up (the same for every case, each case in a forked child):
# * a private temp confdir/vardir/codedir; no global hiera.yaml (Puppet's default global
#   layer, whose data directory does not exist) unless the case gives one ("hiera": the
#   server's hiera_config); basemodulepath empty;
# * the environment: a fresh temp environmentpath holding one entry, `production`, a symlink to
#   DIR, loaded by Puppet's own directory-environment loader, so that DIR/environment.conf
#   (modulepath, manifest), DIR/hiera.yaml and DIR/data are read as a server reads them. The
#   name is `production` because Puppet only accepts environment names matching \A\w+\z
#   (`control-repo` is not one);
# * the node as compile-catalog (../shared/oracle) makes it: the facts file's values plus
#   clientcert, clientversion and clientnoop, the fixed server facts, trusted data
#   {authenticated => remote, certname => CERTNAME, ...}.
#
# Lookups run the code of `puppet lookup` (Puppet::Application::Lookup#main: an Invocation with
# an Explainer, Puppet::Pops::Lookup.lookup, the explanation text or the YAML rendering of the
# value; exit 1 when not found without --explain, the error text appended to the explanation
# with it) over that node, in a scope made the way `generate_scope` makes it (a compile of
# 'undef'). The application itself is not run because `puppet lookup --node` only fills in
# $trusted from a CA (without one $trusted['certname'] is empty and per-node data is never
# found); here the node is the one the catalogs are compiled for.

require 'json'
require 'tmpdir'
require 'fileutils'

TMP = Dir.mktmpdir('control-repo-oracle-')
MAIN_PID = Process.pid
at_exit { FileUtils.rm_rf(TMP) if Process.pid == MAIN_PID }
%w[conf var code log run].each { |d| FileUtils.mkdir_p(File.join(TMP, d)) }

require 'puppet'
Puppet.initialize_settings([
  '--confdir', File.join(TMP, 'conf'),
  '--vardir', File.join(TMP, 'var'),
  '--codedir', File.join(TMP, 'code'),
  '--logdir', File.join(TMP, 'log'),
  '--rundir', File.join(TMP, 'run'),
  '--ssldir', File.join(TMP, 'ssl'),
  '--publicdir', File.join(TMP, 'public'),
  '--environmentpath', File.join(TMP, 'code', 'environments'),
  '--basemodulepath', '',
  '--hiera_config', File.join(TMP, 'conf', 'hiera.yaml'), # never created
  '--color', 'false',
])
Puppet::Util::Log.close_all

module Puppet::Test; end
unless defined?(Puppet::Test::LogCollector)
  class Puppet::Test::LogCollector
    def initialize(logs) = (@logs = logs)
    def <<(value) = (@logs << value)
  end
end

SERVER_FACTS = {
  'serverversion' => Puppet.version.to_s,
  'servername' => 'puppet.example.com',
  'serverip' => '192.0.2.1',
}.freeze

def load_facts(path)
  data = JSON.parse(File.read(path))
  data = data['values'] if data.is_a?(Hash) && data['values'].is_a?(Hash) && data.key?('name')
  data
end

# The environment `production` = DIR, through Puppet's directory-environment loader.
def environment_for(dir)
  envs = File.join(TMP, "envs-#{Process.pid}")
  FileUtils.rm_rf(envs)
  FileUtils.mkdir_p(envs)
  File.symlink(File.expand_path(dir), File.join(envs, 'production'))
  # The loader reads environment.conf through the settings, which look in environmentpath.
  Puppet[:environmentpath] = envs
  loader = Puppet::Environments::Directories.new(envs, [])
  env = Puppet.override({ environments: loader }, 'oracle') { loader.get!(:production) }
  [loader, env]
end

def make_node(c, env)
  name = c['node']
  facts = load_facts(c['facts']).dup
  facts['clientcert'] ||= name
  facts['clientversion'] ||= Puppet.version.to_s
  facts['clientnoop'] = false unless facts.key?('clientnoop')
  node = Puppet::Node.new(name, environment: env)
  node.fact_merge(Puppet::Node::Facts.new(name, facts))
  node.add_server_facts(SERVER_FACTS)
  node.trusted_data = Puppet::Context::TrustedInformation.new('remote', name, {}).to_h
  node
end

def log_data(logs)
  logs.map do |l|
    h = { 'level' => l.level.to_s, 'message' => l.message.to_s }
    h['source'] = l.source.to_s if l.source && l.source.to_s != 'Puppet'
    h
  end
end

# compile-catalog's canonical form: classes sorted, resources sorted by [type, title] with
# sorted tags and parameters, containment edges sorted; plus insertion orders.
def canonical(data)
  resources = data['resources'].map do |r|
    params = r['parameters'] || {}
    out = {
      'type' => r['type'],
      'title' => r['title'],
      'tags' => (r['tags'] || []).sort,
      'exported' => r['exported'] ? true : false,
      'parameters' => params.keys.sort.each_with_object({}) { |k, h| h[k] = params[k] },
    }
    out['sensitive_parameters'] = r['sensitive_parameters'].sort if r['sensitive_parameters']
    out
  end
  order = resources.map { |r| "#{r['type']}[#{r['title']}]" }
  {
    'node' => data['name'],
    'environment' => data['environment'],
    'classes' => data['classes'].sort,
    'resources' => resources.sort_by { |r| [r['type'], r['title']] },
    'edges' => data['edges'].map { |e| { 'source' => e['source'].to_s, 'target' => e['target'].to_s } }
                            .sort_by { |e| [e['source'], e['target']] },
    'classes_in_order' => data['classes'],
    'resource_order' => order,
  }
end

# Puppet's catalog JSON made reproducible: a fixed "version" and "catalog_uuid", and each
# resource's "file" relative to the environment directory (Puppet writes the path through the
# environmentpath, here a temporary directory).
def reproducible(data, env_dir)
  data = JSON.parse(JSON.generate(data))
  data['version'] = 1700000000
  data['catalog_uuid'] = '00000000-0000-4000-8000-000000000000'
  prefix = File.join(Puppet[:environmentpath], 'production') + '/'
  data['resources'].each do |r|
    r['file'] = r['file'].delete_prefix(prefix) if r['file'].is_a?(String)
  end
  data
end

def compile_case(c)
  Puppet[:hiera_config] = File.expand_path(c['hiera']) if c['hiera']
  logs = []
  loader, env = environment_for(c['env'])
  env.each_plugin_directory { |dir| $LOAD_PATH << dir unless $LOAD_PATH.include?(dir) }
  node = make_node(c, env)
  result = nil
  Puppet::Util::Log.with_destination(Puppet::Test::LogCollector.new(logs)) do
    Puppet.override({ environments: loader, current_environment: env, rich_data: true }, 'oracle') do
      catalog = Puppet::Parser::Compiler.compile(node)
      data = catalog.to_data_hash
      result = { 'ok' => true, 'raw' => reproducible(data, c['env']), 'canonical' => canonical(data) }
    rescue StandardError => e
      result = { 'ok' => false, 'error' => e.message }
    end
  end
  result['logs'] = log_data(logs)
  result
end

def lookup_case(c)
  loader, env = environment_for(c['env'])
  node = make_node(c, env)
  out = +''
  status = 0
  Puppet.override({ environments: loader, current_environment: env }, 'oracle') do
    Puppet[:code] = 'undef'
    compiler = Puppet::Parser::Compiler.new(node)
    compiler.compile do |catalog|
      scope = compiler.topscope
      explain = c['explain'] ? true : false
      # As the application turns --merge into merge options (deep: both flags, false unless given).
      merge = case c['merge']
              when nil then nil
              when 'deep' then { 'strategy' => 'deep', 'sort_merged_arrays' => false, 'merge_hash_arrays' => false }
              else { 'strategy' => c['merge'] }
              end
      invocation = Puppet::Pops::Lookup::Invocation.new(scope, {}, {}, explain ? Puppet::Pops::Lookup::Explainer.new(false, false) : nil)
      begin
        result = Puppet::Pops::Lookup.lookup([c['key']], nil, nil, false, merge, invocation)
        out << Puppet::Network::FormatHandler.format(:yaml).render(result).chomp << "\n" unless explain
      rescue Puppet::DataBinding::LookupError => e
        invocation.report_text { e.message }
        status = 1 unless explain
      end
      out << invocation.explainer.explain.chomp << "\n" if explain
      catalog
    end
  end
  { 'status' => status, 'output' => out }
rescue StandardError => e
  { 'status' => 1, 'output' => '', 'error' => e.message }
end

def run_isolated(c)
  rd, wr = IO.pipe
  pid = fork do
    rd.close
    res = begin
      c['op'] == 'lookup' ? lookup_case(c) : compile_case(c)
    rescue Exception => e # rubocop:disable Lint/RescueException
      { 'ok' => false, 'error' => e.message, 'internal' => true }
    end
    wr.write(JSON.generate(res))
    wr.close
    exit!(0)
  end
  wr.close
  out = rd.read
  rd.close
  Process.wait(pid)
  out.empty? ? { 'ok' => false, 'error' => "child died (status #{$?.exitstatus})", 'internal' => true } : JSON.parse(out)
end

Puppet::Type.loadall
$stdout.sync = true
$stdin.each_line do |line|
  line = line.strip
  next if line.empty?
  c = JSON.parse(line)
  puts JSON.generate({ 'id' => c['id'] }.merge(run_isolated(c)))
end
