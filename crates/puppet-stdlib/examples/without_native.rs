//! Lists the Ruby functions of a module directory (`lib/puppet/functions/**/*.rb`, 4.x, and
//! `lib/puppet/parser/functions/*.rb`, 3.x) that have no native implementation here, one
//! `module<TAB>name<TAB>api<TAB>file` a line, sorted: the functions that run from their
//! own Ruby in a compile. Run: `cargo run -p puppet-stdlib --example without_native --
//! [/usr/share/puppet/modules]`.

use std::path::{Path, PathBuf};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "rb") {
            out.push(p);
        }
    }
}

fn main() {
    let root = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "/usr/share/puppet/modules".into());
    let mut rows = Vec::new();
    let Ok(rd) = std::fs::read_dir(&root) else {
        eprintln!("{root}: not a directory");
        return;
    };
    for m in rd.flatten() {
        let module = m.file_name().to_string_lossy().to_string();
        for (api, sub) in [
            ("4.x", "lib/puppet/functions"),
            ("3.x", "lib/puppet/parser/functions"),
        ] {
            let base = m.path().join(sub);
            let mut files = Vec::new();
            walk(&base, &mut files);
            for f in files {
                let rel = f.strip_prefix(&base).unwrap_or(&f).with_extension("");
                let name = rel.to_string_lossy().replace('/', "::").to_lowercase();
                if puppet_stdlib::native(&module, &name).is_none() {
                    rows.push(format!("{module}\t{name}\t{api}\t{}", f.display()));
                }
            }
        }
    }
    rows.sort();
    for r in rows {
        println!("{r}");
    }
}
