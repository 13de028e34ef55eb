# A part of Ruby's Pathname for puppet-ruby: path arithmetic only (no file system access).
class Pathname
  def initialize(path)
    @path = path.to_s
  end

  def to_s
    @path.dup
  end
  alias to_path to_s

  def inspect
    "#<Pathname:#{@path}>"
  end

  def absolute?
    @path.start_with?('/')
  end

  def relative?
    !absolute?
  end

  def root?
    @path == '/'
  end

  def basename(ext = nil)
    Pathname.new(ext ? File.basename(@path, ext) : File.basename(@path))
  end

  def dirname
    Pathname.new(File.dirname(@path))
  end

  def extname
    File.extname(@path)
  end

  def parent
    dirname
  end

  def +(other)
    other = other.to_s
    Pathname.new(other.start_with?('/') ? other : File.join(@path, other))
  end
  alias / +

  def join(*parts)
    parts.reduce(self) { |acc, p| acc + p }
  end

  def each_filename(&block)
    @path.split('/').reject(&:empty?).each(&block)
  end

  def cleanpath
    abs = absolute?
    out = []
    @path.split('/').each do |seg|
      next if seg.empty? || seg == '.'
      if seg == '..' && !out.empty? && out.last != '..'
        out.pop
      elsif seg == '..' && abs
        next
      else
        out << seg
      end
    end
    s = out.join('/')
    Pathname.new(abs ? "/#{s}" : (s.empty? ? '.' : s))
  end

  def ==(other)
    other.is_a?(Pathname) && other.to_s == @path
  end
  alias eql? ==

  def hash
    @path.hash
  end

  def <=>(other)
    other.is_a?(Pathname) ? @path <=> other.to_s : nil
  end
end

module Kernel
  def Pathname(path)
    Pathname.new(path)
  end
end
