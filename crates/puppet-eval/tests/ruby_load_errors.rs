//! A module's Ruby function whose file puppet-ruby cannot load fails every call with the
//! load error, naming the file, line and what is wrong (a syntax error, as Puppet reports
//! Ruby's `SyntaxError`, alone; a construct this interpreter
//! does not have; an exception raised while the file runs), never with a generic message.
//! Functions of the same module that load are not affected.

use puppet_eval::{Session, Settings};
use puppet_loader::MemoryProvider;

const GOOD: &str =
    "Puppet::Functions.create_function(:'m::good') do\n  def good()\n    'fine'\n  end\nend\n";

fn compile(file: &str, text: &str, call: &str) -> Result<String, (String, String)> {
    let files = MemoryProvider::new()
        .with_file("/env/modules/m/manifests/init.pp", "class m {}")
        .with_file("/env/modules/m/lib/puppet/functions/m/good.rb", GOOD)
        .with_file(
            format!("/env/modules/m/lib/puppet/functions/m/{file}"),
            text,
        );
    let env = Session::new()
        .files(files)
        .modulepath(["/env/modules"])
        .code(format!("notice({call})"))
        .load()
        .expect("loads");
    let out = env.compile(&Settings::agent("node.example.com", Default::default()));
    match out.catalog {
        Ok(_) => Ok(out
            .logs
            .last()
            .map(|l| l.message.clone())
            .unwrap_or_default()),
        Err(e) => Err((e.code.to_string(), e.puppet_message())),
    }
}

#[test]
fn a_syntax_error_names_the_file_and_line() {
    let text =
        "Puppet::Functions.create_function(:'m::bad') do\n  def bad()\n    x = (1 +\n  end\nend\n";
    let (code, message) = compile("bad.rb", text, "m::bad()").unwrap_err();
    assert!(
        message.starts_with("/env/modules/m/lib/puppet/functions/m/bad.rb:4:")
            && message.contains("syntax error, unexpected `end'"),
        "{code}: {message}"
    );
    assert!(
        !message.contains("Error while evaluating a Function Call"),
        "{message}"
    );
}

#[test]
fn an_unsupported_construct_names_the_file_line_and_construct() {
    let text =
        "Puppet::Functions.create_function(:'m::cmd') do\n  def cmd()\n    `uname`\n  end\nend\n";
    // A backtick command is refused when it runs, not when the file loads.
    let (_, message) = compile("cmd.rb", text, "m::cmd()").unwrap_err();
    assert!(
        message.contains("/env/modules/m/lib/puppet/functions/m/cmd.rb:3:"),
        "{message}"
    );
    assert!(message.contains("never runs commands"), "{message}");
    let text = "BEGIN { x = 1 }\nPuppet::Functions.create_function(:'m::odd') do\n  def odd()\n    1\n  end\nend\n";
    let (code, message) = compile("odd.rb", text, "m::odd()").unwrap_err();
    // `BEGIN` blocks are valid Ruby this interpreter does not run.
    assert!(
        message.contains("/env/modules/m/lib/puppet/functions/m/odd.rb:1:")
            && message.contains("unsupported Ruby construct"),
        "{code}: {message}"
    );
}

#[test]
fn an_exception_while_the_file_runs_is_the_calls_error() {
    let text = "raise ArgumentError, 'broken helper'\nPuppet::Functions.create_function(:'m::boom') do\n  def boom()\n    1\n  end\nend\n";
    let (_, message) = compile("boom.rb", text, "m::boom()").unwrap_err();
    assert!(
        message.contains("/env/modules/m/lib/puppet/functions/m/boom.rb:1:")
            && message.contains("ArgumentError: broken helper"),
        "{message}"
    );
}

#[test]
fn the_modules_other_functions_still_work() {
    let text = "Puppet::Functions.create_function(:'m::bad') do\n  def bad(\nend\n";
    let out = compile("bad.rb", text, "m::good()").expect("compiles");
    assert!(out.ends_with("fine"), "{out}");
}
