# The core of the deep_merge gem for puppet-ruby (the version Puppet 7.23 runs with on
# Debian, 1.1.1): DeepMerge.deep_merge!(source, dest, options), which Puppet has loaded
# (`DeepMerge` is defined before any `require`; Hash's methods come with `require
# 'deep_merge'`, deep_merge_hash.rb). Written after the gem's documented behaviour, the same rules as
# puppet-hiera's merge.rs applies to Puppet values, here on Ruby objects: dest is changed in
# place where the gem changes it, and so is source where the gem deletes knocked-out items.
# The gem's `merge_debug` printing goes nowhere (Ruby's standard output is not Puppet's log).
module DeepMerge
  class InvalidParameter < StandardError; end

  DEFAULT_FIELD_KNOCKOUT_PREFIX = '--'

  def self.deep_merge!(source, dest, options = {})
    ko = options[:knockout_prefix] || nil
    overwrite = !options[:preserve_unmergeables]
    raise InvalidParameter, 'knockout_prefix cannot be an empty string in deep_merge!' if ko == ''
    if ko && !overwrite
      raise InvalidParameter, 'overwrite_unmergeable must be true if knockout_prefix is specified in deep_merge!'
    end
    return dest if source.nil?
    return source if !dest && overwrite

    extend_arrays = options[:extend_existing_arrays] || false
    case source
    when Hash
      source.each do |key, value|
        if dest.is_a?(Hash)
          dest[key] = if dest[key]
                        deep_merge!(value, dest[key], options)
                      else
                        # A fresh key: the value is merged into a copy of itself.
                        copy = begin
                          value.dup
                        rescue TypeError
                          value
                        end
                        deep_merge!(value, copy, options)
                      end
        elsif dest.is_a?(Array) && extend_arrays
          dest.push(source)
        elsif overwrite
          dest = overwrite_unmergeables(source, dest, options)
        end
      end
      dest
    when Array
      merge_arrays(source, dest, ko, overwrite, options)
    else
      if dest.is_a?(Array) && extend_arrays
        dest.push(source)
      else
        overwrite_unmergeables(source, dest, options)
      end
    end
  end

  # An Array source: overwritten, unpacked, knocked out, then merged with an Array dest.
  def self.merge_arrays(source, dest, ko, overwrite, options)
    return source if options[:overwrite_arrays]

    if (split = options[:unpack_arrays])
      source = source.join(split).split(split)
      dest = dest.join(split).split(split) if dest.is_a?(Array)
    end
    if ko && source.index(ko)
      dest = clear_or_nil(dest)
      source.delete(ko)
    end
    unless dest.is_a?(Array)
      return overwrite ? overwrite_unmergeables(source, dest, options) : dest
    end

    if ko
      prefix = Regexp.new("^#{ko}")
      source.delete_if do |item|
        bare = item.respond_to?(:gsub) ? item.gsub(prefix, '') : item
        next false if bare == item

        dest.delete(bare)
        dest.delete(item)
        true
      end
    end
    if options[:merge_hash_arrays] && source.all? { |i| i.is_a?(Hash) } && dest.all? { |i| i.is_a?(Hash) }
      merged = dest.each_index.map { |i| deep_merge!(source[i] || {}, dest[i], options) }
      merged += source[dest.count..-1] if source.count > dest.count
      dest = merged
    else
      dest |= source
    end
    dest.sort! if options[:sort_merged_arrays]
    dest
  end

  def self.overwrite_unmergeables(source, dest, options)
    ko = options[:knockout_prefix] || false
    overwrite = !options[:preserve_unmergeables]
    return (overwrite ? source : dest) unless ko && overwrite

    stripped = case source
               when String
                 source.gsub(Regexp.new("^#{ko}"), '')
               when Array
                 source.delete_if { |i| i.is_a?(String) && i.match(Regexp.new("^#{ko}")) }
               else
                 source
               end
    # A knocked-out value empties dest.
    stripped == source ? stripped : ''
  end

  def self.clear_or_nil(obj)
    obj.respond_to?(:clear) ? obj.clear : nil
  end
end
