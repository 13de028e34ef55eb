//! Shared test helpers: a mock call context, literal values from text, closure blocks.

#![allow(dead_code)]

use puppet_functions::{
    builtins, parse_value, Block, BlockSignature, CallContext, CallError, FnBlock, LogLevel,
    Registry,
};
use puppet_types::{Type, Value};
use std::collections::BTreeMap;

/// A mock evaluator context: calls blocks directly, functions through a registry, knows a few
/// variables and records logs.
pub struct Mock<'r> {
    pub registry: &'r Registry,
    pub vars: BTreeMap<String, Value>,
    pub logs: Vec<String>,
}

impl<'r> Mock<'r> {
    pub fn new(registry: &'r Registry) -> Self {
        Mock {
            registry,
            vars: BTreeMap::new(),
            logs: Vec::new(),
        }
    }
}

impl CallContext for Mock<'_> {
    fn call_block(&mut self, block: &dyn Block, args: Vec<Value>) -> Result<Value, CallError> {
        block.call(self, args)
    }
    fn call_function(
        &mut self,
        name: &str,
        args: Vec<Value>,
        block: Option<&dyn Block>,
    ) -> Result<Value, CallError> {
        let reg = self.registry;
        reg.call(self, name, args, block)
    }
    fn variable(&self, name: &str) -> Option<Value> {
        self.vars.get(name).cloned()
    }
    fn log(&mut self, level: LogLevel, message: &str) {
        self.logs.push(format!("{}: {message}", level.name()));
    }
    fn type_alias(&self, name: &str) -> Option<Type> {
        (name == "MyInt").then(|| Type::integer(Some(0), None))
    }
}

/// A literal value from Puppet-like text.
pub fn v(text: &str) -> Value {
    match parse_value(text, &|_| None) {
        Ok(v) => v,
        Err(e) => panic!("bad test literal {text}: {e}"),
    }
}

/// Literal arguments separated at the top level by `;` (so commas stay inside values).
pub fn args(text: &str) -> Vec<Value> {
    if text.trim().is_empty() {
        return vec![];
    }
    text.split(';').map(v).collect()
}

/// Calls a built-in with arguments and an optional block, returning the `%p` text of the
/// value or the error message.
pub fn call(name: &str, a: Vec<Value>, block: Option<&dyn Block>) -> Result<String, String> {
    let reg = builtins::registry();
    let mut ctx = Mock::new(reg);
    reg.call(&mut ctx, name, a, block)
        .map(|v| v.to_string())
        .map_err(|e| e.to_string())
}

/// A block of `n` untyped parameters.
pub fn block<F>(
    n: usize,
    f: F,
) -> FnBlock<impl Fn(&mut dyn CallContext, Vec<Value>) -> Result<Value, CallError> + Send + Sync>
where
    F: Fn(&[Value]) -> Value + Send + Sync,
{
    FnBlock::new(n, move |_ctx: &mut dyn CallContext, a: Vec<Value>| {
        Ok(f(&a))
    })
}

/// A block that takes any number of arguments (`|*$x|`) and returns them as an array.
pub fn rest_block() -> impl Block {
    FnBlock::with_signature(
        BlockSignature {
            types: vec![Type::Any],
            min: 0,
            max: None,
        },
        |_ctx: &mut dyn CallContext, a: Vec<Value>| Ok(Value::array(a)),
    )
}

/// An integer from a value (panics in tests when it is not one).
pub fn int(v: &Value) -> i64 {
    match v {
        Value::Integer(i) => *i,
        other => panic!("not an integer: {other}"),
    }
}
