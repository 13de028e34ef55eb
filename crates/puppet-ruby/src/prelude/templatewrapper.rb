# Puppet::Parser::TemplateWrapper for puppet-ruby, after lib/puppet/parser/templatewrapper.rb
# of Puppet 7.23: module Ruby that renders a template itself (`w = TemplateWrapper.new(self);
# w.file = 'mod/x.erb'; w.result`) finds the file as the `template` function does and renders
# it through that function, in the same scope (the scope's variables are the template's `@`
# variables, as the wrapper binds them).
class Puppet::Parser::TemplateWrapper
  def initialize(scope)
    @__scope__ = scope
  end

  def file
    @__file__
  end

  def scope
    @__scope__
  end

  def has_variable?(name)
    scope.include?(name.to_s)
  end

  def classes
    scope.catalog.classes
  end

  def tags
    raise NotImplementedError, "Call 'all_tags' instead."
  end

  def file=(filename)
    @__file__ = Puppet::Parser::Files.find_template(filename, scope.compiler.environment)
    raise Puppet::ParseError, "Could not find template '#{filename}'" unless @__file__
  end

  def result(string = nil)
    if string
      scope.function_inline_template([string])
    else
      # Puppet reads the file itself: a missing one (an absolute path is taken as it is)
      # is Ruby's error for it.
      File.read(@__file__) unless File.file?(@__file__)
      scope.function_template([@__file__])
    end
  end

  def to_s
    "template[#{@__file__ || 'inline'}]"
  end
end
