//! Dropping negative look-aheads that can never fail, so that a pattern written with them
//! runs on regex-automata instead of fancy-regex's backtracking engine.
//!
//! Modules guard numbers with a one-character negative look-ahead: stdlib's
//! `Stdlib::Compat::Ipv4` is `^((([0-9](?!\d)|[1-9][0-9](?!\d)|...)[.]){3}...)$`. Every
//! `(?!\d)` there is followed by a `.`, a `/` or the end of the line, none of which is a
//! digit, so the look-ahead holds on every path through the pattern that can still match:
//! removing it changes no match and no group. fancy-regex compiles that pattern into about
//! forty prefiltered pieces (20M instructions, a tenth of a whole keystone compile); without
//! the look-aheads it is one automaton.
//!
//! [`drop_redundant_lookaheads`] proves that for each negative look-ahead of a single
//! character class `(?!C)`: every way the rest of the pattern can go on from that point
//! either consumes a character outside `C` first, or first asserts the end of the line
//! (`$`, when `C` has no newline) or of the text. Whatever it cannot prove (a path that can
//! reach the end of the pattern, case-insensitive or unusual pieces, back references,
//! other look-arounds) keeps the pattern as it is.

use fancy_regex::{Assertion, Expr, LookAround};
use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, HirKind};

/// What can come next at a point of a pattern.
#[derive(Debug, Clone)]
struct Next {
    /// The characters the next consuming piece may take (the union of every path's).
    chars: ClassUnicode,
    /// Some path asserts the end of a line first (the next character is a newline or there
    /// is none).
    end_of_line: bool,
    /// Some path reaches the end of the pattern without consuming or asserting an end: the
    /// next character is anything.
    open: bool,
}

impl Default for Next {
    fn default() -> Next {
        Next {
            chars: ClassUnicode::empty(),
            end_of_line: false,
            open: false,
        }
    }
}

impl Next {
    fn end_of_pattern() -> Next {
        Next {
            open: true,
            ..Next::default()
        }
    }

    /// The next character is one of `chars`.
    fn consuming(chars: ClassUnicode) -> Next {
        Next {
            chars,
            ..Next::default()
        }
    }

    fn union(mut self, other: &Next) -> Next {
        self.chars.union(&other.chars);
        self.end_of_line |= other.end_of_line;
        self.open |= other.open;
        self
    }

    /// True when no next character can be in `class`.
    fn excludes(&self, class: &ClassUnicode) -> bool {
        let newline = ClassUnicode::new([ClassUnicodeRange::new('\n', '\n')]);
        !self.open
            && (!self.end_of_line || !overlaps(class, &newline))
            && !overlaps(class, &self.chars)
    }
}

fn overlaps(a: &ClassUnicode, b: &ClassUnicode) -> bool {
    let mut both = a.clone();
    both.intersect(b);
    !both.ranges().is_empty()
}

/// The pattern `translated` (already in fancy-regex's dialect) with its redundant negative
/// look-aheads removed, when that leaves no other construct that needs fancy-regex; `None`
/// otherwise.
///
/// ```text
/// ^([0-9](?![0-9])|1[0-9](?![0-9]))[.]$   ->   ^(?:([0-9]|1[0-9]))[.]$  (the same groups)
/// ```
pub(crate) fn drop_redundant_lookaheads(translated: &str) -> Option<String> {
    let tree = Expr::parse_tree(translated).ok()?;
    if tree.named_groups.iter().next().is_some() || tree.backrefs.iter().next().is_some() {
        return None;
    }
    let mut found = false;
    let rewritten = rewrite(&tree.expr, &Next::end_of_pattern(), &mut found)?;
    if !found {
        return None;
    }
    let mut out = String::new();
    rewritten.to_str(&mut out, 0);
    Some(out)
}

/// `e` with its redundant look-aheads replaced by `Empty`, given what may follow it;
/// `None` when some construct stays that needs fancy-regex.
fn rewrite(e: &Expr, follow: &Next, found: &mut bool) -> Option<Expr> {
    Some(match e {
        Expr::Empty => Expr::Empty,
        Expr::Any { newline } => Expr::Any { newline: *newline },
        Expr::Literal { val, casei } => Expr::Literal {
            val: val.clone(),
            casei: *casei,
        },
        Expr::Delegate { inner, size, casei } => Expr::Delegate {
            inner: inner.clone(),
            size: *size,
            casei: *casei,
        },
        Expr::Assertion(a) if simple_assertion(a) => Expr::Assertion(*a),
        Expr::Concat(children) => {
            let mut out = Vec::with_capacity(children.len());
            let mut after = follow.clone();
            for child in children.iter().rev() {
                out.push(rewrite(child, &after, found)?);
                after = first(child, &after)?;
            }
            out.reverse();
            Expr::Concat(out)
        }
        Expr::Alt(children) => Expr::Alt(
            children
                .iter()
                .map(|c| rewrite(c, follow, found))
                .collect::<Option<_>>()?,
        ),
        Expr::Group(child) => Expr::Group(Box::new(rewrite(child, follow, found)?)),
        Expr::Repeat {
            child,
            lo,
            hi,
            greedy,
        } => {
            // Another round of the child, or what follows the repetition, may come next.
            let inner = if *hi > 1 {
                first(child, follow)?.union(follow)
            } else {
                follow.clone()
            };
            Expr::Repeat {
                child: Box::new(rewrite(child, &inner, found)?),
                lo: *lo,
                hi: *hi,
                greedy: *greedy,
            }
        }
        Expr::LookAround(inner, LookAround::LookAheadNeg) => {
            let class = single_class(inner)?;
            if !follow.excludes(&class) {
                return None;
            }
            *found = true;
            Expr::Empty
        }
        _ => return None,
    })
}

/// What can come first when `e` runs and then `follow`.
fn first(e: &Expr, follow: &Next) -> Option<Next> {
    Some(match e {
        Expr::Empty => follow.clone(),
        Expr::Any { newline } => {
            let mut all = ClassUnicode::new([ClassUnicodeRange::new('\0', char::MAX)]);
            if !newline {
                all.difference(&ClassUnicode::new([ClassUnicodeRange::new('\n', '\n')]));
            }
            Next::consuming(all)
        }
        Expr::Literal { val, casei } => {
            let c = val.chars().next()?;
            Next::consuming(char_class(c, *casei)?)
        }
        Expr::Delegate { inner, casei, .. } => Next::consuming(class_of(inner, *casei)?),
        Expr::Assertion(Assertion::EndText) => Next::default(),
        Expr::Assertion(Assertion::EndLine { crlf: false }) => Next {
            end_of_line: true,
            ..Next::default()
        },
        // Zero-width: what follows decides.
        Expr::Assertion(a) if simple_assertion(a) => follow.clone(),
        Expr::LookAround(_, _) => follow.clone(),
        Expr::Concat(children) => {
            let mut after = follow.clone();
            for child in children.iter().rev() {
                after = first(child, &after)?;
            }
            after
        }
        Expr::Alt(children) => {
            let mut all = Next::default();
            for c in children {
                all = all.union(&first(c, follow)?);
            }
            all
        }
        Expr::Group(child) => first(child, follow)?,
        Expr::Repeat { child, lo, .. } => {
            let once = first(child, follow)?;
            if *lo == 0 {
                once.union(follow)
            } else {
                once
            }
        }
        _ => return None,
    })
}

/// The assertions this analysis knows (and fancy-regex can write back as text): the start
/// and end of the text or of a line.
fn simple_assertion(a: &Assertion) -> bool {
    matches!(
        a,
        Assertion::StartText
            | Assertion::EndText
            | Assertion::StartLine { crlf: false }
            | Assertion::EndLine { crlf: false }
    )
}

/// The characters a one-character piece matches: a class, an escape, one literal.
fn single_class(e: &Expr) -> Option<ClassUnicode> {
    match e {
        Expr::Delegate { inner, casei, .. } => class_of(inner, *casei),
        Expr::Literal { val, casei } if val.chars().count() == 1 => {
            char_class(val.chars().next()?, *casei)
        }
        _ => None,
    }
}

/// The characters a literal `c` matches: itself, or with `casei` its case variants.
fn char_class(c: char, casei: bool) -> Option<ClassUnicode> {
    if casei {
        return class_of(&regex_syntax::escape(&c.to_string()), true);
    }
    Some(ClassUnicode::new([ClassUnicodeRange::new(c, c)]))
}

/// The class of a pattern piece that matches exactly one character. The analysis asks
/// for the same pieces many times (once per enclosing concatenation), so the answers of
/// the thread's last pieces are kept (a pure function of the piece).
fn class_of(piece: &str, casei: bool) -> Option<ClassUnicode> {
    type Memo = std::cell::RefCell<rustc_hash::FxHashMap<(String, bool), Option<ClassUnicode>>>;
    thread_local! {
        static MEMO: Memo = Memo::default();
    }
    let key = (piece.to_string(), casei);
    if let Some(found) = MEMO.with(|m| m.borrow().get(&key).cloned()) {
        return found;
    }
    let found = parse_class(piece, casei);
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= 256 {
            m.clear();
        }
        m.insert(key, found.clone());
    });
    found
}

/// [`class_of`], parsed.
fn parse_class(piece: &str, casei: bool) -> Option<ClassUnicode> {
    let text = if casei {
        format!("(?i:{piece})")
    } else {
        piece.to_string()
    };
    let hir = regex_syntax::Parser::new().parse(&text).ok()?;
    match hir.kind() {
        HirKind::Class(Class::Unicode(c)) => Some(c.clone()),
        HirKind::Literal(lit) => {
            let s = std::str::from_utf8(&lit.0).ok()?;
            let mut chars = s.chars();
            let c = chars.next()?;
            chars
                .next()
                .is_none()
                .then(|| ClassUnicode::new([ClassUnicodeRange::new(c, c)]))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_lookaheads_that_the_rest_of_the_pattern_guarantees() {
        let out = |p: &str| drop_redundant_lookaheads(p);
        assert!(
            out(r"(?m)^([0-9](?![0-9])|1[0-9](?![0-9]))[.]$").is_some_and(|t| !t.contains("?!"))
        );
        // At the end of a line: the next character is a newline or nothing.
        assert!(out(r"(?m)^[0-9](?![0-9])$").is_some());
        // Repeated: the next round starts with a dot.
        assert!(out(r"(?m)^(?:[0-9](?![0-9])[.]){3}$").is_some());
    }

    #[test]
    fn keeps_lookaheads_that_can_fail() {
        let out = |p: &str| drop_redundant_lookaheads(p);
        // The pattern may end right after the look-ahead: the next character is anything.
        assert_eq!(out(r"[0-9](?![0-9])"), None);
        // A digit may follow.
        assert_eq!(out(r"(?m)^[0-9](?![0-9])[0-9.]$"), None);
        // A repetition of the same piece may follow.
        assert_eq!(out(r"(?m)^(?:[0-9](?![0-9]))+$"), None);
        // `$` allows a newline next: not when the look-ahead refuses newlines.
        assert_eq!(out(r"(?m)^a(?!\n)$"), None);
        // Case-insensitive pieces are folded: `A` may follow `(?!a)` under (?i).
        assert_eq!(out(r"(?i)x(?!a)A"), None);
        // Other look-arounds, back references and named groups stay on fancy-regex.
        assert_eq!(out(r"(?m)^a(?=b)b$"), None);
        assert_eq!(out(r"(?m)\ba(?!b)c"), None);
        assert_eq!(out(r"(a)(?!b)\1"), None);
        assert_eq!(out(r"(?<n>a)(?!b)c"), None);
        // Nothing to drop.
        assert_eq!(out(r"abc"), None);
    }

    /// The rewritten pattern finds the same matches and groups as fancy-regex with the
    /// look-aheads, on texts around the pieces' boundaries.
    #[test]
    fn rewritten_patterns_match_as_the_originals() {
        let patterns = [
            r"(?m)^((([0-9](?![0-9])|[1-9][0-9](?![0-9])|1[0-9]{2}(?![0-9])|2[0-4][0-9](?![0-9])|25[0-5](?![0-9]))[.]){3}([0-9](?![0-9])|[1-9][0-9](?![0-9])|1[0-9]{2}(?![0-9])|2[0-4][0-9](?![0-9])|25[0-5](?![0-9])))(/([0-9](?![0-9])|[1-2][0-9](?![0-9])|3[0-2](?![0-9])))?$",
            r"(?m)(a(?!b)|ab(?!e))(c|d)",
            r"(?m)x([0-9]+(?![0-9]))(?:\.|$)",
        ];
        let mut texts: Vec<String> = [
            "1.2.3.4",
            "10.0.0.1/24",
            "256.1.1.1",
            "1.2.3.4/33",
            "01.2.3.4",
            "1.2.3",
            "1.2.3.4\n",
            "a\n1.2.3.4",
            "1.2.3.45",
            "255.255.255.255/32",
            "ad",
            "abc",
            "abd",
            "acd",
            "x12.",
            "x12",
            "x12a",
            "x1\n",
            "",
        ]
        .map(String::from)
        .to_vec();
        // And 5,000 short texts over the characters the patterns care about.
        let alphabet: Vec<char> = "0123459./\nabcdx".chars().collect();
        let mut seed = 0x2545_f491_u64;
        for _ in 0..5000 {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let len = (seed >> 59) as usize % 12;
            texts.push(
                (0..len)
                    .map(|i| alphabet[((seed >> (i * 5 % 58)) as usize) % alphabet.len()])
                    .collect(),
            );
        }
        for p in patterns {
            let rewritten = drop_redundant_lookaheads(p).expect(p);
            let fancy = fancy_regex::Regex::new(p).unwrap();
            let plain = regex_automata::meta::Regex::new(&rewritten).unwrap();
            for t in &texts {
                let t = t.as_str();
                let want = fancy.captures(t).unwrap().map(|c| {
                    (0..c.len())
                        .map(|i| c.get(i).map(|m| m.range()))
                        .collect::<Vec<_>>()
                });
                let mut caps = plain.create_captures();
                plain.captures(t, &mut caps);
                let got = caps.is_match().then(|| {
                    (0..caps.group_len())
                        .map(|i| caps.get_group(i).map(|s| s.range()))
                        .collect::<Vec<_>>()
                });
                assert_eq!(got, want, "{p} on {t:?}");
            }
        }
    }
}
