#!/usr/bin/env ruby
# Times Ruby's ERB inside Puppet on the same work as the `erb` criterion bench
# (benches/erb.rs): every apache vhost template call Puppet made while compiling the public
# web node, as recorded in tests/fixtures/expected.json (records "node/web/apache/templates/
# vhost/..."). Each call goes through Puppet's own Puppet::Parser::TemplateWrapper#result, as
# template() does: bind every variable of scope.to_hash (the node's top scope plus the
# vhost's ~150 parameters) as instance variables, Puppet::Util.create_erb (ERB with
# trim_mode '-'), render. The scope is a stand-in whose to_hash builds a fresh hash per call
# (Puppet merges the scope chain each time) and whose functions and qualified lookups return
# what Puppet returned (so neither side pays for real function calls).
# Without Puppet it falls back to an equivalent plain-ERB wrapper and says so.
# Prints "templates <n>" and "ruby_ns_per_iter <n>" (one iteration renders all the calls,
# without the time spent copying the variables, printed as "copy_ns_per_iter").
# Usage: ruby crates/puppet-erb/benches/erb_ruby.rb [expected.json] [seconds]
require 'erb'
require 'json'
require 'yaml'
require 'ipaddr'

begin
  require 'puppet'
  require 'puppet/parser/templatewrapper'
  WRAPPER = Puppet::Parser::TemplateWrapper
rescue LoadError
  WRAPPER = nil
end

path = ARGV[0] || File.join(__dir__, '..', 'tests', 'fixtures', 'expected.json')
budget = (ARGV[1] || '3').to_f
records = JSON.parse(File.read(path))
tops = records.select { |r| r['topscope_vars'] }.to_h { |r| [r['name'], r['topscope_vars']] }
records = records.select { |r| r['name'].start_with?('node/web/apache/templates/vhost/') && r['output'] }

def deep_freeze(v)
  case v
  when String then v.freeze
  when Array then v.each { |x| deep_freeze(x) }
  when Hash then v.each_value { |x| deep_freeze(x) }
  end
  v
end

class BenchScope
  def initialize(top, own, calls)
    @top = top
    @own = own
    @calls = calls
    @set = {}
  end

  def to_hash
    h = @top.merge(@own)
    h.reject! { |_, v| v.nil? }
    h
  end

  def lookupvar(n)
    return @set[n] if @set.key?(n)
    hit = @calls.find { |c| c[0] == 'lookupvar' && c[1] == n }
    return hit[2] if hit
    k = n.sub(/\A::/, '')
    @own.key?(k) ? @own[k] : @top[k]
  end

  def [](n)
    lookupvar(n)
  end

  def include?(n)
    !lookupvar(n).nil?
  end

  def setvar(n, v)
    @set[n] = v
  end

  def call_function(name, args)
    hit = @pending.index { |c| c[0] == name && c[1] == args }
    raise "unrecorded call #{name}(#{args.inspect})" unless hit
    @pending.delete_at(hit)[2]
  end

  def method_missing(name, *args)
    fname = name.to_s[/\Afunction_(.+)\z/, 1]
    return super unless fname
    call_function(fname, args[0])
  end

  def respond_to_missing?(name, all = false)
    name.to_s.start_with?('function_') || super
  end

  # Templates may change a variable's array or hash in place (`aliases << ...` in
  # _scriptalias.erb), as they do the catalog's parameter in Puppet: each call starts from
  # fresh copies, made here and timed apart (copy_ns_per_iter) to be taken off.
  def start
    @pending = @calls.dup
    @set = {}
    @own = copy(@orig ||= @own)
    self
  end

  def copy(v)
    case v
    when Array then v.map { |x| copy(x) }
    when Hash then v.to_h { |k, x| [k, copy(x)] }
    else v
    end
  end
end

# Used only without Puppet: the same steps as Puppet's TemplateWrapper#result.
class PlainWrapper
  def initialize(scope) @__scope__ = scope end
  def scope() @__scope__ end
  def file() @__file__ end
  def has_variable?(n) scope.include?(n.to_s) end
  def result(text)
    scope.to_hash.each { |name, value| instance_variable_set("@#{name.gsub(/[^\w]/, '_')}", value) }
    t = ERB.new(text, trim_mode: '-')
    t.filename = @__file__
    t.result(binding)
  end
end

work = records.map do |r|
  top = tops.fetch(r['topscope']).reject { |k, _| r['not_in_scope'].include?(k) }
  scope = BenchScope.new(deep_freeze(top), deep_freeze(r['vars']), r['calls'] || [])
  [r['file'], r['template'], scope, r['output']]
end

one = lambda do |check|
  work.each do |file, text, scope, expected|
    w = (WRAPPER || PlainWrapper).new(scope.start)
    w.instance_variable_set(:@__file__, file)
    out = w.result(text)
    raise "mismatch in #{file}:\n#{out}\n---expected:\n#{expected}" if check && out != expected
  end
end
3.times { one.call(true) }
iters = 0
t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
loop do
  one.call(false)
  iters += 1
  break if Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0 > budget
end
elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0
copies = 0
c0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
loop do
  work.each { |_, _, scope, _| scope.start }
  copies += 1
  break if Process.clock_gettime(Process::CLOCK_MONOTONIC) - c0 > budget / 4
end
copy_ns = (Process.clock_gettime(Process::CLOCK_MONOTONIC) - c0) * 1e9 / copies
puts "wrapper #{WRAPPER ? 'Puppet::Parser::TemplateWrapper' : 'plain ERB (Puppet not found)'}"
puts "templates #{work.size}"
puts "copy_ns_per_iter #{copy_ns.round}"
puts "ruby_ns_per_iter #{(elapsed * 1e9 / iters - copy_ns).round}"
