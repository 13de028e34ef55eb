# Puppet::ResourceApi (the puppet-resource_api gem Puppet 7 ships) for puppet-ruby's type
# recorder: `register_type` defines the type through Puppet::Type's DSL as the gem does,
# so that the recorder sees its attributes: `behaviour: :namevar` and `:parameter` are
# parameters (namevars marked), the others properties; `default` is the attribute's
# default, `desc` its documentation with the type appended ("(a String)"); the title
# patterns are the definition's (each named group sets the attribute of its name) or the
# first namevar from the whole title. What the gem does at apply time (providers,
# validation against the declared Puppet types, canonicalisation) is not run here.
module Puppet
  module ResourceApi
    VALID_BEHAVIOURS = [:read_only, :namevar, :parameter, :init_only].freeze

    def self.register_type(definition)
      raise Puppet::DevError, 'requires a hash as definition, not `nil`' if definition.nil?
      raise Puppet::DevError, "requires a Hash as definition, not `#{definition.class}`" unless definition.is_a?(Hash)
      raise Puppet::DevError, 'must have `name`' unless definition.key?(:name)
      attributes = definition[:attributes] || {}
      patterns = definition[:title_patterns]
      namevars = attributes.select { |_, o| o[:behaviour] == :namevar }.keys
      Puppet::Type.newtype(definition[:name].to_sym) do
        @doc = definition[:docs]
        attributes.each do |attr, options|
          behaviour = options[:behaviour]
          if behaviour && !VALID_BEHAVIOURS.include?(behaviour)
            raise Puppet::ResourceError, "`#{behaviour}` is not a valid behaviour value"
          end
          kind = [:parameter, :namevar].include?(behaviour) ? :newparam : :newproperty
          send(kind, attr.to_sym) do
            desc "#{options[:desc]} (a #{options[:type]})" if options[:desc]
            defaultto options[:default] if options.key?(:default)
            isnamevar if behaviour == :namevar
          end
        end
        define_singleton_method(:title_patterns) do
          if patterns
            patterns.map { |item| [item[:pattern], Regexp.new(item[:pattern]).names.map { |x| [x.to_sym] }] }
          else
            [[%r{(.*)}m, [[namevars.first]]]]
          end
        end
      end
    end
  end
end
