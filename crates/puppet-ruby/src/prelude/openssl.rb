# OpenSSL's message digests for puppet-rs (`OpenSSL::Digest::SHA256.hexdigest(data)`,
# `OpenSSL::Digest.new('sha256').hexdigest(data)`, `update`/`<<`), computed by the Digest
# classes of this engine (MD5, SHA1, SHA256, SHA512), HMAC over them (`OpenSSL::HMAC`) and
# PBKDF2 (`OpenSSL::KDF.pbkdf2_hmac`, `OpenSSL::PKCS5.pbkdf2_hmac`), as password-hashing
# functions use them (postgresql's SCRAM-SHA-256). The rest of OpenSSL (ciphers, keys,
# certificates...) is not provided: naming it is an error.
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
    alias size digest_length
    alias length digest_length

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

  # HMAC (RFC 2104) over one of the digests above; the MAC itself is native.
  class HMAC
    def self.__name(digest)
      digest.is_a?(OpenSSL::Digest) ? digest.name : digest.to_s.upcase.delete('-')
    end

    def self.digest(digest, key, data)
      __hmac(__name(digest), key.to_s, data.to_s)
    end

    def self.hexdigest(digest, key, data)
      digest(digest, key, data).unpack1('H*')
    end

    def self.base64digest(digest, key, data)
      [digest(digest, key, data)].pack('m0')
    end

    def initialize(key, digest)
      @key = key.to_s.dup
      @digest = HMAC.__name(digest)
      @data = String.new
    end

    def update(data)
      @data << data
      self
    end
    alias << update

    def reset
      @data = String.new
      self
    end

    def digest
      HMAC.digest(@digest, @key, @data)
    end

    def hexdigest
      HMAC.hexdigest(@digest, @key, @data)
    end
    alias to_s hexdigest
    alias inspect hexdigest

    def base64digest
      HMAC.base64digest(@digest, @key, @data)
    end
  end

  # PBKDF2 with HMAC (RFC 8018); the derivation itself is native.
  module PKCS5
    def self.pbkdf2_hmac(pass, salt, iter, keylen, digest)
      __pbkdf2(pass.to_s, salt.to_s, iter, keylen, HMAC.__name(digest))
    end

    def self.pbkdf2_hmac_sha1(pass, salt, iter, keylen)
      __pbkdf2(pass.to_s, salt.to_s, iter, keylen, 'SHA1')
    end
  end

  module KDF
    def self.pbkdf2_hmac(pass, salt:, iterations:, length:, hash:)
      PKCS5.__pbkdf2(pass.to_s, salt.to_s, iterations, length, HMAC.__name(hash))
    end
  end
end
