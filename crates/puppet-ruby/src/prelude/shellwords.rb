# Ruby's Shellwords (shellwords.rb of Ruby 3.1) for puppet-ruby.
module Shellwords
  def self.shellescape(str)
    str = str.to_s
    return "''" if str.empty?
    str = str.dup
    str.gsub!(/[^A-Za-z0-9_\-.,:+\/@\n]/, "\\\\\\&")
    str.gsub!(/\n/, "'\n'")
    str
  end

  def self.escape(str)
    shellescape(str)
  end

  def self.shelljoin(array)
    array.map { |arg| shellescape(arg) }.join(' ')
  end

  def self.join(array)
    shelljoin(array)
  end

  def self.shellsplit(line)
    words = []
    field = String.new
    line.scan(/\G\s*(?>([^\s\\\'\"]+)|'([^\']*)'|"((?:[^\"\\]|\\.)*)"|(\\.?)|(\S))(\s|\z)?/m) do |word, sq, dq, esc, garbage, sep|
      raise ArgumentError, "Unmatched quote: #{line.inspect}" if garbage
      field << (word || sq || (dq && dq.gsub(/\\([$`"\\\n])/, '\\1')) || esc.gsub(/\\(.)/, '\\1'))
      if sep
        words << field
        field = String.new
      end
    end
    words
  end

  def self.split(line)
    shellsplit(line)
  end

  def self.shellwords(line)
    shellsplit(line)
  end
end

class String
  def shellescape
    Shellwords.escape(self)
  end

  def shellsplit
    Shellwords.split(self)
  end
end

class Array
  def shelljoin
    Shellwords.join(self)
  end
end
