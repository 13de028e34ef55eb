# A part of RubyGems for puppet-ruby: Gem::Version (parsing and comparison, as
# rubygems/version.rb of Ruby 3.1 does) and the Gem::Requirement checks modules use.
module Gem
  class Version
    include Comparable

    PATTERN = /\A\s*([0-9]+(?:\.[0-9a-zA-Z]+)*(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?)?\s*\z/

    def self.correct?(version)
      !!(version.to_s =~ PATTERN)
    end

    def self.create(input)
      input.is_a?(Version) ? input : new(input)
    end

    def initialize(version)
      version = version.to_s
      raise ArgumentError, "Malformed version number string #{version}" unless self.class.correct?(version)
      @version = version.strip.gsub('-', '.pre.')
      @version = '0' if @version.empty?
    end

    def version
      @version
    end
    alias to_s version

    def inspect
      "#<Gem::Version #{@version.inspect}>"
    end

    def segments
      @version.scan(/[0-9]+|[a-z]+/i).map { |s| s =~ /\A\d+\z/ ? s.to_i : s }
    end

    def canonical_segments
      segs = segments
      segs.pop while segs.size > 1 && segs.last == 0
      segs
    end

    def prerelease?
      @version =~ /[a-zA-Z]/ ? true : false
    end

    def release
      prerelease? ? Version.new(segments.take_while { |s| s.is_a?(Integer) }.join('.')) : self
    end

    def bump
      segs = segments.take_while { |s| s.is_a?(Integer) }
      segs.pop if segs.size > 1
      segs[-1] = segs[-1] + 1
      Version.new(segs.join('.'))
    end

    def <=>(other)
      return nil unless other.is_a?(Version)
      return 0 if @version == other.version
      lhs = canonical_segments
      rhs = other.canonical_segments
      limit = [lhs.size, rhs.size].max - 1
      i = 0
      while i <= limit
        l = lhs[i] || 0
        r = rhs[i] || 0
        i += 1
        next if l == r
        return -1 if l.is_a?(String) && r.is_a?(Integer)
        return 1 if l.is_a?(Integer) && r.is_a?(String)
        return l <=> r
      end
      0
    end

    def eql?(other)
      other.is_a?(Version) && @version == other.version
    end

    def hash
      canonical_segments.hash
    end
  end

  class Requirement
    OPS = {
      '=' => lambda { |v, r| v == r },
      '!=' => lambda { |v, r| v != r },
      '>' => lambda { |v, r| v > r },
      '<' => lambda { |v, r| v < r },
      '>=' => lambda { |v, r| v >= r },
      '<=' => lambda { |v, r| v <= r },
      '~>' => lambda { |v, r| v >= r && v.release < r.bump },
    }.freeze

    def self.create(*reqs)
      new(*reqs)
    end

    def initialize(*reqs)
      reqs = ['>= 0'] if reqs.empty?
      @requirements = reqs.flatten.map do |r|
        m = /\A\s*(=|!=|>|<|>=|<=|~>)?\s*([0-9][0-9a-zA-Z.\-]*)\s*\z/.match(r.to_s)
        raise ArgumentError, "Illformed requirement [#{r.inspect}]" unless m
        [m[1] || '=', Version.new(m[2])]
      end
    end

    def satisfied_by?(version)
      @requirements.all? { |op, rv| OPS[op].call(version, rv) }
    end
  end
end
