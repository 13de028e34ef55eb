#!/usr/bin/env ruby
# frozen_string_literal: true

# Regenerates crates/puppet-types/tests/fixtures/float_digits.tsv: how Ruby 3.1 (the Ruby
# of Puppet 7.23) prints floats with a precision (`'%.Nf' % x`, `%e`, `%g`, `%#g`) and
# rounds them to digits (`round`, `round(half: :even/:down)`, `floor`, `ceil`). Puppet's
# `sprintf` and `String(x, fmt)` are Ruby's `format`, so the same table checks both.
# The values are chosen to land on ties: short decimals (2.675, 0.35, 1.005, ...) whose
# binary value is a hair above or below the half, plus random doubles of every magnitude.
# Deterministic (seeded). Columns: op, digits, x (Ruby's inspect, which parses back to the
# same double), Ruby's answer (a string for formats, inspect of the result for roundings).
#
#   ruby scripts/gen-float-digits.rb > crates/puppet-types/tests/fixtures/float_digits.tsv

rng = Random.new(20_261_128)
values = []
# Short decimals: n / 10^k with the last digit 5 (ties at k-1 digits) and others.
150.times do
  k = rng.rand(1..6)
  n = rng.rand(1..(10**rng.rand(1..7)))
  n = n * 10 + 5 if rng.rand < 0.7
  values << (n.to_f / 10**k)
end
# Exact binary ties (0.125, 2.5, ...).
20.times { values << (rng.rand(1..4000) / 8.0) }
# Random magnitudes.
40.times { values << (rng.rand * 10**rng.rand(-8..20)) }
values += [0.05, 0.5, 1.5, 2.5, 0.25, 0.35, 2.675, 2.665, 1.005, 8.345, 1.0005, 1.115,
           0.125, 1e-7, 123_456_789.125, 9.995, 99.95, 0.0001234, 1234567.0, 1e15, 1e16, 1e22]
values.uniq!

out = []
values.each do |x|
  [0, 1, 2, 4].each do |n|
    out << ['f', n, x.inspect, format("%.#{n}f", x)]
    out << ['e', n, x.inspect, format("%.#{n}e", x)]
    out << ['g', n, x.inspect, format("%.#{n}g", x)]
  end
  out << ['g#', 4, x.inspect, format('%#.4g', x)]
end
values.flat_map { |v| [v, -v] }.each do |x|
  [1, 2, 3].each do |n|
    out << ['round', n, x.inspect, x.round(n).inspect]
    out << ['round_even', n, x.inspect, x.round(n, half: :even).inspect]
    out << ['round_down', n, x.inspect, x.round(n, half: :down).inspect]
    out << ['floor', n, x.inspect, x.floor(n).inspect]
    out << ['ceil', n, x.inspect, x.ceil(n).inspect]
  end
  out << ['round', 0, x.inspect, x.round.inspect] if x.abs < 1e15
  out << ['round_even', 0, x.inspect, x.round(half: :even).inspect] if x.abs < 1e15
  out << ['round_down', 0, x.inspect, x.round(half: :down).inspect] if x.abs < 1e15
end
out.each { |row| puts row.join("\t") }
