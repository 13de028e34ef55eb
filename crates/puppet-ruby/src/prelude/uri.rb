# A part of Ruby's URI (uri/common.rb, uri/generic.rb of Ruby 3.1) for puppet-ruby:
# parsing into components (RFC 3986), printing, and the escaping helpers.
module URI
  class Error < StandardError; end
  class InvalidURIError < Error; end
  class InvalidComponentError < Error; end
  class BadURIError < Error; end

  DEFAULT_PORTS = { 'http' => 80, 'https' => 443, 'ftp' => 21, 'ldap' => 389, 'ldaps' => 636 }.freeze

  class Generic
    attr_reader :scheme, :userinfo, :host, :port, :path, :query, :fragment, :opaque

    def initialize(scheme, userinfo, host, port, registry, path, opaque, query, fragment)
      @scheme = scheme
      @userinfo = userinfo
      @host = host
      @port = port.nil? ? nil : port.to_i
      @port = URI::DEFAULT_PORTS[scheme.to_s.downcase] if @port.nil? && scheme
      @path = path
      @opaque = opaque
      @query = query
      @fragment = fragment
    end

    COMPONENTS = [:scheme, :userinfo, :host, :port, :registry, :path, :opaque, :query, :fragment].freeze

    # Generic.build: the components (a hash, or an array in COMPONENTS order) checked as
    # Ruby 3.1's RFC 3986 parser checks them; the query gets its unsafe bytes escaped.
    def self.build(args)
      parts = {}
      if args.is_a?(Hash)
        args.each { |k, v| parts[k.to_sym] = v }
      elsif args.is_a?(Array)
        COMPONENTS.each_with_index { |c, i| parts[c] = args[i] }
      else
        raise ArgumentError, "expected Array of or Hash of components of #{self} (#{COMPONENTS.join(', ')})"
      end
      scheme, userinfo, host, port, path, query = parts.values_at(:scheme, :userinfo, :host, :port, :path, :query)
      # `hostname=`: an IPv6 address gets its brackets.
      host = "[#{host}]" if host && host.include?(':') && !(host.start_with?('[') && host.end_with?(']'))
      if scheme && scheme !~ /\A[A-Za-z][A-Za-z0-9+\-.]*\z/
        raise InvalidComponentError, "bad component(expected scheme component): #{scheme}"
      end
      if userinfo && userinfo !~ /\A(?:%\h\h|[!$&-.0-;=A-Z_a-z~])*\z/
        raise InvalidComponentError, "bad component(expected userinfo component or user component): #{userinfo}"
      end
      if host && host !~ /\A(?:\[[0-9A-Fa-f:.]+\]|(?:%\h\h|[!$&-.0-9;=A-Z_a-z~])+)\z/
        raise InvalidComponentError, "bad component(expected host component): #{host}"
      end
      if port && !port.is_a?(Integer) && port.to_s !~ /\A\d*\z/
        raise InvalidComponentError, "bad component(expected port component): #{port.inspect}"
      end
      if path
        if (host || port) && !path.empty? && path !~ %r{\A/(?:%\h\h|[!$&-.0-;=@-Z_a-z~/])*\z}
          raise InvalidComponentError, "bad component(expected absolute path component): #{path}"
        elsif path !~ %r{\A(?:%\h\h|[!$&-.0-;=@-Z_a-z~/])*\z}
          raise InvalidComponentError, "bad component(expected relative path component): #{path}"
        end
      end
      if query
        query = query.to_s.delete("\t\r\n").gsub(/[^!$-&(-;=?-_a-~%]/) { |c| c.bytes.map { |b| format('%%%02X', b) }.join }
      end
      new(scheme, userinfo, host, port, nil, path, nil, query, parts[:fragment])
    end

    def scheme=(v)
      @scheme = v
    end

    def host=(v)
      @host = v
    end

    def port=(v)
      @port = v.nil? ? nil : v.to_i
    end

    def path=(v)
      @path = v
    end

    def query=(v)
      @query = v
    end

    def fragment=(v)
      @fragment = v
    end

    def userinfo=(v)
      @userinfo = v
    end

    def user
      @userinfo && @userinfo.split(':', 2)[0]
    end

    def password
      @userinfo && @userinfo.split(':', 2)[1]
    end

    def user=(v)
      @userinfo = password ? "#{v}:#{password}" : v
    end

    def password=(v)
      @userinfo = "#{user}:#{v}"
    end

    def hostname
      h = @host
      h && h.start_with?('[') && h.end_with?(']') ? h[1..-2] : h
    end

    def default_port
      URI::DEFAULT_PORTS[@scheme.to_s.downcase]
    end

    def absolute?
      !@scheme.nil?
    end
    alias absolute absolute?

    def relative?
      @scheme.nil?
    end

    def request_uri
      return nil unless @path
      r = @path.empty? ? '/' : @path.dup
      r += "?#{@query}" if @query
      r
    end

    def to_s
      s = String.new
      s << "#{@scheme}:" if @scheme
      if @opaque
        s << @opaque
      else
        if @host
          s << '//'
          s << "#{@userinfo}@" if @userinfo
          s << @host
          s << ":#{@port}" if @port && @port != default_port
        end
        s << @path.to_s
        s << "?#{@query}" if @query
      end
      s << "##{@fragment}" if @fragment
      s
    end

    def inspect
      "#<#{self.class} #{to_s}>"
    end

    def ==(other)
      other.is_a?(URI::Generic) && to_s == other.to_s
    end
  end

  class HTTP < Generic; end
  class HTTPS < HTTP; end
  class FTP < Generic; end
  class File < Generic; end
  class LDAP < Generic; end
  class MailTo < Generic; end

  SCHEMES = { 'HTTP' => HTTP, 'HTTPS' => HTTPS, 'FTP' => FTP, 'FILE' => File, 'LDAP' => LDAP, 'MAILTO' => MailTo }.freeze

  RFC3986 = %r{\A(?:([A-Za-z][A-Za-z0-9+\-.]*):)?(?://(?:([^@/?#]*)@)?(\[[0-9A-Fa-f:.]+\]|[^:/?#\[\]]*)(?::(\d*))?)?([^?#]*)(?:\?([^#]*))?(?:#(.*))?\z}

  def self.parse(uri)
    uri = uri.to_s
    m = RFC3986.match(uri)
    raise InvalidURIError, "bad URI(is not URI?): #{uri.inspect}" if m.nil? || uri =~ /\s/
    scheme, userinfo, host, port, path, query, fragment = m.captures
    has_authority = uri.sub(/\A[A-Za-z][A-Za-z0-9+\-.]*:/, '').start_with?('//')
    host = nil unless has_authority
    opaque = nil
    if scheme && !has_authority && !path.start_with?('/')
      opaque = path
      path = nil
    end
    port = nil if port && port.empty?
    klass = SCHEMES[scheme.to_s.upcase] || Generic
    klass.new(scheme, userinfo, host, port, nil, path, opaque, query, fragment)
  end

  def self.join(*parts)
    parts.map(&:to_s).reduce do |base, rel|
      rel =~ %r{\A[A-Za-z][A-Za-z0-9+\-.]*:} ? rel : base.sub(%r{/[^/]*\z}, '/') + rel.sub(%r{\A/}, '')
    end
  end

  def self.encode_www_form_component(str, enc = nil)
    str.to_s.b.gsub(/[^*\-.0-9A-Z_a-z ]/) { |c| format('%%%02X', c.ord) }.tr(' ', '+')
  end

  def self.decode_www_form_component(str, enc = nil)
    str.to_s.tr('+', ' ').gsub(/%[0-9A-Fa-f]{2}/) { |c| c[1..2].to_i(16).chr }
  end

  def self.encode_www_form(enum, enc = nil)
    enum.map do |k, v|
      if v.nil?
        encode_www_form_component(k)
      elsif v.is_a?(Array)
        v.map { |x| "#{encode_www_form_component(k)}=#{encode_www_form_component(x)}" }.join('&')
      else
        "#{encode_www_form_component(k)}=#{encode_www_form_component(v)}"
      end
    end.join('&')
  end

  def self.decode_www_form(str, enc = nil)
    str.to_s.split(/[&;]/).map do |pair|
      k, v = pair.split('=', 2)
      [decode_www_form_component(k), decode_www_form_component(v.to_s)]
    end
  end

  def self.regexp(schemes = nil)
    %r{[A-Za-z][A-Za-z0-9+\-.]*:[^\s]*}
  end

  def self.split(uri)
    u = parse(uri)
    [u.scheme, u.userinfo, u.host, u.port && u.port.to_s, nil, u.path, u.opaque, u.query, u.fragment]
  end

  def self.escape(str, unsafe = nil)
    DEFAULT_PARSER.escape(str)
  end

  def self.encode(str, unsafe = nil)
    escape(str, unsafe)
  end

  def self.unescape(str)
    str.to_s.gsub(/%[0-9A-Fa-f]{2}/) { |c| c[1..2].to_i(16).chr }
  end

  def self.decode(str)
    unescape(str)
  end

  class RFC2396_Parser
    UNSAFE = %r{[^\-_.!~*'()a-zA-Z\d;/?:@&=+$,\[\]]}

    def escape(str, unsafe = UNSAFE)
      unsafe = Regexp.new("[#{Regexp.quote(unsafe)}]") if unsafe.is_a?(String)
      # Each unsafe character as the %XX of its UTF-8 bytes.
      str.to_s.gsub(unsafe) { |c| c.bytes.map { |b| format('%%%02X', b) }.join }
    end

    def unescape(str)
      URI.unescape(str)
    end

    def parse(uri)
      URI.parse(uri)
    end

    def split(uri)
      URI.split(uri)
    end
  end

  RFC3986_Parser = RFC2396_Parser
  DEFAULT_PARSER = RFC2396_Parser.new
end

module Kernel
  def URI(uri)
    uri.is_a?(URI::Generic) ? uri : URI.parse(uri)
  end
end
