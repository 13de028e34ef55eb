# Puppet::Settings::EnvironmentConf for puppet-ruby, after lib/puppet/settings/environment_conf.rb
# of Puppet 7.23: a directory environment's environment.conf as module Ruby reads it (SIMP's
# compliance_markup finds the modules of the environment this way:
# `load_from("#{Puppet[:environmentpath]}/#{env}", []).modulepath`). The file is read with
# File.read, so through the environment's source like every read of module Ruby; a missing
# file gives Puppet's defaults.
class Puppet::Settings::EnvironmentConf
  ENVIRONMENT_CONF_ONLY_SETTINGS = [:modulepath, :manifest, :config_version].freeze
  VALID_SETTINGS = (ENVIRONMENT_CONF_ONLY_SETTINGS +
                    [:environment_timeout, :environment_data_provider, :static_catalogs, :rich_data]).freeze

  def self.load_from(path_to_env, global_module_path)
    path_to_env = File.expand_path(path_to_env)
    conf_file = File.join(path_to_env, 'environment.conf')
    section = nil
    begin
      section = parse_main(File.read(conf_file), conf_file)
    rescue Errno::ENOENT
      # Puppet logs at debug level that it uses the default environment.conf.
      nil
    end
    new(path_to_env, section, global_module_path)
  end

  # The settings of the file's main section (those before any `[section]`, or in `[main]`),
  # as Puppet's settings file reader takes them: `name = value`, blank lines and `#`
  # comments skipped, anything else its "Could not match line" error.
  def self.parse_main(text, file)
    settings = {}
    main = true
    text.each_line.with_index(1) do |line, n|
      case line.strip
      when /\A(#.*)?\z/
        next
      when /\A\[(\w+)\]\s*(#.*)?\z/
        main = ($1 == 'main')
      when /\A(\w+)\s*=\s*(.*)\z/
        settings[$1.to_sym] = $2 if main
      else
        raise Puppet::Error, "Could not match line #{line.strip} (file: #{file}, line: #{n})"
      end
    end
    settings
  end
  private_class_method :parse_main

  attr_reader :section, :path_to_env, :global_modulepath

  def initialize(path_to_env, section, global_module_path)
    @path_to_env = path_to_env
    @section = section
    @global_module_path = global_module_path
    @global_modulepath = global_module_path
  end

  def manifest
    default = Puppet[:default_manifest].to_s
    fallback = default.start_with?('/') ? default : File.join(@path_to_env, default)
    return fallback if Puppet[:disable_per_environment_manifest]
    absolute(raw_setting(:manifest) || fallback)
  end

  def modulepath
    value = raw_setting(:modulepath)
    value = [File.join(@path_to_env, 'modules')] + @global_module_path if value.nil?
    path = value.is_a?(String) ? value.split(File::PATH_SEPARATOR) : value
    path.map { |p| expand_glob(absolute(p)) }.flatten.join(File::PATH_SEPARATOR)
  end

  def config_version
    absolute(raw_setting(:config_version))
  end

  def environment_timeout
    value = raw_setting(:environment_timeout)
    return Puppet[:environment_timeout] if value.nil?
    case value
    when 'unlimited', 'infinity' then Float::INFINITY
    when /\A\d+\z/ then value.to_i
    when /\A(\d+)([smhdy])\z/ then $1.to_i * { 's' => 1, 'm' => 60, 'h' => 3600, 'd' => 86_400, 'y' => 31_536_000 }[$2]
    else raise Puppet::Error, "Invalid duration format '#{value}' for parameter: environment_timeout"
    end
  end

  def environment_data_provider
    setting_or(:environment_data_provider)
  end

  def rich_data
    setting_or(:rich_data)
  end

  def static_catalogs
    setting_or(:static_catalogs)
  end

  def raw_setting(setting_name)
    @section && @section[setting_name.to_sym]
  end

  private

  def setting_or(name)
    value = raw_setting(name)
    value.nil? ? Puppet[name] : value
  end

  def expand_glob(path)
    return nil if path.nil?
    path =~ /[*?\[\{]/ ? Dir.glob(path) : path
  end

  def absolute(path)
    return nil if path.nil?
    path.start_with?('$') ? path : File.expand_path(path, @path_to_env)
  end
end
