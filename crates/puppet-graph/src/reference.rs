//! Resource references as Puppet writes them (`Type[title]`): parsing, the canonical form
//! the agent prints (`Class[Foo::Bar]`, `Stage[main]`), and the lookup key that decides
//! when two references name the same resource.
//!
//! Not a parser of Puppet expressions: only the strings that appear in catalog JSON.

/// Splits `Type[title]` into its type and title. The title runs to the last `]`, so titles
/// containing brackets survive. Returns `None` for anything else.
pub(crate) fn parse_ref(s: &str) -> Option<(&str, &str)> {
    let b = s.as_bytes();
    // Trimming is a no-op when the text starts with a visible ASCII character and ends
    // with `]` (the usual case); otherwise trim Unicode whitespace as `str::trim` does.
    let s = if b.first().is_some_and(u8::is_ascii_graphic) && b.last() == Some(&b']') {
        s
    } else {
        s.trim()
    };
    let open = s.bytes().position(|c| c == b'[')?;
    if !s.ends_with(']') || open == 0 {
        return None;
    }
    let ty = &s[..open];
    let title = &s[open + 1..s.len() - 1];
    let title = strip_quotes(title);
    // `[` cannot occur in `ty` (it ends at the first one); ASCII names need no char walk.
    let plain = ty
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || c == b':' || c == b'_');
    if !plain
        && ty
            .chars()
            .any(|c| c.is_whitespace() || c == '[' || c == ']')
    {
        return None;
    }
    Some((ty, title))
}

fn strip_quotes(t: &str) -> &str {
    let b = t.as_bytes();
    if b.len() >= 2 && (b[0] == b'\'' || b[0] == b'"') && b[b.len() - 1] == b[0] {
        &t[1..t.len() - 1]
    } else {
        t
    }
}

/// `foo::bar` -> `Foo::Bar` (a leading `::` is dropped), as Puppet capitalises type names.
pub(crate) fn capitalize_segments(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    capitalize_segments_into(&mut out, name);
    out
}

/// [`capitalize_segments`], appended to `out`.
pub(crate) fn capitalize_segments_into(out: &mut String, name: &str) {
    let name = name.strip_prefix("::").unwrap_or(name);
    let mut rest = name;
    loop {
        let (seg, next) = match rest.as_bytes().iter().position(|&c| c == b':') {
            None => (rest, None),
            Some(i) => match rest[i..].find("::") {
                Some(j) => (&rest[..i + j], Some(&rest[i + j + 2..])),
                None => (rest, None),
            },
        };
        let mut chars = seg.chars();
        if let Some(c) = chars.next() {
            if c.is_ascii() {
                out.push(c.to_ascii_uppercase());
            } else {
                out.extend(c.to_uppercase());
            }
            out.push_str(chars.as_str());
        }
        match next {
            Some(n) => {
                out.push_str("::");
                rest = n;
            }
            None => break,
        }
    }
}

/// The reference as the agent prints it: type capitalised, class titles capitalised
/// (`Class[main]` is `Class[Main]`), other titles untouched.
pub(crate) fn display_ref(ty: &str, title: &str) -> String {
    let mut out = String::with_capacity(ty.len() + title.len() + 2);
    display_ref_into(&mut out, ty, title);
    out
}

/// [`display_ref`], appended to `out` (no allocation once `out` has grown).
pub(crate) fn display_ref_into(out: &mut String, ty: &str, title: &str) {
    let start = out.len();
    capitalize_segments_into(out, ty);
    let is_class = &out[start..] == "Class";
    out.push('[');
    if is_class {
        capitalize_segments_into(out, title);
    } else {
        out.push_str(title);
    }
    out.push(']');
}

/// Whether the reference the agent prints for `ty[title]` ([`display_ref`]) reads back
/// ([`parse_ref`], then [`key_bytes`]) as the same lookup key, so that a reference written
/// exactly that way names this resource by its text alone. A cheap sufficient test: an
/// ASCII type name without a leading `:`, a title not wrapped in quotes, and for classes
/// an ASCII title without a leading `:` (capitalising is then undone by lower-casing).
pub(crate) fn display_reads_back(ty: &str, title: &str) -> bool {
    let tb = ty.as_bytes();
    let plain_type = tb.first().is_some_and(|&c| c != b':')
        && tb
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b':');
    if !plain_type || strip_quotes(title).len() != title.len() {
        return false;
    }
    !ty.eq_ignore_ascii_case("class") || (title.is_ascii() && !title.starts_with(':'))
}

/// The parameter holding the namevar of the core types whose namevar is also a name a
/// reference may use (`File[/etc/x]` for a file titled `x` with `path => '/etc/x'`): `path`
/// for files, `name` for packages, services, users, groups, hosts and mounts. `type_key` is
/// lower-cased.
pub(crate) fn namevar(type_key: &str) -> Option<&'static str> {
    match type_key {
        "file" => Some("path"),
        "package" | "service" | "user" | "group" | "host" | "mount" => Some("name"),
        _ => None,
    }
}

/// Normalises a file path the way Puppet's `file` type does for its title and namevar:
/// repeated slashes collapse and a trailing slash goes (the root stays `/`).
pub(crate) fn normalize_path(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    let mut prev_slash = false;
    for c in p.chars() {
        if c == '/' {
            if !prev_slash {
                out.push(c);
            }
            prev_slash = true;
        } else {
            out.push(c);
            prev_slash = false;
        }
    }
    while out.len() > 1 && out.ends_with('/') {
        out.pop();
    }
    out
}

/// Appends `p` normalised as by [`normalize_path`] to `out`, byte by byte (`/` is ASCII,
/// so UTF-8 sequences pass through untouched).
fn normalize_path_into(out: &mut Vec<u8>, p: &str) {
    let b = p.as_bytes();
    let dirty = (b.len() > 1 && b[b.len() - 1] == b'/') || b.windows(2).any(|w| w == b"//");
    if !dirty {
        out.extend_from_slice(b);
        return;
    }
    let start = out.len();
    let mut prev_slash = false;
    for &c in b {
        if c == b'/' {
            if !prev_slash {
                out.push(c);
            }
            prev_slash = true;
        } else {
            out.push(c);
            prev_slash = false;
        }
    }
    while out.len() > start + 1 && out.last() == Some(&b'/') {
        out.pop();
    }
}

/// Writes the lookup key of `ty[title]` into `buf` as bytes (the same bytes as
/// [`lookup_key`]) and returns it; no allocation once `buf` has grown.
pub(crate) fn key_bytes<'b>(buf: &'b mut Vec<u8>, ty: &str, title: &str) -> &'b [u8] {
    buf.clear();
    let ty = ty.strip_prefix("::").unwrap_or(ty);
    // ASCII lower-casing byte by byte leaves multi-byte UTF-8 sequences (bytes >= 0x80)
    // alone, as `char::to_ascii_lowercase` does.
    buf.extend_from_slice(ty.as_bytes());
    buf.make_ascii_lowercase();
    let ty_len = buf.len();
    buf.push(0);
    match &buf[..ty_len] {
        b"class" => {
            let t = title.strip_prefix("::").unwrap_or(title);
            let at = buf.len();
            buf.extend_from_slice(t.as_bytes());
            buf[at..].make_ascii_lowercase();
        }
        b"file" => normalize_path_into(buf, title),
        _ => buf.extend_from_slice(title.as_bytes()),
    }
    buf
}

/// The key under which a resource is found: the type lower-cased, the title as given
/// except for classes (case-insensitive, leading `::` dropped) and files (normalised path).
pub(crate) fn lookup_key(ty: &str, title: &str) -> String {
    let ty = ty.strip_prefix("::").unwrap_or(ty).to_ascii_lowercase();
    let title = match ty.as_str() {
        "class" => title
            .strip_prefix("::")
            .unwrap_or(title)
            .to_ascii_lowercase(),
        "file" => normalize_path(title),
        _ => title.to_string(),
    };
    let mut k = ty;
    k.push('\u{0}');
    k.push_str(&title);
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_displays() {
        assert_eq!(parse_ref("Notify[a]"), Some(("Notify", "a")));
        assert_eq!(parse_ref("File[/a[1]]"), Some(("File", "/a[1]")));
        assert_eq!(parse_ref("Notify['x']"), Some(("Notify", "x")));
        assert_eq!(parse_ref("nope"), None);
        assert_eq!(parse_ref("[x]"), None);
        assert_eq!(display_ref("class", "foo::bar"), "Class[Foo::Bar]");
        assert_eq!(display_ref("foo::bar", "one"), "Foo::Bar[one]");
        assert_eq!(lookup_key("Class", "::Foo"), lookup_key("class", "foo"));
        assert_eq!(normalize_path("/a//b/"), "/a/b");
        assert_eq!(normalize_path("/"), "/");
        for name in [
            "foo::bar", "::foo", "a:b::c", "x:::y", "::", "", "ébc::d", "a::",
        ] {
            let mut s = String::new();
            capitalize_segments_into(&mut s, name);
            let want: Vec<String> = name
                .strip_prefix("::")
                .unwrap_or(name)
                .split("::")
                .map(|seg| {
                    let mut c = seg.chars();
                    c.next()
                        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                        .unwrap_or_default()
                })
                .collect();
            assert_eq!(s, want.join("::"), "{name}");
        }
        for r in [
            "Notify[a]",
            " Notify[a] ",
            "\u{a0}Notify[a]",
            "No tify[a]",
            "Nö[x]",
            "N\u{2003}[x]",
            "Foo::Bar-x[y]",
        ] {
            let t = r.trim();
            let want = t.find('[').and_then(|open| {
                if !t.ends_with(']') || open == 0 {
                    return None;
                }
                let ty = &t[..open];
                (!ty.chars()
                    .any(|c| c.is_whitespace() || c == '[' || c == ']'))
                .then(|| (ty, strip_quotes(&t[open + 1..t.len() - 1])))
            });
            assert_eq!(parse_ref(r), want, "{r:?}");
        }
        let mut bytes = Vec::new();
        for (t, title) in [
            ("Class", "::Foo::BAR"),
            ("::File", "//a//b//"),
            ("File", "/"),
            ("File", "//"),
            ("File", "rel/"),
            ("File", "/a/b"),
            ("File", "a//"),
            ("Notify", "Ünï"),
            ("CLASS", "ÄbC"),
        ] {
            assert_eq!(
                key_bytes(&mut bytes, t, title),
                lookup_key(t, title).as_bytes()
            );
        }
        let mut s = String::new();
        display_ref_into(&mut s, "class", "foo::bar");
        assert_eq!(s, "Class[Foo::Bar]");
    }

    /// When `display_reads_back` holds, the printed reference has the resource's own key.
    #[test]
    fn display_reads_back_is_sound() {
        let types = [
            "Notify", "notify", "CLASS", "class", "Class", "File", "file", "::Foo", "::::foo",
            "Foo::Bar", "foo:bar", "a:::b", "a::", "Nö", "x y", "Stage", "_x", "9a", "",
        ];
        let titles = [
            "main", "Main", "::foo", "::::foo", "foo::bar", "'x'", "\"y\"", "'", "\"", "",
            "/a//b/", "/", "ÄbC", "äbc::d", " a ", "a]", "[a]", "x[1]", "a:b::c", "\u{a0}",
        ];
        let mut buf = Vec::new();
        let mut checked = 0;
        for ty in types {
            for title in titles {
                if !display_reads_back(ty, title) {
                    continue;
                }
                checked += 1;
                let shown = display_ref(ty, title);
                let (t2, title2) = parse_ref(&shown).unwrap_or_else(|| panic!("{shown}"));
                let back = key_bytes(&mut buf, t2, title2).to_vec();
                assert_eq!(back, lookup_key(ty, title).into_bytes(), "{ty}[{title}]");
            }
        }
        assert!(checked > 100, "{checked}");
    }
}
