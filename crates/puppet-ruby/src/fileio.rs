//! Files opened for reading: `File.open(path)` (with or without a block) and `File.new`,
//! `File.readlines`, `File.foreach`, and the IO object's `read`, `gets`, `each_line`,
//! `readlines`, `eof?`, `rewind`, `close`...; `YAML.load(io)`, `YAML.safe_load(io)` and
//! `JSON.load(io)` read the rest of an opened file as Psych and JSON do. Module functions
//! read their data this way (example42's tp reads tinydata with `File.open` +
//! `YAML::load`). Files come from the [`SourceHost`](crate::SourceHost), so reads stay in
//! the environment's source; opening for writing is unsupported. `Dir[]`, `Dir.glob`,
//! `Dir.entries`, `Dir.children` and `Dir.exist?` list the host's directories (type files
//! that `require` their siblings found with `Dir[...]`). `$stdout` and `$stderr` are
//! streams whose output is dropped, as `Kernel#puts`'s is (Puppet writes it to the server's
//! own output, never to the catalog or its log).

use crate::interp::{raise, unsupported, Interp, R};
use crate::object::{Blk, ObjData};
use crate::source::PathKind;
use crate::value::{to_s, RValue};
use crate::Pos;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// An opened file: its text and the read position (bytes).
#[derive(Debug)]
pub(crate) struct FileIo {
    path: String,
    text: Rc<str>,
    at: Cell<usize>,
    closed: Cell<bool>,
    lineno: RefCell<i64>,
}

/// `$stdout` or `$stderr`: what is written to it is dropped.
#[derive(Debug)]
pub(crate) struct OutStream {
    fileno: i64,
}

/// The stream `$stdout` (`err` false) or `$stderr`.
pub(crate) fn out_stream(it: &mut Interp, err: bool) -> RValue {
    let fileno = if err { 2 } else { 1 };
    it.new_native("IO", OutStream { fileno })
}

/// Methods of `$stdout`/`$stderr`. `None`: `recv` is not one, or not one of these.
pub(crate) fn out_stream_method(recv: &RValue, name: &str, args: &[RValue]) -> Option<R> {
    let RValue::Object(o) = recv else {
        return None;
    };
    let s = crate::puppet::native::<OutStream>(o)?;
    Some(Ok(match name {
        "puts" | "print" | "printf" | "flush" | "fsync" => RValue::Nil,
        "write" | "syswrite" => RValue::Int(args.iter().map(|a| to_s(a).len() as i64).sum()),
        "<<" => recv.clone(),
        "sync" | "tty?" | "isatty" => RValue::Bool(false),
        "sync=" => args.first().cloned().unwrap_or(RValue::Nil),
        "fileno" | "to_i" => RValue::Int(s.fileno),
        _ => return None,
    }))
}

/// `path`'s text, or Ruby's ENOENT.
fn read(it: &Interp, path: &str, pos: Pos) -> Result<Rc<str>, crate::interp::Ctrl> {
    match it.sources.host().read(path) {
        Some(t) => Ok(Rc::from(&*t)),
        None => raise(
            "Errno::ENOENT",
            format!("No such file or directory @ rb_sysopen - {path}"),
            pos,
        ),
    }
}

/// The opened file `v` is, if it is one.
pub(crate) fn as_io(v: &RValue) -> Option<Rc<FileIo>> {
    let RValue::Object(o) = v else { return None };
    match &*o.data.borrow() {
        ObjData::Native(d) => d.clone().downcast::<FileIo>().ok(),
        _ => None,
    }
}

/// The rest of the file (Ruby's `io.read`), moving to its end.
fn rest(f: &FileIo) -> String {
    let at = f.at.get().min(f.text.len());
    f.at.set(f.text.len());
    f.text[at..].to_string()
}

/// Whether the mode argument opens for reading only.
fn read_mode(args: &[RValue]) -> bool {
    match args.get(1) {
        None | Some(RValue::Hash(_)) => true,
        Some(m) => {
            let m = to_s(m);
            !m.contains(['w', 'a', '+'])
        }
    }
}

/// Class methods of `File` (and `IO`) for opened files, and of `YAML`/`Psych`/`JSON` given
/// an opened file. `None`: not one of them (the interpreter's own methods answer).
pub(crate) fn class_method(
    it: &mut Interp,
    cname: &str,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    match (cname, name) {
        ("Dir", _) => dir_method(it, name, args, block, pos),
        ("File", "open" | "new") => Some((|| {
            crate::methods::argc(args, 1, 3, pos)?;
            let path = crate::methods::str_arg(&args[0], pos)?;
            if !read_mode(args) {
                return unsupported(
                    "File.open for writing (Ruby code writes no files here)",
                    pos,
                );
            }
            let text = read(it, &path, pos)?;
            let io = it.new_native(
                "File",
                FileIo {
                    path,
                    text,
                    at: Cell::new(0),
                    closed: Cell::new(false),
                    lineno: RefCell::new(0),
                },
            );
            match block {
                Some(b) if name == "open" => {
                    let r = it.call_block(b, vec![io.clone()], pos);
                    if let Some(f) = as_io(&io) {
                        f.closed.set(true);
                    }
                    r
                }
                _ => Ok(io),
            }
        })()),
        ("File", "readlines" | "foreach") => Some((|| {
            crate::methods::argc(args, 1, 3, pos)?;
            let path = crate::methods::str_arg(&args[0], pos)?;
            let text = read(it, &path, pos)?;
            let lines =
                it.call_method(RValue::str(&text), "lines", args[1..].to_vec(), None, pos)?;
            if name == "foreach" {
                let Some(b) = block else {
                    return unsupported("File.foreach without a block", pos);
                };
                if let RValue::Array(a) = &lines {
                    let items = a.borrow().clone();
                    for l in items {
                        it.call_block(b, vec![l], pos)?;
                    }
                }
                return Ok(RValue::Nil);
            }
            Ok(lines)
        })()),
        ("YAML" | "Psych", "load" | "safe_load" | "unsafe_load") | ("JSON", "load") => {
            let f = args.first().and_then(as_io)?;
            let mut a = args.to_vec();
            a[0] = RValue::string(rest(&f));
            let recv = RValue::Module(it.module_by_path(cname)?);
            crate::methods::class_method(it, cname, &recv, name, &a, block, pos)
        }
        _ => None,
    }
}

/// Methods of an opened file. `None`: `recv` is not one, or not one of these.
pub(crate) fn object_method(
    it: &mut Interp,
    recv: &RValue,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    let f = as_io(recv)?;
    if f.closed.get() && !matches!(name, "close" | "closed?" | "path" | "to_path") {
        return Some(raise("IOError", "closed stream", pos));
    }
    Some(match name {
        "read" => {
            if !args.is_empty() {
                return Some(unsupported("IO#read with a length", pos));
            }
            Ok(RValue::string(rest(&f)))
        }
        "gets" | "readline" => {
            let at = f.at.get().min(f.text.len());
            if at >= f.text.len() {
                if name == "readline" {
                    return Some(raise("EOFError", "end of file reached", pos));
                }
                return Some(Ok(RValue::Nil));
            }
            let end = f.text[at..].find('\n').map_or(f.text.len(), |i| at + i + 1);
            f.at.set(end);
            *f.lineno.borrow_mut() += 1;
            Ok(RValue::str(&f.text[at..end]))
        }
        "each_line" | "each" | "readlines" => (|| {
            let text = rest(&f);
            let lines = it.call_method(RValue::string(text), "lines", args.to_vec(), None, pos)?;
            if name == "readlines" {
                return Ok(lines);
            }
            let Some(b) = block else {
                return unsupported(format!("IO#{name} without a block"), pos);
            };
            if let RValue::Array(a) = &lines {
                let items = a.borrow().clone();
                for l in items {
                    it.call_block(b, vec![l], pos)?;
                }
            }
            Ok(recv.clone())
        })(),
        "eof?" | "eof" => Ok(RValue::Bool(f.at.get() >= f.text.len())),
        "rewind" => {
            f.at.set(0);
            *f.lineno.borrow_mut() = 0;
            Ok(RValue::Int(0))
        }
        "lineno" => Ok(RValue::Int(*f.lineno.borrow())),
        "pos" | "tell" => Ok(RValue::Int(f.at.get() as i64)),
        "size" => Ok(RValue::Int(f.text.len() as i64)),
        "close" => {
            f.closed.set(true);
            Ok(RValue::Nil)
        }
        "closed?" => Ok(RValue::Bool(f.closed.get())),
        "path" | "to_path" => Ok(RValue::str(&f.path)),
        "write" | "puts" | "print" | "<<" | "syswrite" => {
            raise("IOError", "not opened for writing", pos)
        }
        _ => return None,
    })
}

/// Class methods of `Dir` over the host's directories: `Dir[]`/`Dir.glob` (absolute
/// patterns; `*`, `?`, `[...]`, `{a,b}` and `**/`, entries of each directory in sorted
/// order, names starting with `.` only for a pattern that starts with `.`), `entries`,
/// `children`, `exist?`.
pub(crate) fn dir_method(
    it: &mut Interp,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    Some(match name {
        "[]" | "glob" => (|| {
            let patterns: Vec<String> = match args.first() {
                Some(RValue::Array(a)) => a.borrow().iter().map(to_s).collect(),
                Some(v) => {
                    if name == "[]" {
                        args.iter()
                            .filter(|x| !matches!(x, RValue::Hash(_)))
                            .map(to_s)
                            .collect()
                    } else {
                        vec![to_s(v)]
                    }
                }
                None => return crate::methods::argc(args, 1, 1, pos).map(|_| RValue::Nil),
            };
            if name == "glob"
                && args
                    .get(1)
                    .is_some_and(|f| !matches!(f, RValue::Hash(_) | RValue::Int(0)))
            {
                return unsupported("Dir.glob with flags", pos);
            }
            if args.iter().any(|a| matches!(a, RValue::Hash(_))) {
                return unsupported("Dir.glob with keyword options", pos);
            }
            let mut out = Vec::new();
            for p in patterns {
                // Braces first, as Ruby expands them: `{/a,/b}/*` is two absolute patterns.
                for alt in expand_braces(&p) {
                    if !alt.starts_with('/') {
                        return unsupported(
                            "Dir.glob of a relative pattern (the working directory)",
                            pos,
                        );
                    }
                    let segs: Vec<&str> = alt.split('/').filter(|s| !s.is_empty()).collect();
                    glob_walk(it, String::new(), &segs, &mut out);
                }
            }
            let found: Vec<RValue> = out.into_iter().map(RValue::string).collect();
            if let Some(b) = block {
                for f in found {
                    it.call_block(b, vec![f], pos)?;
                }
                return Ok(RValue::Nil);
            }
            Ok(RValue::array(found))
        })(),
        "entries" | "children" | "each_child" => (|| {
            crate::methods::argc(args, 1, 2, pos)?;
            let path = crate::methods::str_arg(&args[0], pos)?;
            let Some(mut names) = it
                .sources
                .host()
                .list_dir(&path)
                .map(|l| l.into_iter().map(|(n, _)| n).collect::<Vec<_>>())
            else {
                return raise(
                    "Errno::ENOENT",
                    format!("No such file or directory @ dir_initialize - {path}"),
                    pos,
                );
            };
            // Ruby lists in the file system's order; sorted here, so that it is stable.
            names.sort();
            if name == "entries" {
                names.splice(0..0, [".".to_string(), "..".to_string()]);
            }
            let list: Vec<RValue> = names.into_iter().map(RValue::string).collect();
            if name == "each_child" {
                let Some(b) = block else {
                    return unsupported("Dir.each_child without a block", pos);
                };
                for n in list {
                    it.call_block(b, vec![n], pos)?;
                }
                return Ok(RValue::Nil);
            }
            Ok(RValue::array(list))
        })(),
        "exist?" | "exists?" => (|| {
            crate::methods::argc(args, 1, 1, pos)?;
            let path = crate::methods::str_arg(&args[0], pos)?;
            Ok(RValue::Bool(
                it.sources.host().kind(&path) == Some(PathKind::Directory),
            ))
        })(),
        _ => return None,
    })
}

/// `{a,b}` alternatives expanded, in order (nested ones too).
fn expand_braces(p: &str) -> Vec<String> {
    let bytes = p.as_bytes();
    let Some(open) = p.find('{') else {
        return vec![p.to_string()];
    };
    let mut depth = 0;
    let mut parts = Vec::new();
    let mut start = open + 1;
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    parts.push(&p[start..i]);
                    let (pre, post) = (&p[..open], &p[i + 1..]);
                    return parts
                        .into_iter()
                        .flat_map(|alt| expand_braces(&format!("{pre}{alt}{post}")))
                        .collect();
                }
            }
            b',' if depth == 1 => {
                parts.push(&p[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    vec![p.to_string()]
}

fn has_magic(seg: &str) -> bool {
    seg.contains(['*', '?', '['])
}

/// The matches of `segs` below `dir` ("" is the root), depth first, each directory's
/// entries in sorted order, as Ruby's sorted glob gives them.
fn glob_walk(it: &Interp, dir: String, segs: &[&str], out: &mut Vec<String>) {
    let Some((seg, rest)) = segs.split_first() else {
        return;
    };
    let host = it.sources.host();
    let at = |name: &str| format!("{dir}/{name}");
    if *seg == "**" {
        if rest.is_empty() {
            return;
        }
        let Some(mut entries) = host.list_dir(if dir.is_empty() { "/" } else { &dir }) else {
            return;
        };
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, kind) in entries {
            glob_entry(it, &dir, &name, kind, rest, out);
            if kind == PathKind::Directory && !name.starts_with('.') {
                glob_walk(it, at(&name), segs, out);
            }
        }
        return;
    }
    if !has_magic(seg) {
        // A literal segment: the last one must exist; a directory on the way is found (or
        // not) when the walk lists it (the host shows only the environment's directories,
        // not their parents).
        let path = at(seg);
        if !rest.is_empty() {
            glob_walk(it, path, rest, out);
        } else if host.kind(&path).is_some() {
            out.push(path);
        }
        return;
    }
    let Some(mut entries) = host.list_dir(if dir.is_empty() { "/" } else { &dir }) else {
        return;
    };
    if seg.starts_with('.') {
        // Ruby 3.1 matches `.` (not `..`) with a pattern such as `.*`.
        entries.push((".".to_string(), PathKind::Directory));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, kind) in entries {
        glob_entry(it, &dir, &name, kind, segs, out);
    }
}

fn glob_entry(
    it: &Interp,
    dir: &str,
    name: &str,
    kind: PathKind,
    segs: &[&str],
    out: &mut Vec<String>,
) {
    let Some((seg, rest)) = segs.split_first() else {
        return;
    };
    if *seg == "**" || !fnmatch(seg, name) || (name.starts_with('.') && !seg.starts_with('.')) {
        return;
    }
    let path = format!("{dir}/{name}");
    if rest.is_empty() {
        out.push(path);
    } else if kind == PathKind::Directory {
        glob_walk(it, path, rest, out);
    }
}

/// A glob segment against one name: `*`, `?`, `[...]` (`^`/`!` negation, ranges), `\x`.
fn fnmatch(pat: &str, name: &str) -> bool {
    let p: Vec<char> = pat.chars().collect();
    let n: Vec<char> = name.chars().collect();
    fn go(p: &[char], n: &[char], steps: &mut usize) -> bool {
        *steps += 1;
        if *steps > 100_000 {
            return false;
        }
        match p.first() {
            None => n.is_empty(),
            Some('*') => (0..=n.len()).any(|i| go(&p[1..], &n[i..], steps)),
            Some('?') => !n.is_empty() && go(&p[1..], &n[1..], steps),
            Some('[') => {
                let Some(c) = n.first() else { return false };
                let mut i = 1;
                let neg = matches!(p.get(1), Some('^' | '!'));
                if neg {
                    i += 1;
                }
                let mut hit = false;
                let mut first = true;
                while i < p.len() && (p[i] != ']' || first) {
                    first = false;
                    if i + 2 < p.len() && p[i + 1] == '-' && p[i + 2] != ']' {
                        hit |= p[i] <= *c && *c <= p[i + 2];
                        i += 3;
                    } else {
                        hit |= p[i] == *c;
                        i += 1;
                    }
                }
                if i >= p.len() {
                    return false;
                }
                hit != neg && go(&p[i + 1..], &n[1..], steps)
            }
            Some('\\') if p.len() > 1 => n.first() == Some(&p[1]) && go(&p[2..], &n[1..], steps),
            Some(c) => n.first() == Some(c) && go(&p[1..], &n[1..], steps),
        }
    }
    go(&p, &n, &mut 0)
}
