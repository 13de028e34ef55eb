//! When a module function's native implementation stands in for its Ruby: only for the file
//! it was checked against. Another version of the file runs its own Ruby; a module without
//! the file has no such function; and a 3.x function of a shadowed module directory is
//! found last, as Puppet's 3.x autoloader (which searches every `MODULEPATH_DIR/*/lib`)
//! finds it.

use puppet_eval::{Session, Settings};
use puppet_loader::MemoryProvider;

/// Compiles `code` over the in-memory module path `/a:/b` and returns the notices, or the
/// error's message.
fn notices(files: MemoryProvider, code: &str) -> Result<Vec<String>, String> {
    let env = Session::new()
        .files(files)
        .modulepath(["/a", "/b"])
        .code(code)
        .load()
        .map_err(|d| format!("{d:?}"))?;
    let out = env.compile(&Settings::default());
    match out.catalog {
        Ok(_) => Ok(out
            .logs
            .iter()
            .filter(|l| l.level == puppet_functions::LogLevel::Notice)
            .map(|l| l.message.clone())
            .collect()),
        Err(e) => Err(e.puppet_message()),
    }
}

const OTHER_PICK: &str = "module Puppet::Parser::Functions
  newfunction(:pick, type: :rvalue) do |args|
    'pick of another version'
  end
end
";

#[test]
fn another_version_of_a_file_runs_its_own_ruby() {
    let files = MemoryProvider::new()
        .with_file("/a/stdlib/lib/puppet/parser/functions/pick.rb", OTHER_PICK);
    assert_eq!(
        notices(files, "notice(pick(undef, 1))").unwrap(),
        ["pick of another version"]
    );
}

#[test]
fn a_module_without_the_file_has_no_such_function() {
    let files = MemoryProvider::new().with_file("/a/stdlib/manifests/init.pp", "class stdlib {}");
    let err = notices(files, "notice(pick(undef, 1))").unwrap_err();
    assert!(err.contains("Unknown function: 'pick'"), "{err}");
}

#[test]
fn a_shadowed_module_directory_gives_its_3x_functions_last() {
    let files = MemoryProvider::new()
        .with_file("/a/stdlib/manifests/init.pp", "class stdlib {}")
        .with_file("/b/stdlib/lib/puppet/parser/functions/pick.rb", OTHER_PICK)
        .with_file(
            "/b/stdlib/lib/puppet/functions/four.rb",
            "Puppet::Functions.create_function(:four) do\n  def four\n    4\n  end\nend\n",
        );
    assert_eq!(
        notices(files.clone(), "notice(pick(undef, 1))").unwrap(),
        ["pick of another version"]
    );
    // 4.x functions come from the environment's modules only.
    let err = notices(files, "notice(four())").unwrap_err();
    assert!(err.contains("Unknown function: 'four'"), "{err}");
}

#[test]
fn the_checked_file_gets_the_native() {
    // The corpus file the native was checked against (when the corpus is installed): the
    // native answers, as the Ruby would.
    let corpus = std::path::Path::new("/usr/share/puppet/modules/stdlib");
    let Ok(text) = std::fs::read_to_string(corpus.join("lib/puppet/parser/functions/pick.rb"))
    else {
        eprintln!("no corpus stdlib: skipped");
        return;
    };
    assert!(puppet_stdlib::verified_source(
        "stdlib",
        "pick",
        text.as_bytes()
    ));
    let files =
        MemoryProvider::new().with_file("/a/stdlib/lib/puppet/parser/functions/pick.rb", text);
    assert_eq!(notices(files, "notice(pick(undef, 1))").unwrap(), ["1"]);
}
