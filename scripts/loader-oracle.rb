#!/usr/bin/ruby
# Lists what Puppet 7.23 itself finds in an environment, as the oracle for puppet-loader:
# modules (Puppet's module discovery), classes and defined types (every module manifest
# parsed and validated with the environment in place, then imported the way
# Puppet::Parser::TypeLoader does it), Puppet-language functions and type aliases
# (discovered by the environment's Pops loaders, .pp origins only).
#
# Usage: scripts/loader-oracle.rb MODULEPATH[:MODULEPATH...] > list.json
# Output: one JSON object {"modules":{name:path},"versions":{name:version},"classes":{name:file},"defines":{..},
#         "functions":{..},"type_aliases":{..},"failed_files":{file:message}}, keys sorted.
# Uses a private temp confdir/vardir; /etc/puppet is never read.
require 'json'
require 'tmpdir'
require 'fileutils'

modulepath = (ARGV[0] || '').split(':')
TMP = Dir.mktmpdir('loader-oracle-')
at_exit { FileUtils.rm_rf(TMP) }
require 'puppet'
Puppet.initialize_settings(['--confdir', File.join(TMP, 'conf'), '--vardir', File.join(TMP, 'var'),
                            '--codedir', File.join(TMP, 'code'), '--logdir', File.join(TMP, 'log'),
                            '--rundir', File.join(TMP, 'run'), '--ssldir', File.join(TMP, 'ssl'),
                            '--publicdir', File.join(TMP, 'public'), '--basemodulepath', '',
                            '--color', 'false'])
Puppet::Util::Log.close_all
require 'puppet/pops'

env = Puppet::Node::Environment.create(:production, modulepath)
out = { 'modules' => {}, 'versions' => {}, 'classes' => {}, 'defines' => {}, 'functions' => {},
        'type_aliases' => {}, 'failed_files' => {} }
Puppet.override({ environments: Puppet::Environments::Static.new(env), current_environment: env,
                  loaders: Puppet::Pops::Loaders.new(env) }, 'loader-oracle') do
  env.modules.each { |m| out['modules'][m.name] = m.path }
  # The version each module had, so that a test can leave out modules installed at another.
  env.modules.each { |m| out['versions'][m.name] = m.version }
  # Puppet-language functions and type aliases: ask each module loader (and the environment
  # loader) for the .pp paths it would consider, turn them into names the way the loader does,
  # and load each name through the environment's private loader (Ruby entities are skipped).
  loaders = Puppet.lookup(:loaders)
  env_loader = loaders.private_environment_loader
  file_loaders = [loaders.public_environment_loader] + env.modules.map { |m| loaders[m.name] }.compact
  [[:function, 'functions'], [:type, 'type_aliases']].each do |type, key|
    file_loaders.each do |fl|
      next unless fl.respond_to?(:smart_paths)
      global = fl.send(:global?)
      fl.smart_paths.effective_paths(type).each do |sp|
        next unless sp.is_a?(Puppet::Pops::Loader::LoaderPaths::PuppetSmartPath)
        fl.send(:relative_paths, sp).each do |rp|
          tn = sp.typed_name(type, Puppet::Pops::Pcore::RUNTIME_NAME_AUTHORITY, rp, global ? nil : fl.module_name)
          next unless sp.valid_name?(tn)
          begin
            entry = env_loader.load_typed(tn)
            origin = entry && entry.origin.to_s
            out[key][tn.name] = origin if origin && origin.end_with?('.pp')
          rescue StandardError, ScriptError => e
            out['failed_files']["#{key}:#{tn.name}"] = e.message.lines.first.to_s.strip
          end
        end
      end
    end
  end
  # Classes and defined types in a fresh environment of their own (the type alias loading
  # above may already have autoloaded some init.pp files into the first one).
  cenv = Puppet::Node::Environment.create(:classes, modulepath)
  Puppet.override({ environments: Puppet::Environments::Static.new(cenv), current_environment: cenv,
                    loaders: Puppet::Pops::Loaders.new(cenv) }, 'loader-oracle classes') do
    krt = cenv.known_resource_types
    cenv.modules.each do |mod|
      mod.all_manifests.sort.each do |file|
        begin
          ast = Puppet::Parser::ParserFactory.parser.tap { |p| p.file = file }.parse
          krt.import_ast(ast, mod.name)
        rescue StandardError => e
          out['failed_files'][file] = e.message.lines.first.to_s.strip
        end
      end
    end
    krt.hostclasses.each { |name, c| out['classes'][name] = c.file unless name == '' }
    krt.definitions.each { |name, d| out['defines'][name] = d.file }
  end
end
out.each_key { |k| out[k] = out[k].sort.to_h }
puts JSON.pretty_generate(out)
