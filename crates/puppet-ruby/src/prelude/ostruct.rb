# Ruby's OpenStruct for puppet-ruby: attributes in a Hash, accessors through method_missing.
class OpenStruct
  def initialize(hash = nil)
    @table = {}
    (hash || {}).each { |k, v| @table[k.to_sym] = v }
  end

  def [](name)
    @table[name.to_sym]
  end

  def []=(name, value)
    @table[name.to_sym] = value
  end

  def to_h
    @table.dup
  end

  def each_pair(&block)
    @table.each_pair(&block)
  end

  def respond_to_missing?(name, include_private = false)
    @table.key?(name.to_s.chomp('=').to_sym) || super
  end

  def method_missing(name, *args)
    n = name.to_s
    if n.end_with?('=')
      @table[n.chomp('=').to_sym] = args[0]
    else
      @table[name.to_sym]
    end
  end

  def dig(*keys)
    @table.dig(*keys)
  end

  def delete_field(name)
    @table.delete(name.to_sym)
  end

  def inspect
    fields = @table.map { |k, v| "#{k}=#{v.inspect}" }
    fields.empty? ? "#<#{self.class}>" : "#<#{self.class} #{fields.join(', ')}>"
  end
  alias to_s inspect

  def ==(other)
    other.is_a?(OpenStruct) && to_h == other.to_h
  end
end
