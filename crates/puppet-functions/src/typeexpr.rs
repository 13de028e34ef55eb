//! A small reader for type expressions and literal values as they are written in function
//! signatures: `Variant[Numeric, String]`, `Callable[2, 2]`, `Struct[{a => Integer}]`,
//! `Pattern[/^[GEIM]*$/]`, `Enum['E', 'N']`, and the literals inside them.
//!
//! It is not the Puppet parser: there are no variables, operators or calls. Names are resolved
//! with `puppet_types::resolve_type_name_with` after asking a caller-supplied lookup (local
//! type aliases, loader aliases); unknown names become `TypeReference['Name']`.

use puppet_types::{parameterize_value, resolve_type_name_with, Regexp, Type, TypeResolver, Value};

/// Parses a type expression (`Integer[1, 3]`) into a [`Type`].
///
/// ```
/// use puppet_functions::parse_type;
/// let t = parse_type("Variant[Integer[1,3], Optional[String]]", &|_| None).unwrap();
/// assert_eq!(t.to_string(), "Variant[Integer[1, 3], Optional[String]]");
/// ```
pub fn parse_type(
    text: &str,
    lookup: &(dyn Fn(&str) -> Option<Type> + Send + Sync),
) -> Result<Type, String> {
    match parse_value(text, lookup)? {
        Value::Type(t) => Ok(t),
        other => Err(format!("expected a type, got {other}")),
    }
}

/// Parses a literal value or type expression: numbers, quoted strings, bare words (as
/// strings), `true`/`false`/`undef`/`default`, regexps, arrays, hashes and types.
///
/// ```
/// use puppet_functions::parse_value;
/// let v = parse_value("{a => [1, -2.5, 'x'], 'b' => Integer[1]}", &|_| None).unwrap();
/// assert_eq!(v.to_string(), "{'a' => [1, -2.5, 'x'], 'b' => Integer[1]}");
/// ```
pub fn parse_value(
    text: &str,
    lookup: &(dyn Fn(&str) -> Option<Type> + Send + Sync),
) -> Result<Value, String> {
    let mut p = Reader {
        s: text.as_bytes(),
        src: text,
        pos: 0,
        depth: 0,
        lookup,
    };
    let v = p.value()?;
    p.ws();
    if p.pos != p.s.len() {
        return Err(format!("unexpected text at offset {}", p.pos));
    }
    Ok(v)
}

struct Reader<'a> {
    s: &'a [u8],
    src: &'a str,
    pos: usize,
    depth: usize,
    lookup: &'a (dyn Fn(&str) -> Option<Type> + Send + Sync),
}

struct Lookup<'a>(&'a (dyn Fn(&str) -> Option<Type> + Send + Sync));

impl TypeResolver for Lookup<'_> {
    fn resolve(&self, name: &str) -> Option<Type> {
        (self.0)(name).or_else(|| puppet_types::BuiltinResolver.resolve(name))
    }
}

impl Reader<'_> {
    fn ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.pos).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn list(&mut self, close: u8) -> Result<Vec<Value>, String> {
        let mut out = Vec::new();
        if self.eat(close) {
            return Ok(out);
        }
        loop {
            out.push(self.value()?);
            if self.eat(b',') {
                if self.eat(close) {
                    return Ok(out);
                }
                continue;
            }
            if self.eat(close) {
                return Ok(out);
            }
            return Err(format!(
                "expected ',' or '{}' at offset {}",
                close as char, self.pos
            ));
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        self.depth += 1;
        if self.depth > 100 {
            return Err("type expression nested too deeply".into());
        }
        let r = self.value_inner();
        self.depth -= 1;
        r
    }

    fn value_inner(&mut self) -> Result<Value, String> {
        let Some(c) = self.peek() else {
            return Err("unexpected end of type expression".into());
        };
        match c {
            b'[' => {
                self.pos += 1;
                Ok(Value::array(self.list(b']')?))
            }
            b'{' => {
                self.pos += 1;
                let mut pairs = Vec::new();
                if !self.eat(b'}') {
                    loop {
                        let k = self.value()?;
                        self.ws();
                        if !self.src[self.pos..].starts_with("=>") {
                            return Err(format!("expected '=>' at offset {}", self.pos));
                        }
                        self.pos += 2;
                        let v = self.value()?;
                        pairs.push((k, v));
                        if self.eat(b',') {
                            if self.eat(b'}') {
                                break;
                            }
                            continue;
                        }
                        if self.eat(b'}') {
                            break;
                        }
                        return Err(format!("expected ',' or '}}' at offset {}", self.pos));
                    }
                }
                Ok(Value::hash(pairs))
            }
            b'\'' | b'"' => self.string(c),
            b'/' => {
                let start = self.pos + 1;
                let mut i = start;
                while i < self.s.len() && self.s[i] != b'/' {
                    if self.s[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if i >= self.s.len() {
                    return Err("unterminated regexp".into());
                }
                self.pos = i + 1;
                let re = Regexp::new(&self.src[start..i]).map_err(|e| e.to_string())?;
                Ok(Value::Regexp(re))
            }
            b'-' | b'0'..=b'9' => self.number(),
            c if c.is_ascii_alphabetic() || c == b':' || c == b'_' => {
                let start = self.pos;
                while self.pos < self.s.len()
                    && (self.s[self.pos].is_ascii_alphanumeric()
                        || self.s[self.pos] == b'_'
                        || self.s[self.pos] == b':')
                {
                    self.pos += 1;
                }
                let word = &self.src[start..self.pos];
                match word {
                    "true" => return Ok(Value::Boolean(true)),
                    "false" => return Ok(Value::Boolean(false)),
                    "undef" => return Ok(Value::Undef),
                    "default" => return Ok(Value::Default),
                    _ => {}
                }
                let bare = word.trim_start_matches("::");
                if !bare.starts_with(|c: char| c.is_ascii_uppercase()) {
                    return Ok(Value::string(word));
                }
                let resolver = Lookup(self.lookup);
                let base = resolve_type_name_with(word, &resolver);
                if self.s.get(self.pos) == Some(&b'[') {
                    self.pos += 1;
                    let args = self.list(b']')?;
                    parameterize_value(&base, &args).map_err(|e| e.to_string())
                } else {
                    Ok(Value::Type(base))
                }
            }
            other => Err(format!(
                "unexpected '{}' at offset {}",
                other as char, self.pos
            )),
        }
    }

    fn string(&mut self, q: u8) -> Result<Value, String> {
        self.pos += 1;
        let mut out = String::new();
        let rest = &self.src[self.pos..];
        let mut chars = rest.char_indices();
        while let Some((i, ch)) = chars.next() {
            if ch as u32 == q as u32 {
                self.pos += i + 1;
                return Ok(Value::string(out));
            }
            if ch == '\\' {
                match chars.next() {
                    Some((_, 'n')) if q == b'"' => out.push('\n'),
                    Some((_, 't')) if q == b'"' => out.push('\t'),
                    Some((_, 'r')) if q == b'"' => out.push('\r'),
                    Some((_, '\\')) => out.push('\\'),
                    Some((_, c)) if c as u32 == q as u32 => out.push(c),
                    Some((_, c)) => {
                        out.push('\\');
                        out.push(c);
                    }
                    None => break,
                }
            } else {
                out.push(ch);
            }
        }
        Err("unterminated string".into())
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.pos;
        if self.s[self.pos] == b'-' {
            self.pos += 1;
        }
        let mut float = false;
        while self.pos < self.s.len() {
            let c = self.s[self.pos];
            if c.is_ascii_digit() {
                self.pos += 1;
            } else if (c == b'.' && self.s.get(self.pos + 1).is_some_and(u8::is_ascii_digit))
                || ((c == b'e' || c == b'E') && float_exp_follows(&self.s[self.pos + 1..]))
            {
                float = true;
                self.pos += 1;
                if matches!(self.s.get(self.pos), Some(b'-' | b'+')) {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
        let text = &self.src[start..self.pos];
        if float {
            text.parse::<f64>()
                .map(Value::Float)
                .map_err(|e| e.to_string())
        } else if let Some(hex) = text.strip_prefix("0x") {
            i64::from_str_radix(hex, 16)
                .map(Value::Integer)
                .map_err(|e| e.to_string())
        } else {
            text.parse::<i64>()
                .map(Value::Integer)
                .map_err(|e| format!("bad number '{text}': {e}"))
        }
    }
}

fn float_exp_follows(rest: &[u8]) -> bool {
    match rest.first() {
        Some(b'-' | b'+') => rest.get(1).is_some_and(u8::is_ascii_digit),
        Some(c) => c.is_ascii_digit(),
        None => false,
    }
}
