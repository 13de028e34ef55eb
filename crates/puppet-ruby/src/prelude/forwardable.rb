# Ruby's Forwardable for puppet-ruby: def_delegator(s) defining forwarding methods.
module Forwardable
  def def_delegator(accessor, method, ali = method)
    accessor = accessor.to_s
    define_method(ali) do |*args, &block|
      target = accessor.start_with?('@') ? instance_variable_get(accessor) : send(accessor)
      target.send(method, *args, &block)
    end
  end
  alias def_instance_delegator def_delegator

  def def_delegators(accessor, *methods)
    methods.each { |m| def_delegator(accessor, m) }
  end
  alias def_instance_delegators def_delegators

  def delegate(hash)
    hash.each do |methods, accessor|
      Array(methods).each { |m| def_delegator(accessor, m) }
    end
  end
  alias instance_delegate delegate
end
