//! The ERB scanner: splits template text into literal text, code and output pieces the way
//! Ruby's `ERB.new(text, trim_mode: '-')` does (its "explicit" scanner).
//!
//! Recognised tags: `<%` code, `<%=` output, `<%#` comment, `<%%` (a literal `<%` in text),
//! `%%>` (a literal `%>` inside a tag), `<%-` (which also drops the spaces and tabs before it
//! when they start a line or directly follow the previous tag: Ruby's scanner matches
//! `^[ \t]*<%-` with `^` anchored at its scan position, which is the end of the previous tag)
//! and `-%>` (which also drops one following line break). The pieces
//! keep the line break structure of the Ruby program ERB would generate, because a Ruby
//! comment inside a code tag swallows everything up to the next generated line break.

pub use puppet_ruby::{Piece, Pos};

/// Tracks line and column while walking the text.
struct Cursor<'a> {
    src: &'a str,
    at: usize,
    line: u32,
    column: u32,
}

impl<'a> Cursor<'a> {
    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
        }
    }
    fn rest(&self) -> &'a str {
        &self.src[self.at..]
    }
    fn advance(&mut self, n: usize) {
        let end = (self.at + n).min(self.src.len());
        let mut p = self.pos();
        p.advance_over(&self.src[self.at..end]);
        self.line = p.line;
        self.column = p.column;
        self.at = end;
    }
    fn at_line_start(&self, idx: usize) -> bool {
        idx == 0 || self.src.as_bytes().get(idx - 1) == Some(&b'\n')
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Stag {
    Code,
    Insert,
    Comment,
}

/// Scans `src` into pieces. Never fails: an unterminated tag runs to the end of the text,
/// as in Ruby (the Ruby parser then reports what is wrong with the code).
pub fn scan(src: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut cur = Cursor {
        src,
        at: 0,
        line: 1,
        column: 1,
    };
    let mut content = String::new();
    let mut stag: Option<(Stag, Pos)> = None;
    while cur.at < src.len() {
        match stag {
            None => {
                // Find the earliest start tag.
                let rest = cur.rest();
                let mut found: Option<(usize, usize, &str)> = None; // (text_end, tag_len, tag)
                let bytes = rest.as_bytes();
                // The first `<%`; a `<%-` takes the spaces and tabs before it when they
                // start a line or the text after the previous tag (`^[ \t]*<%-`, `^` also
                // matching where Ruby's scanner resumes).
                let mut from = 0;
                while let Some(k) = memchr::memchr(b'<', &bytes[from..]) {
                    let i = from + k;
                    if !rest[i..].starts_with("<%") {
                        from = i + 1;
                        continue;
                    }
                    let tag = if rest[i..].starts_with("<%-") {
                        "<%-"
                    } else if rest[i..].starts_with("<%%") {
                        "<%%"
                    } else if rest[i..].starts_with("<%=") {
                        "<%="
                    } else if rest[i..].starts_with("<%#") {
                        "<%#"
                    } else {
                        "<%"
                    };
                    let mut ws = i;
                    if tag == "<%-" {
                        while ws > 0 && matches!(bytes[ws - 1], b' ' | b'\t') {
                            ws -= 1;
                        }
                        if ws == i || (ws > 0 && !cur.at_line_start(cur.at + ws)) {
                            ws = i;
                        }
                    }
                    found = Some((ws, i - ws + tag.len(), tag));
                    break;
                }
                match found {
                    None => {
                        content.push_str(rest);
                        cur.advance(rest.len());
                    }
                    Some((text_end, tag_len, tag)) => {
                        content.push_str(&rest[..text_end]);
                        cur.advance(text_end);
                        cur.advance(tag_len);
                        if tag == "<%%" {
                            content.push_str("<%");
                            continue;
                        }
                        if !content.is_empty() {
                            out.push(Piece::Text(std::mem::take(&mut content)));
                        }
                        let kind = match tag {
                            "<%=" => Stag::Insert,
                            "<%#" => Stag::Comment,
                            _ => Stag::Code,
                        };
                        stag = Some((kind, cur.pos()));
                    }
                }
            }
            Some((kind, start)) => {
                let rest = cur.rest();
                let mut found: Option<(usize, &str)> = None;
                let bytes = rest.as_bytes();
                // The first `%>`, `-%>` or `%%>`.
                let mut from = 0;
                while let Some(k) = memchr::memchr(b'%', &bytes[from..]) {
                    let i = from + k;
                    if rest[i..].starts_with("%>") {
                        found = Some(if i > 0 && bytes[i - 1] == b'-' {
                            (i - 1, "-%>")
                        } else {
                            (i, "%>")
                        });
                        break;
                    }
                    if rest[i..].starts_with("%%>") {
                        found = Some((i, "%%>"));
                        break;
                    }
                    from = i + 1;
                }
                let Some((end, tag)) = found else {
                    // Unterminated: Ruby keeps the content and never compiles it.
                    cur.advance(rest.len());
                    content.clear();
                    break;
                };
                content.push_str(&rest[..end]);
                cur.advance(end + tag.len());
                if tag == "%%>" {
                    content.push_str("%>");
                    continue;
                }
                let mut code = std::mem::take(&mut content);
                match kind {
                    Stag::Code => {
                        if code.ends_with('\n') {
                            code.pop();
                            out.push(Piece::Code(code, start));
                            out.push(Piece::Cr);
                        } else {
                            out.push(Piece::Code(code, start));
                        }
                    }
                    Stag::Insert => out.push(Piece::Insert(code, start)),
                    Stag::Comment => {}
                }
                stag = None;
                if tag == "-%>" {
                    let rest = cur.rest();
                    if rest.starts_with("\r\n") {
                        cur.advance(2);
                        out.push(Piece::Cr);
                    } else if rest.starts_with('\n') {
                        cur.advance(1);
                        out.push(Piece::Cr);
                    } else if rest.is_empty() {
                        out.push(Piece::Cr);
                    }
                }
            }
        }
    }
    if stag.is_none() && !content.is_empty() {
        out.push(Piece::Text(content));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<String> {
        scan(src)
            .into_iter()
            .map(|p| match p {
                Piece::Text(t) => format!("T{t:?}"),
                Piece::Code(c, _) => format!("C{c:?}"),
                Piece::Insert(c, _) => format!("I{c:?}"),
                Piece::Cr => "CR".to_string(),
            })
            .collect()
    }

    #[test]
    fn trim_modes() {
        assert_eq!(
            texts("a\n  <%- x -%>\nb"),
            vec!["T\"a\\n\"", "C\" x \"", "CR", "T\"b\""]
        );
        assert_eq!(texts("a <%- x %>"), vec!["T\"a \"", "C\" x \""]);
        assert_eq!(texts("<%% x %%> <%# c -%>\n"), vec!["T\"<% x %%> \"", "CR"]);
        assert_eq!(texts("<%= 1 %%> %>"), vec!["I\" 1 %> \""]);
        // Right after a tag, `^` matches too (Puppet 7.23: "x<%= 1 %> <%- 2 -%>\ny" is "x1y").
        assert_eq!(
            texts("x<%= 1 %> \t<%- 2 -%>\ny"),
            vec!["T\"x\"", "I\" 1 \"", "C\" 2 \"", "CR", "T\"y\""]
        );
        assert_eq!(texts("<%% \t<%- 2 %>"), vec!["T\"<%\"", "C\" 2 \""]);
        assert_eq!(
            texts("<% 1 %>a <%- 2 %>"),
            vec!["C\" 1 \"", "T\"a \"", "C\" 2 \""]
        );
    }
}
