//! Resource references as Puppet writes them (`Type[title]`): parsing, the canonical form
//! the agent prints (`Class[Foo::Bar]`, `Stage[main]`), and the lookup key that decides
//! when two references name the same resource.
//!
//! Not a parser of Puppet expressions: only the strings that appear in catalog JSON.

/// Splits `Type[title]` into its type and title. The title runs to the last `]`, so titles
/// containing brackets survive. Returns `None` for anything else.
pub(crate) fn parse_ref(s: &str) -> Option<(&str, &str)> {
    let s = s.trim();
    let open = s.find('[')?;
    if !s.ends_with(']') || open == 0 {
        return None;
    }
    let ty = &s[..open];
    let title = &s[open + 1..s.len() - 1];
    let title = strip_quotes(title);
    if ty
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
    let name = name.strip_prefix("::").unwrap_or(name);
    let mut out = String::with_capacity(name.len());
    for (i, seg) in name.split("::").enumerate() {
        if i > 0 {
            out.push_str("::");
        }
        let mut chars = seg.chars();
        if let Some(c) = chars.next() {
            out.extend(c.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    out
}

/// The reference as the agent prints it: type capitalised, class titles capitalised
/// (`Class[main]` is `Class[Main]`), other titles untouched.
pub(crate) fn display_ref(ty: &str, title: &str) -> String {
    let t = capitalize_segments(ty);
    if t == "Class" {
        format!("Class[{}]", capitalize_segments(title))
    } else {
        format!("{t}[{title}]")
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

/// Writes the lookup key of `ty[title]` into `buf` (no allocation once `buf` has grown)
/// and returns it; same key as [`lookup_key`].
pub(crate) fn lookup_key_into<'b>(buf: &'b mut String, ty: &str, title: &str) -> &'b str {
    buf.clear();
    let ty = ty.strip_prefix("::").unwrap_or(ty);
    for c in ty.chars() {
        buf.push(c.to_ascii_lowercase());
    }
    let ty_len = buf.len();
    buf.push('\u{0}');
    match &buf[..ty_len] {
        "class" => {
            let t = title.strip_prefix("::").unwrap_or(title);
            for c in t.chars() {
                buf.push(c.to_ascii_lowercase());
            }
        }
        "file" => {
            let p = normalize_path(title);
            buf.push_str(&p);
        }
        _ => buf.push_str(title),
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
        let mut buf = String::new();
        for (t, title) in [("Class", "::Foo"), ("File", "/a//b/"), ("Notify", "X")] {
            assert_eq!(lookup_key_into(&mut buf, t, title), lookup_key(t, title));
        }
        assert_eq!(normalize_path("/"), "/");
    }
}
