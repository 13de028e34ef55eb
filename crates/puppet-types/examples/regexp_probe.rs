//! Our side of the regexp differential tester (`scripts/regexp-diff.py`): reads JSON lines
//! `{"p": source, "f": ruby options, "t": [texts]}` on stdin and writes, per line, what our
//! translation does with them, in the form `scripts/regexp-diff.rb` writes Ruby's answers:
//! `{"err": message}` when the pattern is refused, else the group names and, per text, the
//! byte spans of every group of the first match and of every match Ruby's iteration
//! (`scan`, `gsub`) finds. It also checks that the cheaper paths (the automata, the match
//! test) agree with the full pattern, and says where they do not (`"paths"`).

use puppet_types::regexp::RubyPattern;
use serde_json::{json, Value};
use std::io::{BufRead, Write};

fn spans(groups: &[Option<(usize, usize)>]) -> Value {
    Value::Array(
        groups
            .iter()
            .map(|g| match g {
                Some((s, e)) => json!([s, e]),
                None => Value::Null,
            })
            .collect(),
    )
}

fn probe(source: &str, flags: &str, texts: &[String], rep: Option<&str>) -> Value {
    let pattern = match RubyPattern::new(source, flags) {
        Ok(p) => p,
        Err(e) => return json!({ "err": e }),
    };
    let re = match pattern.regex() {
        Ok(re) => re.clone(),
        Err(e) => return json!({ "err": e }),
    };
    let names = pattern.group_names();
    if std::env::var_os("REGEXP_PROBE_DEBUG").is_some() {
        eprintln!("{pattern:?}");
    }
    let mut cases = Vec::new();
    let mut paths = Vec::new();
    for text in texts {
        let first = pattern.first_match(text);
        let all = pattern.all_matches(text, 1000);
        // The cheaper paths.
        let strings = first.as_ref().map(|groups| {
            groups
                .iter()
                .map(|g| g.map(|(s, e)| text[s..e].to_string()))
                .collect::<Vec<_>>()
        });
        if pattern.captures(text) != strings {
            paths.push(format!("captures on {text:?}"));
        }
        if re.is_match(text).unwrap_or(false) != first.is_some() {
            paths.push(format!("fancy is_match on {text:?}"));
        }
        if flags.is_empty() {
            if let Ok(r) = puppet_types::Regexp::new(source) {
                if r.is_match(text) != first.is_some() {
                    paths.push(format!("Regexp::is_match on {text:?}"));
                }
            }
        }
        // `gsub` with the replacement, as Puppet's `regsubst` does it.
        let gsub = rep.map(|rep| {
            let mut out = String::new();
            let mut last = 0;
            for groups in &all {
                let Some((start, end)) = groups[0] else {
                    continue;
                };
                out.push_str(&text[last..start]);
                let strings: Vec<Option<&str>> =
                    groups.iter().map(|g| g.map(|(s, e)| &text[s..e])).collect();
                match puppet_types::regexp::ruby_replacement(
                    rep,
                    &strings,
                    &text[..start],
                    &text[end..],
                    &names,
                ) {
                    Ok(r) => out.push_str(&r),
                    Err(e) => return Value::String(format!("ERR {e}")),
                }
                last = end;
            }
            out.push_str(&text[last..]);
            Value::String(out)
        });
        cases.push(json!({
            "first": first.as_deref().map(spans),
            "all": all.iter().map(|g| spans(g)).collect::<Vec<_>>(),
            "gsub": gsub,
            "split": pattern.split(text).unwrap_or_default(),
        }));
    }
    json!({ "names": names, "cases": cases, "paths": paths })
}

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout());
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let v: Value = serde_json::from_str(&line).expect("a JSON line");
        let source = v["p"].as_str().unwrap_or_default();
        let flags = v["f"].as_str().unwrap_or_default();
        let texts: Vec<String> = v["t"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|t| t.as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default();
        let rep = v["r"].as_str();
        let result = std::panic::catch_unwind(|| probe(source, flags, &texts, rep))
            .unwrap_or_else(|_| json!({ "err": "PANIC" }));
        writeln!(out, "{result}").expect("stdout");
        out.flush().expect("stdout");
    }
}
