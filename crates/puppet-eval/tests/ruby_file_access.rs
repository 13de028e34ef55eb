//! What a module's Ruby may read during a compile: files of the environment's modules by
//! any spelling of their path (`File.join(__dir__, '..', 'files')`: `.` and `..` resolved
//! as the file system resolves them), and nothing outside them, whatever the spelling.

use puppet_eval::{Session, Settings};
use puppet_loader::MemoryProvider;

const READER: &str = r#"Puppet::Functions.create_function(:'m::read') do
  def read(path)
    File.exist?(path) ? File.read(path).strip : 'absent'
  rescue Errno::ENOENT => e
    e.class.to_s
  end
end
"#;

fn read(path_expr: &str) -> String {
    let files = MemoryProvider::new()
        .with_file("/env/modules/m/manifests/init.pp", "class m {}")
        .with_file("/env/modules/m/files/data.txt", "module data\n")
        .with_file("/env/secret.txt", "outside\n")
        .with_file("/env/modules/m/lib/puppet/functions/m/read.rb", READER);
    let env = Session::new()
        .files(files)
        .modulepath(["/env/modules"])
        .code(format!("notice(m::read({path_expr}))"))
        .load()
        .expect("loads");
    let out = env.compile(&Settings::agent("node.example.com", Default::default()));
    assert!(out.catalog.is_ok(), "{:?}", out.catalog.err());
    out.logs
        .last()
        .map(|l| l.message.clone())
        .unwrap_or_default()
}

#[test]
fn dot_segments_inside_a_module_are_resolved() {
    let lib = "/env/modules/m/lib/puppet/functions/m";
    assert_eq!(
        read(&format!("'{lib}/../../../../files/data.txt'")),
        "module data"
    );
    assert_eq!(
        read("'/env/modules/m/./files/../files/data.txt'"),
        "module data"
    );
}

#[test]
fn dot_segments_never_lead_outside_the_modules() {
    assert_eq!(read("'/env/modules/m/../../secret.txt'"), "absent");
    assert_eq!(read("'/env/modules/../../../../env/secret.txt'"), "absent");
    assert_eq!(read("'/env/secret.txt'"), "absent");
}
