//! Puppet's rich data serialization (`Puppet::Pops::Serialization::ToDataConverter` with
//! `rich_data: true`) of Puppet values: the one implementation, used by the interpreter's
//! `ToDataConverter.convert` and puppet-stdlib's `to_python`/`to_ruby`. Only the values
//! modules meet are covered; the others are an error, never a guess.

use puppet_types::Value;

/// `Puppet::Pops::Serialization::ToDataConverter.convert(v, rich_data: true)`: Data as it
/// is, `default`, regexps, hashes with non-String keys and the core types without
/// parameters as `{"__ptype" => ..., "__pvalue" => ...}`; `Err` is the first value it
/// cannot convert (a parameterized type, a resource reference, a Sensitive, ...).
pub fn to_rich_data(v: &Value) -> Result<Value, Value> {
    let ptype = |t: &str, pv: Option<Value>| {
        let mut pairs = vec![(Value::string("__ptype"), Value::string(t))];
        if let Some(x) = pv {
            pairs.push((Value::string("__pvalue"), x));
        }
        Value::hash(pairs)
    };
    Ok(match v {
        Value::Undef
        | Value::Boolean(_)
        | Value::Integer(_)
        | Value::Float(_)
        | Value::String(_) => v.clone(),
        Value::Default => ptype("Default", None),
        Value::Regexp(r) => ptype("Regexp", Some(Value::string(r.source()))),
        Value::Array(a) => Value::array(a.iter().map(to_rich_data).collect::<Result<Vec<_>, _>>()?),
        Value::Hash(h) => {
            let plain = h.iter().all(|(k, _)| {
                matches!(k, Value::String(s) if s.as_str() != "__ptype" && s.as_str() != "__pvalue")
            });
            if plain {
                let mut pairs = Vec::new();
                for (k, x) in h.iter() {
                    pairs.push((k.clone(), to_rich_data(x)?));
                }
                Value::hash(pairs)
            } else {
                let mut flat = Vec::new();
                for (k, x) in h.iter() {
                    flat.push(to_rich_data(k)?);
                    flat.push(to_rich_data(x)?);
                }
                ptype("Hash", Some(Value::array(flat)))
            }
        }
        Value::Type(t) if CORE_TYPES.contains(&t.to_string().as_str()) => {
            ptype(&format!("Pcore::{t}Type"), None)
        }
        other => return Err(other.clone()),
    })
}

/// The core types without parameters, whose rich data is `{"__ptype" => "Pcore::<T>Type"}`.
const CORE_TYPES: &[&str] = &[
    "Any",
    "Array",
    "Binary",
    "Boolean",
    "CatalogEntry",
    "Class",
    "Collection",
    "Data",
    "Default",
    "Enum",
    "Float",
    "Hash",
    "Integer",
    "Iterable",
    "Iterator",
    "Numeric",
    "Optional",
    "Pattern",
    "Regexp",
    "Resource",
    "RichData",
    "Runtime",
    "Scalar",
    "ScalarData",
    "SemVer",
    "SemVerRange",
    "Sensitive",
    "String",
    "Timespan",
    "Timestamp",
    "Tuple",
    "Type",
    "Undef",
    "NotUndef",
    "Variant",
];
