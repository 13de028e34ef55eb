//! The 43 corpus `.epp` templates rendered as Puppet 7.23 renders them.
//!
//! `tests/fixtures/epp_corpus.json` is made by `scripts/epp-fixtures.py`, which asks real
//! Puppet (`compile-catalog --batch`, modulepath = the corpus) to render each template with
//! `inline_epp(TEXT, PARAMS)` after an optional prelude declaring the classes whose
//! variables the template reads (`$ntp::servers`). It holds the template text, the
//! parameters (as JSON and as a Puppet hash literal), the prelude and Puppet's output.
//!
//! Templates without a prelude are rendered with [`puppet_eval::render_epp`]; those that
//! read class variables are evaluated as the same Puppet program with
//! [`puppet_eval::evaluate_source`] (the value of its last statement, the `inline_epp`
//! call). Every mismatch is reported with the template path; only the templates in
//! [`EXPECTED_FAILURES`] may differ.

use indexmap::IndexMap;
use puppet_eval::{evaluate_source, render_epp, Settings};
use puppet_types::Value;
use smol_str::SmolStr;
use std::sync::Arc;

const FIXTURE: &str = include_str!("fixtures/epp_corpus.json");

/// Templates that cannot render as Puppet renders them without the module path (CI has no
/// corpus), with the reason. With the corpus present, none may differ.
const EXPECTED_FAILURES: &[(&str, &str)] = &[
    (
        "apache/templates/mod/remoteip.conf.epp",
        "needs the stdlib module's type aliases (`Stdlib::Host`): render_epp/evaluate_source \
         have no modulepath (`Resource type not found: Stdlib::Host`)",
    ),
    (
        "collectd/templates/plugin/threshold.conf.epp",
        "calls `epp('collectd/plugin/threshold/host.epp', ...)` and `collectd::indent`: needs \
         the modulepath (`Unknown function: 'epp'.`)",
    ),
    (
        "collectd/templates/plugin/threshold/host.epp",
        "calls `epp()` with a module template and `collectd::indent`: needs the modulepath",
    ),
    (
        "collectd/templates/plugin/threshold/plugin.epp",
        "calls `epp()` with a module template and `collectd::indent`: needs the modulepath",
    ),
    (
        "ntp/templates/ntp.conf.epp",
        "calls stdlib's `member`: needs the stdlib module (`Unknown function: 'member'.`)",
    ),
    (
        "ntp/templates/step-tickers.epp",
        "calls stdlib's `member`: needs the stdlib module (`Unknown function: 'member'.`)",
    ),
];

// --- a small JSON reader (the crate has no JSON dev-dependency) ---------------------------

#[derive(Debug, Clone)]
enum Json {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            other => panic!("not a string: {other:?}"),
        }
    }
    fn to_value(&self) -> Value {
        match self {
            Json::Null => Value::Undef,
            Json::Bool(b) => Value::Boolean(*b),
            Json::Int(i) => Value::Integer(*i),
            Json::Float(f) => Value::Float(*f),
            Json::Str(s) => Value::String(s.as_str().into()),
            Json::Arr(a) => Value::Array(Arc::new(a.iter().map(Json::to_value).collect())),
            Json::Obj(m) => Value::Hash(Arc::new(
                m.iter()
                    .map(|(k, v)| (Value::String(k.as_str().into()), v.to_value()))
                    .collect(),
            )),
        }
    }
}

struct Reader<'a> {
    s: &'a [u8],
    i: usize,
}

impl Reader<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) {
        self.ws();
        assert_eq!(
            self.s[self.i], c,
            "JSON: expected {:?} at {}",
            c as char, self.i
        );
        self.i += 1;
    }
    fn value(&mut self) -> Json {
        self.ws();
        match self.s[self.i] {
            b'{' => {
                self.i += 1;
                let mut m = Vec::new();
                self.ws();
                if self.s[self.i] == b'}' {
                    self.i += 1;
                    return Json::Obj(m);
                }
                loop {
                    self.ws();
                    let k = self.string();
                    self.eat(b':');
                    m.push((k, self.value()));
                    self.ws();
                    self.i += 1;
                    if self.s[self.i - 1] == b'}' {
                        return Json::Obj(m);
                    }
                }
            }
            b'[' => {
                self.i += 1;
                let mut a = Vec::new();
                self.ws();
                if self.s[self.i] == b']' {
                    self.i += 1;
                    return Json::Arr(a);
                }
                loop {
                    a.push(self.value());
                    self.ws();
                    self.i += 1;
                    if self.s[self.i - 1] == b']' {
                        return Json::Arr(a);
                    }
                }
            }
            b'"' => Json::Str(self.string()),
            b't' => {
                self.i += 4;
                Json::Bool(true)
            }
            b'f' => {
                self.i += 5;
                Json::Bool(false)
            }
            b'n' => {
                self.i += 4;
                Json::Null
            }
            _ => {
                let start = self.i;
                while self.i < self.s.len() && b"+-0123456789.eE".contains(&self.s[self.i]) {
                    self.i += 1;
                }
                let t = std::str::from_utf8(&self.s[start..self.i]).unwrap();
                t.parse::<i64>()
                    .map(Json::Int)
                    .unwrap_or_else(|_| Json::Float(t.parse().unwrap()))
            }
        }
    }
    fn hex4(&mut self) -> u32 {
        let t = std::str::from_utf8(&self.s[self.i..self.i + 4]).unwrap();
        self.i += 4;
        u32::from_str_radix(t, 16).unwrap()
    }
    fn string(&mut self) -> String {
        assert_eq!(self.s[self.i], b'"');
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let c = self.s[self.i];
            self.i += 1;
            match c {
                b'"' => return String::from_utf8(out).unwrap(),
                b'\\' => {
                    let e = self.s[self.i];
                    self.i += 1;
                    let ch = match e {
                        b'n' => '\n',
                        b't' => '\t',
                        b'r' => '\r',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'u' => {
                            let mut cp = self.hex4();
                            if (0xD800..0xDC00).contains(&cp) {
                                self.i += 2; // "\u"
                                cp = 0x10000 + ((cp - 0xD800) << 10) + (self.hex4() - 0xDC00);
                            }
                            char::from_u32(cp).unwrap()
                        }
                        other => other as char,
                    };
                    let mut buf = [0; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                c => out.push(c),
            }
        }
    }
}

fn parse_json(text: &str) -> Json {
    Reader {
        s: text.as_bytes(),
        i: 0,
    }
    .value()
}

// --- the test -----------------------------------------------------------------------------

fn squote(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// The corpus module path, when present: then every template is rendered as Puppet did it,
/// as a program compiled with the modules (functions, type aliases, module templates).
const CORPUS: &str = "/usr/share/puppet/modules";

fn corpus_env() -> Option<Arc<puppet_eval::Environment>> {
    use std::sync::OnceLock;
    static ENV: OnceLock<Option<Arc<puppet_eval::Environment>>> = OnceLock::new();
    ENV.get_or_init(|| {
        std::path::Path::new(CORPUS).is_dir().then(|| {
            puppet_eval::Session::new()
                .modulepath([std::path::PathBuf::from(CORPUS)])
                .load()
                .expect("the corpus loads")
        })
    })
    .clone()
}

fn render(case: &Json) -> Result<String, String> {
    let path = case.get("path").unwrap().str();
    let template = case.get("template").unwrap().str();
    let prelude = case.get("prelude").unwrap().str();
    let settings = Settings::default();
    if let Some(modules) = corpus_env() {
        let code = format!(
            "{prelude}inline_epp({}, {})\n",
            squote(template),
            case.get("params_puppet").unwrap().str()
        );
        let env = modules.with_main_code(None, &code);
        if let Some(d) = env.main_diagnostics().iter().find(|d| d.is_error()) {
            return Err(d.message.clone());
        }
        let mut compiler = puppet_eval::Compiler::new(Arc::new(env), settings);
        return match compiler.evaluate_main() {
            Ok(Value::String(s)) => Ok(s.to_string()),
            Ok(other) => Err(format!("not a string: {other:?}")),
            Err(e) => Err(e.message),
        };
    }
    if prelude.is_empty() {
        let params: IndexMap<SmolStr, Value> = match case.get("params") {
            Some(Json::Obj(m)) => m
                .iter()
                .map(|(k, v)| (SmolStr::from(k.as_str()), v.to_value()))
                .collect(),
            _ => IndexMap::new(),
        };
        render_epp(template, Some(path), &params, &settings).map_err(|e| e.message)
    } else {
        let code = format!(
            "{prelude}inline_epp({}, {})\n",
            squote(template),
            case.get("params_puppet").unwrap().str()
        );
        match evaluate_source(&code, &settings).value {
            Ok(Value::String(s)) => Ok(s.to_string()),
            Ok(other) => Err(format!("not a string: {other:?}")),
            Err(e) => Err(e.message),
        }
    }
}

#[test]
fn corpus_epp_templates_render_as_puppet_renders_them() {
    let fixture = parse_json(FIXTURE);
    let Some(Json::Arr(cases)) = fixture.get("cases") else {
        panic!("fixture has no cases")
    };
    assert_eq!(cases.len(), 43, "the corpus has 43 .epp templates");
    let mut matched = 0;
    let mut mismatches = Vec::new();
    let mut unexpected_passes = Vec::new();
    for case in cases {
        let path = case.get("path").unwrap().str();
        let expected = match (case.get("output"), case.get("error")) {
            (Some(o), _) => Ok(o.str().to_string()),
            (None, Some(e)) => Err(e.str().to_string()),
            _ => panic!("{path}: neither output nor error"),
        };
        let got = render(case);
        let same = match (&got, &expected) {
            (Ok(g), Ok(e)) => g == e,
            (Err(_), Err(_)) => true,
            _ => false,
        };
        // With the module path, every template must match.
        let xfail = corpus_env().is_none() && EXPECTED_FAILURES.iter().any(|(p, _)| *p == path);
        if same {
            matched += 1;
            if xfail {
                unexpected_passes.push(path.to_string());
            }
        } else if !xfail {
            mismatches.push(format!(
                "--- {path}\n    puppet: {expected:?}\n    ours:   {got:?}"
            ));
        }
    }
    eprintln!(
        "{matched}/{} corpus EPP templates render as Puppet renders them",
        cases.len()
    );
    assert!(
        mismatches.is_empty(),
        "{} template(s) differ from Puppet:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    assert!(
        unexpected_passes.is_empty(),
        "expected failures that now match Puppet (remove them from EXPECTED_FAILURES): {unexpected_passes:?}"
    );
}
