//! `to_json` and `to_json_pretty` of a Float JSON cannot hold (Hiera's `.inf` and `.nan`
//! reach Puppet as such Floats): json 2.6's GeneratorError text, as Puppet 7.23 reports it
//! (`lookup('x')` of `x: .inf` through stdlib's `to_json`: "1000: Infinity not allowed in
//! JSON"; of `[.nan]` through `to_json_pretty`: "1003: NaN not allowed in JSON").

use puppet_functions::NullContext;
use puppet_types::Value;

fn call(name: &str, arg: Value) -> String {
    let native = puppet_stdlib::native("stdlib", name).expect("a native");
    let f = puppet_stdlib::native_function(&native).expect("a function");
    match f.call(&mut NullContext::default(), vec![arg], None) {
        Ok(v) => format!("ok {v}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn floats_json_cannot_hold_fail_as_ruby_json_does() {
    assert_eq!(
        call("to_json", Value::Float(f64::INFINITY)),
        "1000: Infinity not allowed in JSON"
    );
    assert_eq!(
        call(
            "to_json",
            Value::array(vec![Value::Float(f64::NEG_INFINITY)])
        ),
        "1000: -Infinity not allowed in JSON"
    );
    assert_eq!(
        call("to_json_pretty", Value::array(vec![Value::Float(f64::NAN)])),
        "1003: NaN not allowed in JSON"
    );
}
