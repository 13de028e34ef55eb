//! Our Ruby regexps against Ruby 3.1's answers, without Ruby: each line of
//! fixtures/regexp_ruby.jsonl is a pattern, its options and texts, and what Ruby (Onigmo)
//! did with them (scripts/regexp-diff.rb; regenerate with
//! `scripts/regexp-diff.py 100 700 --write-fixture FILE`): whether `Regexp.new` refused it,
//! its group names, and per text the byte spans of the groups of the first match, of every
//! match `scan` finds, `gsub` with a replacement and `split`. A pattern Ruby accepts and we
//! refuse must stay refused (our error names the construct) or answer as Ruby does.

use puppet_types::regexp::{ruby_replacement, RubyPattern};
use serde_json::{json, Value};

fn spans(groups: &[Option<(usize, usize)>]) -> Value {
    Value::Array(
        groups
            .iter()
            .map(|g| g.map_or(Value::Null, |(s, e)| json!([s, e])))
            .collect(),
    )
}

/// What we answer for one text, in the fixture's form.
fn ours(p: &RubyPattern, text: &str, rep: Option<&str>) -> Value {
    let all = p.all_matches(text, 1000);
    let names = p.group_names();
    let gsub = rep.map(|rep| {
        let mut out = String::new();
        let mut last = 0;
        for groups in &all {
            let (start, end) = groups[0].expect("a match");
            out.push_str(&text[last..start]);
            let strings: Vec<Option<&str>> =
                groups.iter().map(|g| g.map(|(s, e)| &text[s..e])).collect();
            match ruby_replacement(rep, &strings, &text[..start], &text[end..], &names) {
                Ok(r) => out.push_str(&r),
                Err(e) => return format!("ERR {e}"),
            }
            last = end;
        }
        out.push_str(&text[last..]);
        out
    });
    json!({
        "first": p.first_match(text).as_deref().map(spans),
        "all": all.iter().map(|g| spans(g)).collect::<Vec<_>>(),
        "gsub": gsub,
        "split": p.split(text).unwrap(),
    })
}

/// The byte spans of a fixture's groups as the strings they cover.
fn span_strings(text: &str, groups: &Value) -> Vec<Option<String>> {
    groups
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            g.as_array().map(|se| {
                let (s, e) = (se[0].as_u64().unwrap(), se[1].as_u64().unwrap());
                text[s as usize..e as usize].to_string()
            })
        })
        .collect()
}

/// The paths Puppet's matching takes (the automata, the direct matcher, the test
/// translation; [`RubyPattern::captures`], [`RubyPattern::automata_matches`],
/// `Regexp::is_match`) answer as Ruby did, not only fancy-regex's.
fn automata_agree(p: &RubyPattern, source: &str, flags: &str, text: &str, want: &Value) {
    let first = want["first"]
        .as_array()
        .map(|_| span_strings(text, &want["first"]));
    assert_eq!(
        p.captures(text),
        first,
        "/{source}/{flags} on {text:?}: captures"
    );
    if let Some(all) = p.automata_matches(text, 1000) {
        let want_all: Vec<(usize, usize, Vec<Option<String>>)> = want["all"]
            .as_array()
            .unwrap()
            .iter()
            .map(|groups| {
                let whole = &groups[0];
                let (s, e) = (whole[0].as_u64().unwrap(), whole[1].as_u64().unwrap());
                (s as usize, e as usize, span_strings(text, groups))
            })
            .collect();
        assert_eq!(
            all, want_all,
            "/{source}/{flags} on {text:?}: automata_matches"
        );
    }
    if flags.is_empty() {
        let r = puppet_types::Regexp::new(source).unwrap();
        assert_eq!(
            r.is_match(text),
            first.is_some(),
            "/{source}/ on {text:?}: is_match"
        );
    }
}

#[test]
fn regexps_match_as_ruby_does() {
    let data = include_str!("fixtures/regexp_ruby.jsonl");
    let (mut checked, mut refused) = (0, 0);
    for line in data.lines() {
        let case: Value = serde_json::from_str(line).unwrap();
        let source = case["p"].as_str().unwrap();
        let flags = case["f"].as_str().unwrap();
        let ruby = &case["ruby"];
        let compiled = RubyPattern::new(source, flags).and_then(|p| match p.regex() {
            Ok(_) => Ok(p),
            Err(e) => Err(e),
        });
        if ruby.get("err").is_some() {
            assert!(compiled.is_err(), "/{source}/{flags}: Ruby refuses it");
            continue;
        }
        let p = match compiled {
            Ok(p) => p,
            Err(_) => {
                refused += 1;
                continue;
            }
        };
        let mut names: Vec<(String, Vec<usize>)> = Vec::new();
        for (i, n) in p.group_names().into_iter().enumerate() {
            if let Some(n) = n {
                names.push((n, vec![i + 1]));
            }
        }
        let want_names: Vec<(String, Vec<usize>)> =
            serde_json::from_value(ruby["names"].clone()).unwrap();
        assert_eq!(names, want_names, "/{source}/{flags}: group names");
        let texts = case["t"].as_array().unwrap();
        for (t, want) in texts.iter().zip(ruby["cases"].as_array().unwrap()) {
            let text = t.as_str().unwrap();
            if want.get("timeout").is_some() || want.get("err").is_some() {
                continue;
            }
            let got = ours(&p, text, case["r"].as_str());
            for key in ["first", "all", "split"] {
                assert_eq!(got[key], want[key], "/{source}/{flags} on {text:?}: {key}");
            }
            automata_agree(&p, source, flags, text, want);
            if !want["gsub"].as_str().unwrap_or("").starts_with("ERR") {
                assert_eq!(
                    got["gsub"], want["gsub"],
                    "/{source}/{flags} on {text:?}: gsub"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 3000, "{checked}");
    assert!(refused < 60, "{refused}");
}
