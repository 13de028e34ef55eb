//! Names as Puppet spells them: qualified names (`a::b`, a leading `::`), capitalized type and
//! resource-reference names, and the short type names and articles used in messages. Pure
//! string functions on the hot paths of variable references and calls.

use puppet_types::Value;
use smol_str::SmolStr;

/// `name` without its leading `::` (all of them, as `trim_start_matches("::")`, which
/// builds a substring searcher on every call: this is on the hot path of every call and
/// type reference).
#[inline]
pub(crate) fn strip_root(name: &str) -> &str {
    let mut rest = name;
    while let Some(r) = rest.strip_prefix("::") {
        rest = r;
    }
    rest
}

/// `name` without its leading `::`, in lower case (`strip_root(name).to_ascii_lowercase()`,
/// without a new String when it already is: names are usually written in lower case).
#[inline]
pub(crate) fn lower_bare(name: &str) -> std::borrow::Cow<'_, str> {
    let bare = strip_root(name);
    match bare.bytes().any(|b| b.is_ascii_uppercase()) {
        true => bare.to_ascii_lowercase().into(),
        false => bare.into(),
    }
}

/// Whether `name` has a `::` (a qualified name): `contains("::")` without building a
/// substring searcher, for the hot paths (every variable reference and call).
#[inline]
pub(crate) fn is_qualified(name: &str) -> bool {
    name.as_bytes().windows(2).any(|w| w == b"::")
}

/// The part of `name` before its first `::` (all of it without one): what
/// `name.split("::").next()` gives, without building a substring searcher.
#[inline]
pub(crate) fn first_segment(name: &str) -> &str {
    match name.as_bytes().windows(2).position(|w| w == b"::") {
        Some(i) => &name[..i],
        None => name,
    }
}

/// `name.rsplit_once("::")` (the text before and after the last `::`) without building a
/// substring searcher: this runs for every qualified variable reference and every variable
/// Hiera interpolates.
#[inline]
pub(crate) fn rsplit_qualified(name: &str) -> Option<(&str, &str)> {
    let b = name.as_bytes();
    let i = (0..b.len().saturating_sub(1))
        .rev()
        .find(|&i| b[i] == b':' && b[i + 1] == b':')?;
    Some((&name[..i], &name[i + 2..]))
}

/// Capitalises each `::` segment: `foo::bar` -> `Foo::Bar`.
pub fn capitalize(name: &str) -> String {
    if name.is_ascii() {
        return capitalize_ascii(name, false).to_string();
    }
    let mut out = String::with_capacity(name.len());
    for (i, seg) in name.split("::").enumerate() {
        if i > 0 {
            out.push_str("::");
        }
        let mut c = seg.chars();
        if let Some(f) = c.next() {
            if f.is_ascii() {
                out.push(f.to_ascii_uppercase());
            } else {
                out.extend(f.to_uppercase());
            }
            out.push_str(c.as_str());
        }
    }
    out
}

/// [`capitalize`] as a `SmolStr`: no heap allocation for short ASCII names.
#[inline]
pub(crate) fn capitalize_smol(name: &str) -> SmolStr {
    if name.is_ascii() {
        capitalize_ascii(name, false)
    } else {
        SmolStr::new(capitalize(name))
    }
}

/// [`capitalize`] of `name` lowercased first (`FOO::bar` -> `Foo::Bar`), as a resource
/// reference's type name: one pass and no heap allocation for short ASCII names.
#[inline]
pub(crate) fn capitalize_lowered(name: &str) -> SmolStr {
    if name.is_ascii() {
        memo_capitalized(name)
    } else {
        SmolStr::new(capitalize(&name.to_ascii_lowercase()))
    }
}

/// How many names [`memo_capitalized`] keeps at most (it starts again when full).
const MEMO_LIMIT: usize = 4096;

thread_local! {
    /// [`capitalize_ascii`] (lower-casing) of the ASCII names met on this thread: a compile
    /// makes the same few class and type names into reference names over and over (every
    /// `Class[...]` key), and looking one up costs a fraction of making it.
    static CAPITALIZED: std::cell::RefCell<rustc_hash::FxHashMap<SmolStr, SmolStr>> =
        std::cell::RefCell::new(Default::default());
}

/// `capitalize_ascii(name, true)`, remembered per thread (see [`CAPITALIZED`]).
fn memo_capitalized(name: &str) -> SmolStr {
    CAPITALIZED.with(|memo| {
        let Ok(mut memo) = memo.try_borrow_mut() else {
            return capitalize_ascii(name, true);
        };
        if let Some(cap) = memo.get(name) {
            return cap.clone();
        }
        let cap = capitalize_ascii(name, true);
        if memo.len() >= MEMO_LIMIT {
            memo.clear();
        }
        memo.insert(SmolStr::new(name), cap.clone());
        cap
    })
}

/// [`capitalize_lowered`] of a name held as a `SmolStr`: the name itself (shared, not
/// copied) when it is already in that form, as the names of the catalog's resources are.
#[inline]
pub(crate) fn capitalize_lowered_smol(name: &SmolStr) -> SmolStr {
    if name.is_ascii() && !case_changes(name.as_bytes(), true, |_, _| false) {
        name.clone()
    } else {
        capitalize_lowered(name)
    }
}

/// The case changes that capitalising an ASCII name makes: the first byte of each
/// `::`-separated segment (the segments exactly as `split("::")` finds them) upper-cased
/// and, with `lower`, the other bytes lower-cased. Calls `change(index, new byte)` for each
/// byte that changes, until it returns false; whether any byte changes.
fn case_changes(name: &[u8], lower: bool, mut change: impl FnMut(usize, u8) -> bool) -> bool {
    let mut changed = false;
    let mut i = 0;
    let mut seg_start = true;
    while i < name.len() {
        let b = name[i];
        if b == b':' && name.get(i + 1) == Some(&b':') {
            i += 2;
            seg_start = true;
            continue;
        }
        let want = if seg_start {
            b.to_ascii_uppercase()
        } else if lower {
            b.to_ascii_lowercase()
        } else {
            b
        };
        if want != b {
            changed = true;
            if !change(i, want) {
                return true;
            }
        }
        seg_start = false;
        i += 1;
    }
    changed
}

/// Capitalises an ASCII name (see [`case_changes`]). Only the case of ASCII letters
/// changes, so the result has the name's length; a name already in that form is taken as
/// it is. A short name is capitalised on the stack in one pass.
fn capitalize_ascii(name: &str, lower: bool) -> SmolStr {
    let bytes = name.as_bytes();
    let mut stack = [0u8; 64];
    let Some(buf) = stack.get_mut(..name.len()) else {
        let mut buf = bytes.to_vec();
        if !case_changes(bytes, lower, |i, b| {
            buf[i] = b;
            true
        }) {
            return SmolStr::new(name);
        }
        return SmolStr::new(String::from_utf8(buf).unwrap_or_else(|_| name.to_string()));
    };
    buf.copy_from_slice(bytes);
    if !case_changes(bytes, lower, |i, b| {
        buf[i] = b;
        true
    }) {
        return SmolStr::new(name);
    }
    SmolStr::new(std::str::from_utf8(buf).unwrap_or(name))
}

pub(crate) fn type_name_of(v: &Value) -> String {
    match v {
        Value::Undef => "Undef".into(),
        Value::Default => "Default".into(),
        Value::Type(_) => "Type".into(),
        other => {
            let t = puppet_types::generalize(&puppet_types::infer(other)).to_string();
            t.split('[').next().unwrap_or("").to_string()
        }
    }
}

pub(crate) fn a_an(s: &str) -> String {
    let first = s.chars().next().unwrap_or('x').to_ascii_lowercase();
    if "aeiouy".contains(first) {
        format!("an {s}")
    } else {
        format!("a {s}")
    }
}

#[cfg(test)]
mod capitalize_tests {
    use super::{
        capitalize, capitalize_lowered, capitalize_lowered_smol, capitalize_smol, is_qualified,
        lower_bare, rsplit_qualified, strip_root,
    };
    use smol_str::SmolStr;

    /// The rule spelled out: split at `::`, upper-case each segment's first character.
    fn reference(name: &str) -> String {
        name.split("::")
            .map(|seg| {
                let mut c = seg.chars();
                match c.next() {
                    Some(f) => f.to_uppercase().chain(c).collect::<String>(),
                    None => String::new(),
                }
            })
            .collect::<Vec<_>>()
            .join("::")
    }

    #[test]
    fn fast_paths_agree_with_the_rule() {
        let long = "a".repeat(70) + "::b";
        for name in [
            "",
            "file",
            "FILE",
            "foo::bar",
            "Foo::BAR::baz",
            "::foo",
            "foo::",
            "a:::b",
            "a::::b",
            ":a",
            "a:b",
            "élan::x",
            "x::élan",
            "package_1::x-y",
            "Foo::Bar",
            "Foo::bar",
            "Foo:::Bar",
            "Foo:::bar",
            "A::B::",
            "Main",
            &long,
        ] {
            assert_eq!(capitalize(name), reference(name), "{name:?}");
            assert_eq!(Some(super::first_segment(name)), name.split("::").next());
            assert_eq!(capitalize_smol(name), reference(name), "{name:?}");
            assert_eq!(
                capitalize_lowered(name).as_str(),
                reference(&name.to_ascii_lowercase()),
                "{name:?}"
            );
            let lowered = reference(&name.to_ascii_lowercase());
            for smol in [SmolStr::new(name), SmolStr::new(&lowered)] {
                assert_eq!(capitalize_lowered_smol(&smol), lowered, "{smol:?}");
            }
        }
    }

    /// A remembered name is what making it again gives, also once the memo has been
    /// emptied for growing past its limit.
    #[test]
    fn remembered_names_are_the_names() {
        let names: Vec<String> = (0..super::MEMO_LIMIT + 10)
            .map(|i| format!("mod{}::Class_{i}::x", i % 7))
            .collect();
        for _ in 0..2 {
            for name in names.iter().take(20).chain(names.iter().rev().take(20)) {
                assert_eq!(
                    capitalize_lowered(name),
                    reference(&name.to_ascii_lowercase()),
                    "{name}"
                );
            }
            for name in &names {
                let _ = capitalize_lowered(name);
            }
        }
        assert_eq!(capitalize_lowered("FOO::bar"), "Foo::Bar");
        assert_eq!(capitalize_lowered("foo::bar"), "Foo::Bar");
    }

    /// The byte scans agree with the substring searches they replace.
    #[test]
    fn qualified_scans_match_str_searches() {
        for name in [
            "", ":", "::", ":::", "::::", "a", "a::b", "a::b::c", "::a", "a::", "a:::b", "a::::b",
            ":a:", "a:b", "élan::x", "x::élan", "::a::b", "a::b:",
        ] {
            assert_eq!(rsplit_qualified(name), name.rsplit_once("::"), "{name:?}");
            assert_eq!(is_qualified(name), name.contains("::"), "{name:?}");
            assert_eq!(strip_root(name), name.trim_start_matches("::"), "{name:?}");
            let lowered = name.trim_start_matches("::").to_ascii_lowercase();
            assert_eq!(lower_bare(name), lowered.as_str(), "{name:?}");
            assert_eq!(
                lower_bare(&name.to_ascii_uppercase()),
                lowered.as_str(),
                "{name:?}"
            );
        }
    }
}
