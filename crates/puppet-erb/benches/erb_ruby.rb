#!/usr/bin/env ruby
# Times Ruby's ERB on the same work as the `erb` criterion bench (benches/erb.rs): for every
# recorded apache vhost fixture (tests/fixtures/expected.json, "#smart" variables, rendered
# without error), build the template wrapper, bind the variables, compile with
# ERB.new(text, trim_mode: '-') and render, as Puppet does on each template() call.
# Prints one line: "ruby_ns_per_iter <n>" (one iteration renders all the templates).
# Usage: ruby crates/puppet-erb/benches/erb_ruby.rb [expected.json] [seconds]
require 'erb'
require 'json'
require 'yaml'
require 'ipaddr'

path = ARGV[0] || File.join(__dir__, '..', 'tests', 'fixtures', 'expected.json')
budget = (ARGV[1] || '3').to_f
records = JSON.parse(File.read(path)).select do |r|
  r['file'].start_with?('apache/templates/vhost/') && r['name'].end_with?('#smart') && r['output']
end

class BenchScope
  def initialize(vars) @vars = vars end
  def lookupvar(n) @vars[n.sub(/\A::/, '')] end
  def [](n) lookupvar(n) end
  def include?(n) !lookupvar(n).nil? end
  def to_hash() @vars.reject { |_, v| v.nil? } end
  def function_versioncmp(args)
    args[0].to_s.split('.').map(&:to_i) <=> args[1].to_s.split('.').map(&:to_i)
  end
  def call_function(name, args) send("function_#{name}", args) end
end

class BenchWrapper
  def initialize(scope, file) @__scope__ = scope; @__file__ = file end
  def scope() @__scope__ end
  def file() @__file__ end
  def has_variable?(n) scope.include?(n.to_s) end
  def render(text)
    scope.to_hash.each { |name, value| instance_variable_set("@#{name.gsub(/[^\w]/, '_')}", value) }
    t = ERB.new(text, trim_mode: '-')
    t.filename = @__file__
    t.result(binding)
  end
end

work = records.map { |r| [r['file'], r['template'], r['vars'].freeze, r['output']] }
one = lambda do
  work.each do |file, text, vars, expected|
    out = BenchWrapper.new(BenchScope.new(vars), file).render(text)
    raise "mismatch in #{file}" unless out == expected
  end
end
3.times { one.call }
iters = 0
t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
loop do
  one.call
  iters += 1
  break if Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0 > budget
end
elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0
puts "templates #{work.size}"
puts "ruby_ns_per_iter #{(elapsed * 1e9 / iters).round}"
