#!/usr/bin/env ruby
# frozen_string_literal: true
#
# dump-types.rb: ask the real Puppet (7.x, Ruby API) what it knows about
# resource types, and print it as JSON. This is the oracle for the
# puppet-restypes tests (tests/fixtures/puppet-types.json).
#
# Usage:
#   ruby tools/dump-types.rb [-M MODULEPATH] > tests/fixtures/puppet-types.json
#
# Core types are those under Puppet's own lib/puppet/type/. With -M, every
# lib/puppet/type/*.rb of every module on the (colon separated) modulepath is
# loaded too, with the modules' lib/ directories on $LOAD_PATH (as `puppet
# apply` and the compile-catalog oracle do), so that module types and their
# providers load.

require 'optparse'
require 'json'
require 'tmpdir'
require 'fileutils'

modulepath = ''
OptionParser.new do |o|
  o.on('-M', '--modulepath PATH', 'colon separated module path') { |v| modulepath = v }
end.parse!(ARGV)

tmp = Dir.mktmpdir('dump-types-')
at_exit { FileUtils.rm_rf(tmp) }
require 'puppet'
Puppet.initialize_settings([
  '--confdir', File.join(tmp, 'conf'), '--vardir', File.join(tmp, 'var'),
  '--codedir', File.join(tmp, 'code'), '--logdir', File.join(tmp, 'log'),
  '--rundir', File.join(tmp, 'run'), '--ssldir', File.join(tmp, 'ssl'),
  '--publicdir', File.join(tmp, 'public'),
  '--environmentpath', File.join(tmp, 'code', 'environments'),
  '--basemodulepath', '', '--color', 'false'
])
Puppet::Util::Log.close_all

dirs = modulepath.split(':').reject(&:empty?).map { |p| File.expand_path(p) }
env = Puppet::Node::Environment.create(:production, dirs)

def value_info(klass)
  vc = klass.respond_to?(:value_collection) ? klass.value_collection : nil
  return nil if vc.nil? || vc.empty?
  { 'values' => vc.values.map(&:to_s), 'regexes' => vc.regexes }
end

def dump_type(klass)
  h = { 'name' => klass.name.to_s }
  h['namevars'] = klass.key_attributes.map(&:to_s)
  h['parameters'] = klass.parameters.map(&:to_s)
  h['properties'] = klass.properties.map { |p| p.name.to_s }
  h['isomorphic'] = klass.isomorphic?
  h['ensurable'] = klass.validproperty?(:ensure)
  begin
    h['title_patterns'] = klass.title_patterns.map do |re, caps|
      { 'regex' => re.source, 'options' => re.options, 'captures' => caps.map { |c| c[0].to_s } }
    end
  rescue StandardError => e
    h['title_patterns_error'] = e.message
  end
  h['features'] = klass.features.map(&:to_s)
  %w[autorequires autobefores autosubscribes autonotifies].each do |iv|
    v = klass.instance_variable_get("@#{iv}")
    h[iv] = v ? v.keys.map(&:to_s) : []
  end
  values = {}
  (klass.parameters + klass.properties.map(&:name)).each do |n|
    vi = value_info(klass.attrclass(n))
    values[n.to_s] = vi if vi
  end
  h['values'] = values
  h
end

# The facts of this host that type files read while they load (Facter.value in
# firewall's and mount's type): the readers under test are given the same.
HOST_FACTS = %w[os kernel operatingsystem operatingsystemmajrelease osfamily].freeze
facts = HOST_FACTS.to_h { |f| [f, Facter.value(f)] }

out = { 'puppet_version' => Puppet.version, 'metaparameters' => Puppet::Type.metaparams.map(&:to_s),
        'host_facts' => facts, 'core' => {}, 'modules' => {} }

Puppet.override({ environments: Puppet::Environments::Static.new(env), current_environment: env }, 'dump-types') do
  env.each_plugin_directory { |dir| $LOAD_PATH << dir unless $LOAD_PATH.include?(dir) }
  core_dir = File.join(File.dirname(Puppet::Type.method(:newtype).source_location[0]), '..', 'type')
  core_dir = File.join(Gem::Specification.find_by_name('puppet').gem_dir, 'lib', 'puppet', 'type') unless File.directory?(core_dir)
  Dir.glob(File.join(core_dir, '*.rb')).map { |f| File.basename(f, '.rb') }.sort.each do |name|
    klass = Puppet::Type.type(name.to_sym)
    out['core'][name] = klass ? dump_type(klass) : { 'name' => name, 'error' => 'not loadable' }
  end
  env.modules.sort_by(&:name).each do |mod|
    Dir.glob(File.join(mod.path, 'lib', 'puppet', 'type', '*.rb')).sort.each do |file|
      name = File.basename(file, '.rb')
      key = "#{mod.name}/#{name}"
      begin
        klass = Puppet::Type.type(name.to_sym)
        out['modules'][key] = klass ? dump_type(klass) : { 'name' => name, 'error' => 'not loadable' }
      rescue Exception => e # rubocop:disable Lint/RescueException
        raise if e.is_a?(SystemExit) || e.is_a?(Interrupt)
        out['modules'][key] = { 'name' => name, 'error' => "#{e.class}: #{e.message}" }
      end
    end
  end
end
puts JSON.pretty_generate(out)
