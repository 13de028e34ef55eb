# Hash#deep_merge!, #deep_merge and #ko_deep_merge! of the deep_merge gem (1.1.1) for
# puppet-ruby: what `require 'deep_merge'` adds to Hash, over DeepMerge.deep_merge!
# (deep_merge.rb).
DeepMerge # the core (deep_merge.rb) first, as the gem requires it

module DeepMerge
  module DeepMergeHash
    def ko_deep_merge!(source, options = {})
      DeepMerge.deep_merge!(source, self, { knockout_prefix: '--', preserve_unmergeables: false }.merge(options))
    end

    def deep_merge!(source, options = {})
      DeepMerge.deep_merge!(source, self, { preserve_unmergeables: false }.merge(options))
    end

    def deep_merge(source, options = {})
      DeepMerge.deep_merge!(source, self, { preserve_unmergeables: true }.merge(options))
    end
  end
end

class Hash
  include DeepMerge::DeepMergeHash
end
