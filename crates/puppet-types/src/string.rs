//! [`Str`]: the payload of a Puppet string value, its text and whether Ruby would hold it as
//! binary (`ASCII-8BIT`).
//!
//! Puppet's strings are Ruby strings, and a few sources make binary ones: `pw_hash` (Ruby's
//! `String#crypt`), `base64('decode', ...)`, `Array#pack`, a module's Ruby function returning
//! such a string. They are Strings to the language (`String` type, `==`, interpolation), but a
//! catalog writes them as `{"__ptype": "Binary", "__pvalue": <base64>}` (Puppet's
//! `ToDataConverter`), so the flag travels with the value. A binary string's characters are
//! its bytes (U+0000 to U+00FF), as the Ruby interpreter of `puppet-ruby` holds them.
//!
//! Equality, ordering and hashing read the text only: `"abc"` and a binary `"abc"` are the
//! same hash key, as in Ruby for ASCII-only strings.

use smol_str::SmolStr;
use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

/// A Puppet string's text and encoding (UTF-8, or binary).
///
/// ```
/// use puppet_types::Str;
/// let text = Str::new("abc");
/// let bytes = Str::from_bytes(b"abc\xff");
/// assert!(!text.is_binary() && bytes.is_binary());
/// assert_eq!(bytes.to_bytes(), b"abc\xff");
/// assert_eq!(Str::from_bytes(b"abc"), text); // equal by text
/// ```
#[derive(Clone, Default)]
pub struct Str {
    text: SmolStr,
    binary: bool,
}

impl Str {
    /// A UTF-8 string.
    pub fn new(text: impl AsRef<str>) -> Str {
        Str {
            text: SmolStr::new(text.as_ref()),
            binary: false,
        }
    }

    /// A binary string of these bytes (each byte one character).
    pub fn from_bytes(bytes: &[u8]) -> Str {
        Str {
            text: bytes.iter().map(|b| *b as char).collect(),
            binary: true,
        }
    }

    /// A binary string whose characters are bytes already (U+0000 to U+00FF), as
    /// `puppet-ruby` holds a binary string's text. Characters above U+00FF are kept as they
    /// are (they cannot come from bytes; the text is not checked).
    pub fn binary(text: impl Into<SmolStr>) -> Str {
        Str {
            text: text.into(),
            binary: true,
        }
    }

    /// This text with the encoding given.
    pub fn with_binary(text: impl Into<SmolStr>, binary: bool) -> Str {
        Str {
            text: text.into(),
            binary,
        }
    }

    /// A new string of this one's encoding, as Ruby's String methods answer (`upcase`,
    /// `strip`, `sub`, `split`'s parts...).
    pub fn derive(&self, text: impl AsRef<str>) -> Str {
        Str {
            text: SmolStr::new(text.as_ref()),
            binary: self.binary,
        }
    }

    /// `f` applied to the text as Ruby's String methods apply to this string: for a binary
    /// string, its non-ASCII characters are bytes, not letters or spaces, so `f` (a case
    /// change, a strip...) leaves them as they are. The result has this string's encoding.
    ///
    /// ```
    /// use puppet_types::Str;
    /// let up = Str::from_bytes(b"ab\xff").map_text(|t| t.to_uppercase());
    /// assert_eq!(up.to_bytes(), b"AB\xff");
    /// ```
    pub fn map_text(&self, f: impl FnOnce(&str) -> String) -> Str {
        if !self.binary || self.text.is_ascii() {
            return self.derive(f(&self.text));
        }
        // Bytes 0x80-0xFF go through `f` as private-use characters (U+F780-U+F7FF), which
        // no case mapping, trimming or splitting touches, and come back.
        const INERT: u32 = 0xF700;
        let inert: String = self
            .text
            .chars()
            .map(|c| match c as u32 {
                b @ 0x80..=0xFF => char::from_u32(INERT + b).unwrap_or(c),
                _ => c,
            })
            .collect();
        let back: String = f(&inert)
            .chars()
            .map(|c| match c as u32 {
                p @ 0xF780..=0xF7FF => char::from_u32(p - INERT).unwrap_or(c),
                _ => c,
            })
            .collect();
        Str::binary(back)
    }

    /// True for a binary (`ASCII-8BIT`) string.
    pub fn is_binary(&self) -> bool {
        self.binary
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        self.text.as_str()
    }

    /// The text as a [`SmolStr`].
    pub fn text(&self) -> &SmolStr {
        &self.text
    }

    /// The text, without the encoding.
    pub fn into_text(self) -> SmolStr {
        self.text
    }

    /// The bytes Ruby holds: a binary string's characters, or the UTF-8 of the text.
    pub fn to_bytes(&self) -> Vec<u8> {
        if self.binary {
            self.text.chars().map(|c| c as u32 as u8).collect()
        } else {
            self.text.as_bytes().to_vec()
        }
    }

    /// The text as a terminal or a log shows Ruby's bytes: a binary string's bytes read as
    /// UTF-8 (invalid sequences replaced), the text of any other.
    pub fn display_text(&self) -> std::borrow::Cow<'_, str> {
        if self.binary && !self.text.is_ascii() {
            std::borrow::Cow::Owned(String::from_utf8_lossy(&self.to_bytes()).into_owned())
        } else {
            std::borrow::Cow::Borrowed(self.text.as_str())
        }
    }
}

/// Whether two strings appended one to the other (Ruby's `<<`, `+`, `Array#join`, Puppet's
/// interpolation) make a binary string, given each one's (binary, ASCII only): the left one's
/// encoding when both are the same or the right one is ASCII only, the right one's when the
/// left one is ASCII only; `None` for two non-ASCII strings of different encodings (Ruby's
/// `Encoding::CompatibilityError`, "incompatible character encodings: ...").
///
/// ```
/// use puppet_types::string::joined_binary;
/// assert_eq!(joined_binary((true, true), (false, true)), Some(true));
/// assert_eq!(joined_binary((false, true), (true, false)), Some(true));
/// assert_eq!(joined_binary((false, false), (true, false)), None);
/// ```
pub fn joined_binary(left: (bool, bool), right: (bool, bool)) -> Option<bool> {
    match (left, right) {
        ((a, _), (b, _)) if a == b => Some(a),
        ((a, _), (_, true)) => Some(a),
        ((_, true), (b, _)) => Some(b),
        _ => None,
    }
}

/// The encoding of pieces of text joined one after the other (Ruby's `Array#join`, which
/// Puppet's interpolation uses): the first piece's, then [`joined_binary`] for each piece
/// appended. The ASCII checks are made only when a piece's encoding differs.
///
/// ```
/// use puppet_types::string::JoinEncoding;
/// let (mut text, mut enc) = (String::new(), JoinEncoding::default());
/// for (piece, binary) in [("abc", true), ("def", false)] {
///     let start = text.len();
///     text.push_str(piece);
///     enc.push(&text, start, binary).unwrap();
/// }
/// assert!(enc.is_binary());
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct JoinEncoding {
    started: bool,
    binary: bool,
}

impl JoinEncoding {
    /// Accounts for the piece `text[start..]` (of this encoding) just appended to `text`;
    /// `Err` with Ruby's message when the encodings are incompatible.
    pub fn push(&mut self, text: &str, start: usize, binary: bool) -> Result<(), &'static str> {
        if !self.started {
            self.started = true;
            self.binary = binary;
        } else if binary != self.binary {
            let left = (self.binary, text[..start].is_ascii());
            let right = (binary, text[start..].is_ascii());
            self.binary = joined_binary(left, right).ok_or(incompatible_message(self.binary))?;
        }
        Ok(())
    }

    /// True when the joined text is binary.
    pub fn is_binary(&self) -> bool {
        self.binary
    }
}

/// The message of Ruby's `Encoding::CompatibilityError` for a left string of this encoding
/// appended with one of the other.
pub fn incompatible_message(left_binary: bool) -> &'static str {
    if left_binary {
        "incompatible character encodings: ASCII-8BIT and UTF-8"
    } else {
        "incompatible character encodings: UTF-8 and ASCII-8BIT"
    }
}

impl Deref for Str {
    type Target = SmolStr;
    fn deref(&self) -> &SmolStr {
        &self.text
    }
}

impl AsRef<str> for Str {
    fn as_ref(&self) -> &str {
        self.text.as_str()
    }
}

impl Borrow<str> for Str {
    fn borrow(&self) -> &str {
        self.text.as_str()
    }
}

impl PartialEq for Str {
    fn eq(&self, other: &Str) -> bool {
        self.text == other.text
    }
}
impl Eq for Str {}

impl PartialEq<str> for Str {
    fn eq(&self, other: &str) -> bool {
        self.text == other
    }
}

impl PartialEq<&str> for Str {
    fn eq(&self, other: &&str) -> bool {
        self.text == *other
    }
}

impl PartialEq<String> for Str {
    fn eq(&self, other: &String) -> bool {
        self.text == other.as_str()
    }
}

impl PartialEq<SmolStr> for Str {
    fn eq(&self, other: &SmolStr) -> bool {
        &self.text == other
    }
}

impl PartialEq<Str> for str {
    fn eq(&self, other: &Str) -> bool {
        self == other.text.as_str()
    }
}

impl PartialEq<Str> for &str {
    fn eq(&self, other: &Str) -> bool {
        *self == other.text.as_str()
    }
}

impl PartialOrd for Str {
    fn partial_cmp(&self, other: &Str) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Str {
    fn cmp(&self, other: &Str) -> std::cmp::Ordering {
        self.text.cmp(&other.text)
    }
}

impl Hash for Str {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.text.hash(state)
    }
}

impl fmt::Debug for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.binary {
            write!(f, "b{:?}", self.text)
        } else {
            fmt::Debug::fmt(&self.text, f)
        }
    }
}

impl fmt::Display for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl From<SmolStr> for Str {
    fn from(text: SmolStr) -> Str {
        Str {
            text,
            binary: false,
        }
    }
}

impl From<&SmolStr> for Str {
    fn from(text: &SmolStr) -> Str {
        Str::from(text.clone())
    }
}

impl From<&str> for Str {
    fn from(text: &str) -> Str {
        Str::new(text)
    }
}

impl From<String> for Str {
    fn from(text: String) -> Str {
        Str::from(SmolStr::from(text))
    }
}

impl From<&String> for Str {
    fn from(text: &String) -> Str {
        Str::new(text)
    }
}

impl From<Str> for SmolStr {
    fn from(s: Str) -> SmolStr {
        s.text
    }
}

impl From<Str> for String {
    fn from(s: Str) -> String {
        s.text.into()
    }
}
