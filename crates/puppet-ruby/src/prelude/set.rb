# Ruby's Set (set.rb of Ruby 3.1) for puppet-ruby: a Hash of members, insertion ordered.
class Set
  include Enumerable

  def self.[](*items)
    new(items)
  end

  def initialize(items = nil, &block)
    @hash = {}
    return if items.nil?
    items.each { |x| add(block ? block.call(x) : x) }
  end

  def add(x)
    @hash[x] = true
    self
  end
  alias << add

  def add?(x)
    include?(x) ? nil : add(x)
  end

  def delete(x)
    @hash.delete(x)
    self
  end

  def delete?(x)
    include?(x) ? delete(x) : nil
  end

  def delete_if
    @hash.keys.each { |x| @hash.delete(x) if yield(x) }
    self
  end

  def include?(x)
    @hash.key?(x)
  end
  alias member? include?
  alias === include?

  def each(&block)
    @hash.each_key(&block)
    self
  end

  def size
    @hash.size
  end
  alias length size

  def empty?
    @hash.empty?
  end

  def clear
    @hash.clear
    self
  end

  def to_a
    @hash.keys
  end

  def to_set
    self
  end

  def dup
    Set.new(to_a)
  end

  def |(other)
    Set.new(to_a + other.to_a)
  end
  alias union |
  alias + |

  def &(other)
    Set.new(to_a.select { |x| other.include?(x) })
  end
  alias intersection &

  def -(other)
    Set.new(to_a.reject { |x| other.include?(x) })
  end
  alias difference -

  # As Ruby's: the other's members, then each of ours added or, when there, removed (the
  # order of the result follows).
  def ^(other)
    n = Set.new(other)
    each { |o| n.include?(o) ? n.delete(o) : n.add(o) }
    n
  end

  def subset?(other)
    size <= other.size && all? { |x| other.include?(x) }
  end
  alias <= subset?

  def superset?(other)
    other.all? { |x| include?(x) }
  end
  alias >= superset?

  def proper_subset?(other)
    subset?(other) && size < other.size
  end
  alias < proper_subset?

  def proper_superset?(other)
    superset?(other) && size > other.size
  end
  alias > proper_superset?

  def disjoint?(other)
    none? { |x| other.include?(x) }
  end

  def intersect?(other)
    !disjoint?(other)
  end

  def ==(other)
    other.is_a?(Set) && size == other.size && other.all? { |x| include?(x) }
  end

  def eql?(other)
    other.is_a?(Set) && to_a.eql?(other.to_a)
  end

  def hash
    to_a.hash
  end

  def merge(*enums)
    enums.each { |e| e.each { |x| add(x) } }
    self
  end

  def subtract(enum)
    enum.each { |x| delete(x) }
    self
  end

  def map!
    items = to_a.map { |x| yield(x) }
    @hash = {}
    items.each { |x| add(x) }
    self
  end
  alias collect! map!

  def select!
    @hash.keys.each { |x| @hash.delete(x) unless yield(x) }
    self
  end
  alias filter! select!

  def reject!
    @hash.keys.each { |x| @hash.delete(x) if yield(x) }
    self
  end

  def freeze
    @hash.freeze
    super
  end

  def inspect
    "#<Set: {#{to_a.map(&:inspect).join(', ')}}>"
  end
  alias to_s inspect
end

class SortedSet < Set
  def to_a
    super.sort
  end

  def each(&block)
    to_a.each(&block)
    self
  end
end

module Enumerable
  def to_set
    Set.new(to_a)
  end
end

class Array
  def to_set
    Set.new(self)
  end
end
