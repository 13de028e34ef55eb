//! [`Settings`]: what one compile is told from outside (node name, facts, trusted data, server
//! facts, an external classifier's classes and parameters, strictness, step limit, host access,
//! and Puppet's settings: [`Settings::with_setting`], [`Settings::setting`], read by manifests
//! as `$settings::x` and by Ruby as `Puppet[:x]`; the table is in the `table` module).
//! Read by the evaluator and the catalog builder; nothing here evaluates code.

mod table;

pub(crate) use table::{table, EnvPaths};

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
    /// Puppet settings given a value (`name => value` as in `puppet.conf`, before
    /// interpolation): set them with [`with_setting`](Settings::with_setting), which checks
    /// them. The others have Puppet 7.23's defaults for a server (see
    /// [`setting`](Settings::setting)).
    pub overrides: IndexMap<SmolStr, String>,
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
            overrides: IndexMap::new(),
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
    /// Gives Puppet setting `name` the value `value`, as a line `name = value` of
    /// `puppet.conf` or `--name value` does: the text is interpolated (`$confdir/x`) and
    /// checked by the setting's kind when read, and the settings whose defaults refer to this
    /// one follow it (`vardir` moves `statedir`, `ssldir` moves `certdir` and `hostcert`)
    /// unless they are given too. `environment` is [`with_environment`](Settings::with_environment),
    /// `strict_variables` the field; `modulepath` and `manifest` are the environment's and
    /// `code` the main code's (given to the [`Session`](crate::Session)), so they are
    /// refused here, as are unknown settings and values Puppet would refuse.
    ///
    /// ```
    /// use puppet_eval::Settings;
    /// use puppet_types::Value;
    /// let s = Settings::default().with_setting("ssldir", "/srv/ssl").unwrap();
    /// assert_eq!(s.setting("hostcert").unwrap().unwrap(), Value::string("/srv/ssl/certs/testnode.pem"));
    /// let s = s.with_setting("runinterval", "30m").unwrap();
    /// assert_eq!(s.setting("runinterval").unwrap().unwrap(), Value::Integer(1800));
    /// assert!(Settings::default().with_setting("runinterval", "soon").is_err());
    /// assert!(Settings::default().with_setting("nosuch", "1").is_err());
    /// ```
    pub fn with_setting(mut self, name: &str, value: &str) -> Result<Settings, String> {
        let t = table();
        let Some(i) = t.get(name) else {
            return Err(format!("unknown setting '{name}'"));
        };
        match name {
            "environment" => return Ok(self.with_environment(value)),
            "strict_variables" => {
                self.strict_variables = match value {
                    "true" => true,
                    "false" => false,
                    _ => {
                        return Err(format!(
                            "Invalid value '{value:?}' for boolean parameter: {name}"
                        ))
                    }
                };
                return Ok(self);
            }
            "modulepath" | "manifest" => {
                return Err(format!(
                    "'{name}' is the environment's: give it to the Session (a module path, a main manifest)"
                ))
            }
            "code" => return Err("'code' is the main code: give it to the Session".into()),
            _ => {}
        }
        self.overrides.insert(SmolStr::new(name), value.to_string());
        // The new value, and every value that may now interpolate it, must resolve.
        t.value(&self, &EnvPaths::default(), i)?;
        for j in 0..t.entries.len() {
            t.value(&self, &EnvPaths::default(), j)?;
        }
        Ok(self)
    }

    /// The value of Puppet setting `name` as a manifest reads it (`$settings::name`), out of
    /// any environment (`modulepath` is empty, `manifest` is `no_manifest`; a compile gives
    /// its environment's): `None` for a name Puppet does not have, an error for a value
    /// given with [`with_setting`](Settings::with_setting) that does not resolve.
    ///
    /// ```
    /// use puppet_types::Value;
    /// let s = puppet_eval::Settings::agent("web01.example.com", Default::default());
    /// assert_eq!(s.setting("certname").unwrap().unwrap(), Value::string("web01.example.com"));
    /// assert_eq!(s.setting("storeconfigs_backend").unwrap().unwrap(), Value::string("puppetdb"));
    /// assert_eq!(s.setting("ca_ttl").unwrap().unwrap(), Value::Integer(157680000));
    /// assert!(s.setting("nosuch").is_none());
    /// ```
    pub fn setting(&self, name: &str) -> Option<Result<Value, String>> {
        self.setting_in(name, &EnvPaths::default())
    }

    /// [`setting`](Settings::setting) in an environment.
    pub(crate) fn setting_in(&self, name: &str, env: &EnvPaths) -> Option<Result<Value, String>> {
        let t = table();
        t.get(name).map(|i| t.value(self, env, i))
    }

    /// `$settings::all_local`: every setting's value, in Puppet's order.
    pub(crate) fn all_settings(&self, env: &EnvPaths) -> Value {
        table().all(self, env)
    }

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
