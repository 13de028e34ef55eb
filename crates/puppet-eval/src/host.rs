//! What a Puppet server does on its own host during a compile, allowed only on request:
//! `generate()` running a command ([`Settings::allow_exec`](crate::Settings::allow_exec))
//! and functions reading files by absolute path outside the module path and environment
//! ([`Settings::allow_host_files`](crate::Settings::allow_host_files)). Both are off by
//! default, and then a compile reads only its environment's source and runs nothing.
//!
//! This is the one place in the workspace that runs a command. It does what Puppet 7.23's
//! `generate` does (lib/puppet/parser/functions/generate.rb with
//! `Puppet::Util::Execution.execute`): the command must be an absolute path of
//! alphanumerics, `_`, `-`, `/`, `.` and `+`, without `..`; it runs in the command's
//! directory, with the arguments as given (no shell), stdin from `/dev/null`, the C
//! locale, stdout and stderr combined into one output; a non-zero exit status is an error
//! naming the command line, the status and the stripped output. Puppet's texts are kept.
//! Not here: deciding whether it is allowed (the caller checks the settings).

use std::path::Path;
use std::process::{Command, Stdio};

/// Puppet's checks of a generator's path, in its order, with its messages.
pub(crate) fn check_generator(command: &str) -> Result<(), String> {
    if !command.starts_with('/') {
        return Err("Generators must be fully qualified".into());
    }
    let valid = command
        .chars()
        .all(|ch| ch.is_alphanumeric() || ch == '_' || "-/.+".contains(ch));
    if !valid {
        return Err(
            "Generators can only contain alphanumerics, file separators, and dashes".into(),
        );
    }
    if command.contains("..") {
        return Err("Can not use generators with '..' in them.".into());
    }
    Ok(())
}

/// Runs `args[0]` with the other arguments in the command's directory and returns its
/// output (stdout and stderr combined, as written), or Puppet's error text. `args[0]` has
/// passed [`check_generator`].
pub(crate) fn run_generator(args: &[String]) -> Result<String, String> {
    let Some(command) = args.first() else {
        return Err("generate(): Wrong number of arguments given (0 for minimum 1)".into());
    };
    let dir = Path::new(command)
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("/"));
    // Ruby's `Dir.chdir` fails first when the directory is not there.
    let not_dir = std::io::Error::from(std::io::ErrorKind::NotADirectory);
    match std::fs::metadata(dir) {
        Ok(md) if md.is_dir() => {}
        Ok(_) => {
            return Err(format!(
                "{} @ dir_chdir - {}",
                ruby_errno_text(&not_dir),
                dir.display()
            ))
        }
        Err(e) => {
            return Err(format!(
                "{} @ dir_chdir - {}",
                ruby_errno_text(&e),
                dir.display()
            ))
        }
    }
    // One file for stdout and stderr (as Puppet does: its output goes to a temp file), so
    // that the output keeps the order it was written in.
    let (out_path, out_file) = output_file()?;
    let result = run_into(command, args, dir, &out_file);
    let output = std::fs::read(&out_path).unwrap_or_default();
    let _ = std::fs::remove_file(&out_path);
    let output = String::from_utf8_lossy(&output).into_owned();
    let line = args.join(" ");
    let failed = |status: &str| {
        format!(
            "Failed to execute generator {command}: Execution of '{line}' returned {status}: {}",
            output.trim()
        )
    };
    match result {
        Ok(Some(0)) => Ok(output),
        Ok(Some(code)) => Err(failed(&code.to_string())),
        // Killed by a signal: Ruby's exit status is nil, printed as nothing.
        Ok(None) => Err(failed("")),
        // Puppet forks, and the child that cannot exec the command exits with 1 and prints
        // nothing.
        Err(_) => Err(failed("1")),
    }
}

/// Spawns the command with stdout and stderr into `out`; its exit code (`None`: a signal).
fn run_into(
    command: &str,
    args: &[String],
    dir: &Path,
    out: &std::fs::File,
) -> std::io::Result<Option<i32>> {
    let mut cmd = Command::new(command);
    cmd.args(&args[1..])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out.try_clone()?);
    // Puppet's execute overrides the locale of the child.
    for var in ["LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE"] {
        cmd.env(var, "C");
    }
    Ok(cmd.status()?.code())
}

/// A new empty file of the temp directory, created for this call only.
fn output_file() -> Result<(std::path::PathBuf, std::fs::File), String> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut last = String::new();
    for _ in 0..16 {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let path = std::env::temp_dir().join(format!(
            "puppet-generate-{}-{n}-{nanos}",
            std::process::id()
        ));
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => return Ok((path, f)),
            Err(e) => last = e.to_string(),
        }
    }
    Err(format!(
        "cannot create a file for the generator's output: {last}"
    ))
}
/// Ruby's `Errno` message for an IO error (`No such file or directory`).
fn ruby_errno_text(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".into(),
        std::io::ErrorKind::NotADirectory => "Not a directory".into(),
        _ => e.to_string(),
    }
}

/// The bytes of a file of this host by absolute path: `Ok(None)` when there is none.
pub(crate) fn read_file(path: &str) -> Result<Option<Vec<u8>>, String> {
    if !path.starts_with('/') {
        return Err(format!("'{path}' is not an absolute path"));
    }
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{path}: {}", ruby_errno_text(&e))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn checks_in_puppets_order() {
        assert_eq!(
            check_generator("echo").unwrap_err(),
            "Generators must be fully qualified"
        );
        assert!(check_generator("/bin/ec ho")
            .unwrap_err()
            .starts_with("Generators can only"));
        assert!(check_generator("/bin/../bin/echo")
            .unwrap_err()
            .contains("'..'"));
        assert!(check_generator("/usr/bin/g++").is_ok());
    }

    #[test]
    fn output_and_failures() {
        assert_eq!(
            run_generator(&strings(&["/bin/echo", "a", "b"])).unwrap(),
            "a b\n"
        );
        assert_eq!(
            run_generator(&strings(&["/bin/sh", "-c", "echo out; echo err >&2; exit 3"])).unwrap_err(),
            "Failed to execute generator /bin/sh: Execution of '/bin/sh -c echo out; echo err >&2; exit 3' returned 3: out\nerr"
        );
        assert_eq!(
            run_generator(&strings(&["/nonexistent-dir/cmd"])).unwrap_err(),
            "No such file or directory @ dir_chdir - /nonexistent-dir"
        );
        assert_eq!(
            run_generator(&strings(&["/bin/no-such-command"])).unwrap_err(),
            "Failed to execute generator /bin/no-such-command: Execution of '/bin/no-such-command' returned 1: "
        );
    }
}
