# Ruby's Resolv (resolv.rb of Ruby 3.1) for puppet-rs: the address patterns that modules
# use to validate addresses (`Resolv::IPv4::Regex`, `Resolv::IPv6::Regex` and their
# parts), with Ruby's exact regexps. Name resolution (Resolv.getaddress, Resolv::DNS...)
# is not available to a catalog compile: it raises NotImplementedError (a ScriptError,
# which a plain `rescue` does not hide).
class Resolv
  def self.method_missing(name, *_args)
    raise NotImplementedError, "Resolv.#{name} (name resolution) is not available in puppet-rs"
  end

  class DNS
    def self.method_missing(name, *_args)
      raise NotImplementedError, "Resolv::DNS.#{name} (name resolution) is not available in puppet-rs"
    end

    def initialize(*_args)
      raise NotImplementedError, 'Resolv::DNS (name resolution) is not available in puppet-rs'
    end
  end

  class IPv4
    Regex256 = /0
               |1(?:[0-9][0-9]?)?
               |2(?:[0-4][0-9]?|5[0-5]?|[6-9])?
               |[3-9][0-9]?/x
    Regex = /\A(#{Regex256})\.(#{Regex256})\.(#{Regex256})\.(#{Regex256})\z/
  end

  class IPv6
    Regex_8Hex = /\A
      (?:[0-9A-Fa-f]{1,4}:){7}
         [0-9A-Fa-f]{1,4}
      \z/x

    Regex_CompressedHex = /\A
      ((?:[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4})*)?) ::
      ((?:[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4})*)?)
      \z/x

    Regex_6Hex4Dec = /\A
      ((?:[0-9A-Fa-f]{1,4}:){6,6})
      (\d+)\.(\d+)\.(\d+)\.(\d+)
      \z/x

    Regex_CompressedHex4Dec = /\A
      ((?:[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4})*)?) ::
      ((?:[0-9A-Fa-f]{1,4}:)*)
      (\d+)\.(\d+)\.(\d+)\.(\d+)
      \z/x

    Regex_8HexLinkLocal = /\A
      [Ff][Ee]80
      (?::[0-9A-Fa-f]{1,4}){7}
      %[0-9A-Za-z\-]+
      \z/x

    Regex_CompressedHexLinkLocal = /\A
      [Ff][Ee]80:
      (?:
        ((?:[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4})*)?) ::
        ((?:[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4})*)?)
        |
        :((?:[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4})*)?)
      )?
      :[0-9A-Fa-f]{1,4}%[0-9A-Za-z.\-]+
      \z/x

    Regex = /
      (?:#{Regex_8Hex}) |
      (?:#{Regex_CompressedHex}) |
      (?:#{Regex_6Hex4Dec}) |
      (?:#{Regex_CompressedHex4Dec}) |
      (?:#{Regex_8HexLinkLocal}) |
      (?:#{Regex_CompressedHexLinkLocal})
      /x
  end

  AddressRegex = /(?:#{IPv4::Regex})|(?:#{IPv6::Regex})/
end
