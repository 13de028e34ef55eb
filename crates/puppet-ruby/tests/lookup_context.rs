//! `Puppet::LookupContext` as a Hiera backend function sees it, over a host that records what
//! the function asked: each method's answer, the cache kept between calls (as Puppet keeps
//! a function context's cache for the compile), `not_found` as "no answer", and methods of
//! Puppet's context this engine does not have as errors naming the file, line and method.

use indexmap::IndexMap;
use puppet_ruby::lookup_context::LookupHost;
use puppet_ruby::{PuppetScope, Sources};
use puppet_types::Value;
use smol_str::SmolStr;

#[derive(Default)]
struct Host {
    explaining: bool,
    explained: Vec<String>,
    cache: IndexMap<Value, Value>,
    files: IndexMap<String, String>,
    file_data: IndexMap<String, Value>,
    reads: usize,
}

impl PuppetScope for Host {
    fn lookup(&self, _name: &str) -> Option<Value> {
        None
    }
    fn all_variables(&self) -> IndexMap<SmolStr, Value> {
        IndexMap::new()
    }
    fn call_function(&mut self, name: &str, _args: Vec<Value>) -> Result<Value, String> {
        Err(format!("no function {name}"))
    }
    fn lookup_host(&mut self) -> Option<&mut dyn LookupHost> {
        Some(self)
    }
}

impl LookupHost for Host {
    fn environment_name(&self) -> String {
        "production".into()
    }
    fn module_name(&self) -> Option<String> {
        None
    }
    fn explaining(&self) -> bool {
        self.explaining
    }
    fn explain(&mut self, text: String) {
        self.explained.push(text);
    }
    fn interpolate(&mut self, value: &Value) -> Result<Value, String> {
        match value {
            Value::String(s) if s.contains("%{bad}") => Err("Undefined variable 'bad'".into()),
            Value::String(s) => Ok(Value::string(s.replace("%{x}", "X"))),
            other => Ok(other.clone()),
        }
    }
    fn cache_insert(&mut self, key: Value, value: Value) {
        self.cache.insert(key, value);
    }
    fn cache_get(&mut self, key: &Value) -> Option<Value> {
        self.cache.get(key).cloned()
    }
    fn cache_entries(&mut self) -> Vec<(Value, Value)> {
        self.cache
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
    fn cached_file_data(&mut self, path: &str) -> Option<Value> {
        self.file_data.get(path).cloned()
    }
    fn cache_file_data(&mut self, path: &str, value: Value) {
        self.file_data.insert(path.to_string(), value);
    }
    fn read_file(&mut self, path: &str) -> Result<String, String> {
        self.reads += 1;
        self.files
            .get(path)
            .cloned()
            .ok_or_else(|| format!("No such file or directory @ rb_sysopen - {path}"))
    }
}

const FILE: &str = "/m/lib/puppet/functions/m/backend.rb";

const SOURCE: &str = r##"Puppet::Functions.create_function(:'m::backend') do
  dispatch :lookup_key do
    param 'String', :key
    param 'Hash', :options
    param 'Puppet::LookupContext', :context
  end

  def lookup_key(key, options, context)
    case key
    when 'missing'
      context.not_found
    when 'thrown'
      throw :no_such_key
    when 'names'
      "#{context.environment_name}/#{context.module_name.inspect}"
    when 'explained'
      context.explain { "asked for #{key}" }
      'ok'
    when 'interpolated'
      context.interpolate('a %{x} b')
    when 'bad_interpolation'
      context.interpolate('%{bad}')
    when 'counter'
      n = context.cache_has_key('n') ? context.cached_value('n') + 1 : 1
      context.cache('n', n)
    when 'entries'
      context.cache_all({ 'a' => 1, 'b' => [2] })
      pairs = []
      context.cached_entries { |k, v| pairs << "#{k}=#{v}" }
      singles = []
      context.cached_entries { |pair| singles << pair.inspect }
      [pairs.join(','), singles.join(' '), context.cached_entries.to_a.size]
    when 'file'
      context.cached_file_data(options['path']) { |content| content.split("\n").size }
    when 'invocation'
      context.invocation
    when 'unconvertible'
      context.cache('k', Object.new)
    when 'yaml', 'json'
      data = call_function("#{key}_data", { 'path' => options['path'] }, context)
      data.map { |k, v| "#{k}:#{v.class}" }.join(',')
    else
      raise ArgumentError, "no #{key}"
    end
  end
end
"##;

fn call(host: &mut Host, key: &str) -> Result<Option<Value>, String> {
    let f = puppet_ruby::functions::load(FILE, SOURCE, &Sources::empty()).expect("loads");
    let options = Value::hash([(Value::string("path"), Value::string("/data/x.txt"))]);
    f.call_backend(host, vec![Value::string(key), options])
        .map_err(|e| e.to_string())
}

#[test]
fn the_context_answers_as_puppets() {
    let mut host = Host::default();
    assert_eq!(call(&mut host, "missing"), Ok(None));
    assert_eq!(call(&mut host, "thrown"), Ok(None));
    assert_eq!(
        call(&mut host, "names"),
        Ok(Some(Value::string("production/nil")))
    );
    assert_eq!(
        call(&mut host, "interpolated"),
        Ok(Some(Value::string("a X b")))
    );
    assert_eq!(
        call(&mut host, "bad_interpolation"),
        Err("Undefined variable 'bad'".to_string())
    );
    assert_eq!(call(&mut host, "other"), Err("no other".to_string()));
}

#[test]
fn explain_runs_its_block_only_when_explaining() {
    let mut host = Host::default();
    assert_eq!(call(&mut host, "explained"), Ok(Some(Value::string("ok"))));
    assert!(host.explained.is_empty());
    host.explaining = true;
    call(&mut host, "explained").unwrap();
    assert_eq!(host.explained, vec!["asked for explained".to_string()]);
}

#[test]
fn the_cache_outlives_a_call() {
    let mut host = Host::default();
    assert_eq!(call(&mut host, "counter"), Ok(Some(Value::Integer(1))));
    assert_eq!(call(&mut host, "counter"), Ok(Some(Value::Integer(2))));
    let entries = call(&mut host, "entries").unwrap().unwrap();
    assert_eq!(
        entries.to_string(),
        "['n=2,a=1,b=[2]', '[\"n\", 2] [\"a\", 1] [\"b\", [2]]', 3]"
    );
}

#[test]
fn cached_file_data_reads_a_file_once() {
    let mut host = Host::default();
    host.files
        .insert("/data/x.txt".into(), "one\ntwo\nthree\n".into());
    assert_eq!(call(&mut host, "file"), Ok(Some(Value::Integer(3))));
    assert_eq!(call(&mut host, "file"), Ok(Some(Value::Integer(3))));
    assert_eq!(host.reads, 1);
    let mut empty = Host::default();
    assert_eq!(
        call(&mut empty, "file"),
        Err("No such file or directory @ rb_sysopen - /data/x.txt".to_string())
    );
}

#[test]
fn hieras_own_data_functions_take_the_context() {
    // A backend wrapping `yaml_data`/`json_data` (`call_function('yaml_data', options,
    // context)`): Puppet's own functions run with the context's file cache.
    let mut host = Host::default();
    host.files
        .insert("/data/x.txt".into(), "a: 1\nb: [x]\nc: {d: e}\n".into());
    assert_eq!(
        call(&mut host, "yaml"),
        Ok(Some(Value::string("a:Integer,b:Array,c:Hash")))
    );
    assert_eq!(
        call(&mut host, "yaml"),
        Ok(Some(Value::string("a:Integer,b:Array,c:Hash")))
    );
    assert_eq!(host.reads, 1);
    let mut json = Host::default();
    json.files
        .insert("/data/x.txt".into(), r#"{"a": 1.5, "b": null}"#.into());
    assert_eq!(
        call(&mut json, "json"),
        Ok(Some(Value::string("a:Float,b:NilClass")))
    );
    let mut bad = Host::default();
    bad.files.insert("/data/x.txt".into(), "a: [\n".into());
    let e = call(&mut bad, "yaml").unwrap_err();
    assert!(e.starts_with("Unable to parse (/data/x.txt): "), "{e}");
    let mut list = Host::default();
    list.files.insert("/data/x.txt".into(), "- 1\n".into());
    assert_eq!(call(&mut list, "yaml"), Ok(Some(Value::string(""))));
}

#[test]
fn what_the_engine_lacks_is_an_error_naming_file_line_and_method() {
    let mut host = Host::default();
    let e = call(&mut host, "invocation").unwrap_err();
    assert!(
        e.contains(FILE) && e.contains(":36:") && e.contains("Puppet::LookupContext#invocation"),
        "{e}"
    );
    let e = call(&mut host, "unconvertible").unwrap_err();
    assert!(e.contains(FILE) && e.contains("context.cache"), "{e}");
}
