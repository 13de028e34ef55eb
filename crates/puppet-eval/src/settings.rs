//! [`Settings`]: what one compile is told from outside (node name, facts, trusted data, server
//! facts, an external classifier's classes and parameters, strictness, step limit, host access).
//! Read by the evaluator and the catalog builder; nothing here evaluates code.

use indexmap::IndexMap;
use puppet_types::Value;
use smol_str::SmolStr;

/// Settings that change evaluation.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `strict_variables`: unknown variables are errors.
    pub strict_variables: bool,
    /// The node name (certname).
    pub node_name: String,
    /// `$facts`.
    pub facts: IndexMap<SmolStr, Value>,
    /// The environment name.
    pub environment: String,
    /// `$trusted`; `None` gives `puppet apply`'s local, unauthenticated default.
    pub trusted: Option<Value>,
    /// `$server_facts` (each also a top-scope variable, as `$servername`), empty for
    /// `puppet apply`.
    pub server_facts: IndexMap<SmolStr, Value>,
    /// An external node classifier's answer: classes to declare after the node definition
    /// (with parameters: declared resource-like; without: included) and parameters that
    /// become top-scope variables. See [`Settings::with_enc`].
    pub enc_classes: IndexMap<SmolStr, Option<IndexMap<SmolStr, Value>>>,
    pub enc_parameters: IndexMap<SmolStr, Value>,
    /// The most expressions a compile may evaluate before it stops with an error
    /// (`EVAL_STEP_LIMIT`), so that no input hangs. The default, 200 million, is about
    /// ten thousand times what the largest public node needs (kitchensink: 23,504).
    pub max_steps: u64,
    /// Whether the modules' Ruby functions run as their native implementations
    /// (puppet-stdlib) where one exists (the default), or always as the module's own Ruby
    /// (puppet-ruby): `compile --no-native-functions`, to check one against the other.
    pub native_functions: bool,
    /// `generate()` runs its command on this host, as Puppet does (off by default: the
    /// call is refused with an error). See the `host` module.
    pub allow_exec: bool,
    /// `file()`, `loadyaml()`, `loadjson()` (and the other functions that read files by
    /// absolute path) read files of this host outside the module path and environment
    /// (off by default: such a file is not found, or refused with an error).
    pub allow_host_files: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            strict_variables: false,
            node_name: "testnode".into(),
            facts: IndexMap::new(),
            environment: "production".into(),
            trusted: None,
            server_facts: IndexMap::new(),
            enc_classes: IndexMap::new(),
            enc_parameters: IndexMap::new(),
            max_steps: DEFAULT_MAX_STEPS,
            native_functions: true,
            allow_exec: false,
            allow_host_files: false,
        }
    }
}

/// [`Settings::max_steps`]' default (smaller in fuzzing builds, which run much slower).
pub(crate) const DEFAULT_MAX_STEPS: u64 = if cfg!(fuzzing) {
    2_000_000
} else {
    200_000_000
};

impl Settings {
    /// The node's environment: `$environment`, `$server_facts['environment']`,
    /// `$settings::environment` and the catalog's `environment`.
    ///
    /// ```
    /// let s = puppet_eval::Settings::agent("a", Default::default()).with_environment("staging");
    /// assert_eq!(s.environment, "staging");
    /// assert_eq!(s.server_facts["environment"].to_string(), "'staging'");
    /// ```
    pub fn with_environment(mut self, name: &str) -> Settings {
        self.environment = name.to_string();
        if let Some(v) = self.server_facts.get_mut("environment") {
            *v = Value::string(name);
        }
        self
    }

    /// Adds an external node classifier's answer, as Puppet reads an ENC's YAML: `classes`
    /// (an array of names, or a hash of name => parameters or null) and `parameters` (a
    /// hash of top-scope variables). Other keys (`environment`) are ignored.
    ///
    /// ```
    /// use puppet_eval::Settings;
    /// use puppet_types::Value;
    /// let enc = Value::hash([
    ///     (Value::string("classes"), Value::array(vec![Value::string("ntp")])),
    ///     (Value::string("parameters"), Value::hash([(Value::string("role"), Value::string("web"))])),
    /// ]);
    /// let s = Settings::default().with_enc(&enc).unwrap();
    /// assert!(s.enc_classes.contains_key("ntp"));
    /// assert_eq!(s.enc_parameters["role"].to_string(), "'web'");
    /// ```
    pub fn with_enc(mut self, enc: &Value) -> Result<Settings, String> {
        let Value::Hash(h) = enc else {
            return Err("the classifier's answer must be a hash".into());
        };
        match h.get(&Value::string("classes")) {
            None | Some(Value::Undef) => {}
            Some(Value::Array(a)) => {
                for c in a.iter() {
                    self.enc_classes
                        .insert(SmolStr::new(c.to_plain_string()), None);
                }
            }
            Some(Value::Hash(classes)) => {
                for (name, params) in classes.iter() {
                    let params = match params {
                        Value::Hash(p) => Some(
                            p.iter()
                                .map(|(k, v)| (SmolStr::new(k.to_plain_string()), v.clone()))
                                .collect(),
                        ),
                        Value::Undef => None,
                        other => {
                            return Err(format!("class parameters must be a hash, got {other}"))
                        }
                    };
                    self.enc_classes
                        .insert(SmolStr::new(name.to_plain_string()), params);
                }
            }
            Some(other) => return Err(format!("classes must be an array or a hash, got {other}")),
        }
        match h.get(&Value::string("parameters")) {
            None | Some(Value::Undef) => {}
            Some(Value::Hash(p)) => {
                for (k, v) in p.iter() {
                    self.enc_parameters
                        .insert(SmolStr::new(k.to_plain_string()), v.clone());
                }
            }
            Some(other) => return Err(format!("parameters must be a hash, got {other}")),
        }
        Ok(self)
    }

    /// Settings for compiling an agent's catalog on a server: the node's facts plus the
    /// ones an agent adds (`clientcert`, `clientversion`, `clientnoop`), authenticated
    /// `$trusted` data for the certname, and fixed `$server_facts` (those the oracle's
    /// `compile-catalog` uses, so catalogs are comparable). The environment is
    /// `production`: [`Environment::agent`](crate::Environment::agent) gives the
    /// environment's own name, [`with_environment`](Settings::with_environment) any other.
    ///
    /// ```
    /// use puppet_eval::Settings;
    /// let s = Settings::agent("web01.example.com", Default::default());
    /// assert_eq!(s.facts["clientcert"].to_string(), "'web01.example.com'");
    /// ```
    pub fn agent(certname: &str, facts: IndexMap<SmolStr, Value>) -> Settings {
        let mut facts = facts;
        facts
            .entry("clientcert".into())
            .or_insert_with(|| Value::string(certname));
        facts
            .entry("clientversion".into())
            .or_insert_with(|| Value::string("7.23.0"));
        facts
            .entry("clientnoop".into())
            .or_insert(Value::Boolean(false));
        let (host, domain) = certname.split_once('.').unwrap_or((certname, ""));
        let trusted = Value::hash([
            (Value::string("authenticated"), Value::string("remote")),
            (Value::string("certname"), Value::string(certname)),
            (Value::string("extensions"), Value::hash([])),
            (Value::string("hostname"), Value::string(host)),
            (Value::string("domain"), Value::string(domain)),
            (Value::string("external"), Value::hash([])),
        ]);
        let server_facts = [
            ("serverversion", "7.23.0"),
            ("servername", "puppet.example.com"),
            ("serverip", "192.0.2.1"),
            ("environment", "production"),
        ]
        .into_iter()
        .map(|(k, v)| (SmolStr::new(k), Value::string(v)))
        .collect();
        Settings {
            node_name: certname.to_string(),
            facts,
            trusted: Some(trusted),
            server_facts,
            ..Settings::default()
        }
    }
}
