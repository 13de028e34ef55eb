//! No input makes the engine panic: arbitrary text, ERB-shaped text built from template
//! fragments, and mutations of real corpus-like snippets must give `Ok` or an error.

use proptest::prelude::*;
use puppet_erb::{render, IndexMap, SmolStr, TemplateScope};
use puppet_types::Value;

struct Scope;
impl TemplateScope for Scope {
    fn lookup(&self, name: &str) -> Option<Value> {
        (name == "x").then(|| Value::Integer(3))
    }
    fn all_variables(&self) -> IndexMap<SmolStr, Value> {
        let mut m = IndexMap::new();
        m.insert(SmolStr::new("x"), Value::Integer(3));
        m.insert(
            SmolStr::new("list"),
            Value::array(vec![Value::string("a"), Value::Undef, Value::Integer(1)]),
        );
        m.insert(
            SmolStr::new("h"),
            Value::hash(vec![(Value::string("k"), Value::string("v"))]),
        );
        m
    }
    fn call_function(&mut self, _: &str, args: Vec<Value>) -> Result<Value, String> {
        Ok(args.into_iter().next().unwrap_or(Value::Undef))
    }
}

const FRAGMENTS: &[&str] = &[
    "<%",
    "<%=",
    "<%-",
    "-%>",
    "%>",
    "<%#",
    "<%%",
    "%%>",
    "\n",
    " ",
    "@x",
    "@list",
    "@h",
    "x",
    "=",
    "==",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "|",
    "do",
    "end",
    "if",
    "elsif",
    "else",
    "unless",
    "case",
    "when",
    "then",
    ".",
    ",",
    ":",
    "?",
    "'s'",
    "\"a#{",
    "}\"",
    "/r(e)/",
    "$1",
    "1",
    "2.5",
    "nil",
    "each",
    "map",
    "join",
    "sort",
    "+",
    "-",
    "*",
    "/",
    "%",
    "**",
    "<<",
    "and",
    "or",
    "not",
    "!",
    "&&",
    "||",
    "def",
    "f",
    "return",
    "next",
    "break",
    "while",
    "for",
    "in",
    "begin",
    "rescue",
    "ensure",
    "scope",
    "lookupvar",
    "function_x",
    "%w[a b]",
    ":sym",
    "..",
    "defined?",
    "# c",
    ";",
    "&.",
    "::",
    "Array",
    "Integer",
    "->",
    "\\",
    "\"",
    "'",
    "`",
    "#{",
    "<<-EOS",
    "=>",
    "a:",
    "*",
    "&:upcase",
    "||=",
    "+=",
    "to_yaml",
    "gsub",
    "split",
    "inspect",
];

fn check(text: &str) {
    let mut scope = Scope;
    let _ = render(text, "prop.erb", &mut scope);
}

fn hand_templates() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/hand");
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.path().extension().is_some_and(|x| x == "erb"))
                .filter_map(|e| std::fs::read_to_string(e.path()).ok())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn mutated_real_templates_never_panic(which in 0usize..1000, cut in 0usize..4000, del in 0usize..4000, ins in 0..FRAGMENTS.len()) {
        let all = hand_templates();
        if all.is_empty() {
            return Ok(());
        }
        let t = &all[which % all.len()];
        let chars: Vec<char> = t.chars().collect();
        let n = chars.len().max(1);
        let prefix: String = chars[..cut % n].iter().collect();
        check(&prefix);
        let mut edited: Vec<char> = chars.clone();
        if !edited.is_empty() {
            edited.remove(del % edited.len());
        }
        let at = cut % (edited.len() + 1);
        let mut s: String = edited[..at].iter().collect();
        s.push_str(FRAGMENTS[ins]);
        s.extend(edited[at..].iter());
        check(&s);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        check(&text);
    }

    #[test]
    fn erb_shaped_text_never_panics(parts in proptest::collection::vec(0..FRAGMENTS.len(), 0..60)) {
        let text: String = parts.iter().map(|i| FRAGMENTS[*i]).collect::<Vec<_>>().join(" ");
        check(&text);
        let tight: String = parts.iter().map(|i| FRAGMENTS[*i]).collect();
        check(&tight);
    }
}

#[test]
fn deep_case_parens() {
    check(&format!("<%= {}1{} %>", "(".repeat(5000), ")".repeat(5000)));
}
#[test]
fn deep_case_interp() {
    check(&format!("<%= \"{}\" %>", "#{\"".repeat(2000)));
}
#[test]
fn deep_case_rec() {
    let mut scope = Scope;
    assert!(render(
        "<% def f(n) f(n + 1) end %><%= f(0) %>",
        "r.erb",
        &mut scope
    )
    .is_err());
}
#[test]
fn deep_case_not() {
    check(&format!("<%= {}1 %>", "!".repeat(5000)));
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!("<%= {}1{} %>", "(".repeat(5000), ")".repeat(5000));
    check(&deep);
    let deep = format!("<%= {}1{} %>", "[".repeat(5000), "]".repeat(5000));
    check(&deep);
    let deep = format!("<%= {}1 %>", "!".repeat(5000));
    check(&deep);
    let deep = format!("<%= {}1 %>", "-".repeat(5000));
    check(&deep);
    let deep = format!("<%= \"{}\" %>", "#{\"".repeat(2000));
    check(&deep);
    let rec = "<% def f(n) f(n + 1) end %><%= f(0) %>";
    let mut scope = Scope;
    assert!(render(rec, "r.erb", &mut scope).is_err());
    let endless = "<% while true do end %>";
    assert!(render(endless, "r.erb", &mut scope).is_err());
    let selfref =
        "<% a = [1]; a << a %><%= a.inspect %><%= a == a %><%= a.flatten.size rescue 0 %>";
    let _ = render(selfref, "r.erb", &mut scope);
}
