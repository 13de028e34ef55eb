#!/usr/bin/env ruby
# Writes, as JSON on stdout, the signatures of every 4.x function of Puppet's own
# lib/puppet/functions: for each function (by name), its dispatches in order, each as the
# text Puppet prints in "expects one of" errors (TypeMismatchDescriber#signature_string)
# and whether it is an argument_mismatch handler. A function Puppet cannot load here (a
# missing library) is {"error": "..."}.
#
# Regenerates crates/puppet-functions/tests/fixtures/puppet_signatures.json:
#   ruby scripts/puppet-signatures.rb > crates/puppet-functions/tests/fixtures/puppet_signatures.json
# Needs Puppet 7.23 (Debian's puppet-agent package; its library on Ruby's load path).
require 'puppet'
require 'json'
require 'tmpdir'

dir = Dir.mktmpdir
Puppet.initialize_settings(%w[--confdir --vardir --codedir --logdir --rundir].flat_map { |o| [o, dir] })
env = Puppet::Node::Environment.create(:production, [])
functions_dir = File.expand_path('functions', File.dirname(Puppet::Functions.method(:create_function).source_location[0]))
out = {}
Puppet.override(current_environment: env, loaders: Puppet::Pops::Loaders.new(env)) do
  loader = Puppet.lookup(:loaders).puppet_system_loader
  describer = Puppet::Pops::Types::TypeMismatchDescriber.singleton
  Dir[File.join(functions_dir, '**', '*.rb')].sort.each do |path|
    name = path.sub(functions_dir + '/', '').sub(/\.rb\z/, '').gsub('/', '::')
    begin
      f = loader.load(:function, name)
      next unless f
      out[name] = f.class.dispatcher.signatures.map do |s|
        { 'signature' => describer.send(:signature_string, s),
          'argument_mismatch' => s.argument_mismatch_handler? }
      end
    rescue StandardError, LoadError => e
      out[name] = { 'error' => "#{e.class}: #{e.message}" }
    end
  end
end
FileUtils.remove_entry(dir)
puts JSON.pretty_generate(out)
