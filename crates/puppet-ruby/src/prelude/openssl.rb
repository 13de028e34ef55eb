# OpenSSL's message digests for puppet-rs (`OpenSSL::Digest::SHA256.hexdigest(data)`,
# `OpenSSL::Digest.new('sha256').hexdigest(data)`, `update`/`<<`), computed by the Digest
# classes of this engine (MD5, SHA1, SHA256, SHA512). The rest of OpenSSL (ciphers, keys,
# certificates, HMAC...) is not provided: naming it is an error.
module OpenSSL
  class Digest
    def self.hexdigest(name, data)
      new(name).hexdigest(data)
    end

    def self.digest(name, data)
      new(name).digest(data)
    end

    def self.base64digest(name, data)
      new(name).base64digest(data)
    end

    def initialize(name, data = nil)
      @name = name.to_s.upcase.delete('-')
      @impl = case @name
              when 'MD5' then ::Digest::MD5
              when 'SHA1' then ::Digest::SHA1
              when 'SHA256' then ::Digest::SHA256
              when 'SHA512' then ::Digest::SHA512
              when 'SHA224', 'SHA384', 'RIPEMD160', 'SHA3256', 'SHA3512'
                raise NotImplementedError, "OpenSSL::Digest #{@name} is not available in puppet-rs"
              else
                raise RuntimeError, "Unsupported digest algorithm (#{name}).: unknown object name"
              end
      @data = String.new
      update(data) if data
    end

    attr_reader :name

    def update(data)
      @data << data
      self
    end
    alias << update

    def reset
      @data = String.new
      self
    end

    # With data: the digest of that data (the digest is reset, as OpenSSL's).
    def digest(data = nil)
      reset if data
      @impl.digest(data || @data)
    end

    def hexdigest(data = nil)
      reset if data
      @impl.hexdigest(data || @data)
    end

    def base64digest(data = nil)
      reset if data
      @impl.base64digest(data || @data)
    end

    def to_s
      hexdigest
    end

    def digest_length
      @impl.digest('').bytesize
    end

    def block_length
      @name == 'SHA512' ? 128 : 64
    end

    class MD5 < Digest
      def self.hexdigest(data) = new.hexdigest(data)
      def self.digest(data) = new.digest(data)
      def self.base64digest(data) = new.base64digest(data)

      def initialize(data = nil)
        super('MD5', data)
      end
    end

    class SHA1 < Digest
      def self.hexdigest(data) = new.hexdigest(data)
      def self.digest(data) = new.digest(data)
      def self.base64digest(data) = new.base64digest(data)

      def initialize(data = nil)
        super('SHA1', data)
      end
    end

    class SHA256 < Digest
      def self.hexdigest(data) = new.hexdigest(data)
      def self.digest(data) = new.digest(data)
      def self.base64digest(data) = new.base64digest(data)

      def initialize(data = nil)
        super('SHA256', data)
      end
    end

    class SHA512 < Digest
      def self.hexdigest(data) = new.hexdigest(data)
      def self.digest(data) = new.digest(data)
      def self.base64digest(data) = new.base64digest(data)

      def initialize(data = nil)
        super('SHA512', data)
      end
    end
  end
end
