//! `new` and `type` on Object types (Pcore `Error` and `Deferred`), through the registry.
//! Expected texts are Puppet 7.23's (eval.jsonl `error:97`, `deferred:26`, `deferred:47`).

mod common;

use common::{args, call};

fn ok(name: &str, a: &str) -> String {
    match call(name, args(a), None) {
        Ok(s) => s,
        Err(e) => panic!("{name}({a}) failed: {e}"),
    }
}

#[test]
fn new_creates_pcore_objects() {
    assert_eq!(
        ok("new", "Error;'bad things happened';'puppet/error';{'detail' => 'val'};'OOPS'"),
        "Error({'msg' => 'bad things happened', 'kind' => 'puppet/error', 'details' => {'detail' => 'val'}, 'issue_code' => 'OOPS'})"
    );
    assert_eq!(
        ok(
            "new",
            "Deferred;{'name' => 'michelangelo', 'arguments' => [1, 2, 3]}"
        ),
        "Deferred({'name' => 'michelangelo', 'arguments' => [1, 2, 3]})"
    );
    let err = call("new", args("Error;1"), None).unwrap_err();
    assert!(err.contains("new_Error"), "{err}");
}

#[test]
fn type_of_objects() {
    let e = call("new", args("Error;'m';'puppet/error';{};'OOPS'"), None).unwrap();
    assert_eq!(
        e,
        "Error({'msg' => 'm', 'kind' => 'puppet/error', 'details' => {}, 'issue_code' => 'OOPS'})"
    );
    let d = puppet_types::convert::new_value(
        &puppet_types::resolve_type_name("Deferred"),
        &[puppet_types::Value::string("f")],
    )
    .unwrap();
    assert_eq!(
        call("type", vec![d], None).unwrap(),
        "Object[{name => 'Deferred', attributes => {'name' => Pattern[/\\A[$]?[a-z][a-z0-9_]*(?:::[a-z][a-z0-9_]*)*\\z/], 'arguments' => {type => Optional[Array], value => undef}}}]"
    );
}
