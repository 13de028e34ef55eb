//! Merge strategies of `lookup()`: `first`, `unique`, `hash` and `deep` (with the deep_merge
//! gem's options `knockout_prefix`, `sort_merged_arrays`, `merge_hash_arrays`), with Puppet's
//! exact ordering rules: `hash` keeps the key order of the lower-priority value and appends new
//! keys, `unique` flattens and de-duplicates in priority order, `deep` recurses into hashes
//! (a key whose lower-priority value is `undef`/`false` is replaced) and unions arrays.

use crate::error::{codes, HieraError};
use puppet_types::types::{StringType, StructElement};
use puppet_types::value::ValueMap;
use puppet_types::{Regexp, Type, Value};
use std::cmp::Ordering;
use std::sync::Arc;

/// Options of the `deep` strategy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeepOptions {
    /// Which of Puppet's deep strategies.
    pub variant: DeepVariant,
    /// Values prefixed with this string remove the unprefixed value (`--x`).
    pub knockout_prefix: Option<String>,
    /// Sort arrays after merging them.
    pub sort_merged_arrays: bool,
    /// Merge arrays of hashes element by element.
    pub merge_hash_arrays: bool,
}

/// Puppet's three deep merge strategies: the same merge, with different option checks and
/// priority.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DeepVariant {
    /// `deep`: its options checked (`knockout_prefix`, `merge_hash_arrays`, ...), higher
    /// priority winning.
    #[default]
    Deep,
    /// `unconstrained_deep`: any options (Hiera 3's `merge_behavior: deeper`).
    Unconstrained,
    /// `reverse_deep`: any options, lower priority winning (Hiera 3's `merge_behavior:
    /// deep`).
    Reverse,
}

/// How values found at several places are combined.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum MergeStrategy {
    /// The first value found (Puppet's `first`, also the default).
    #[default]
    First,
    /// Arrays and scalars flattened into one array without duplicates.
    Unique,
    /// Hashes merged at the top level, higher priority winning.
    Hash,
    /// Hashes merged recursively, arrays unioned.
    Deep(DeepOptions),
}

impl MergeStrategy {
    /// Parses the `merge` argument / lookup option: a strategy name or a hash with
    /// `strategy` and (for `deep`) options.
    ///
    /// ```
    /// use puppet_hiera::{MergeStrategy, DeepOptions};
    /// use puppet_types::Value;
    /// assert_eq!(MergeStrategy::from_value(&Value::string("unique")).unwrap(), MergeStrategy::Unique);
    /// let deep = Value::hash([
    ///     (Value::string("strategy"), Value::string("deep")),
    ///     (Value::string("knockout_prefix"), Value::string("--")),
    /// ]);
    /// assert_eq!(
    ///     MergeStrategy::from_value(&deep).unwrap(),
    ///     MergeStrategy::Deep(DeepOptions { knockout_prefix: Some("--".into()), ..Default::default() })
    /// );
    /// assert_eq!(MergeStrategy::from_value(&Value::string("x")).unwrap_err().to_string(),
    ///     "Unknown merge strategy: 'x'");
    /// ```
    pub fn from_value(v: &Value) -> Result<MergeStrategy, HieraError> {
        match v {
            Value::String(s) => Self::from_name(s),
            Value::Hash(h) => {
                let Some(name) = h.get(&Value::string("strategy")) else {
                    return Err(HieraError::new(
                        codes::MERGE_ARGUMENT,
                        "The hash given as 'merge' must contain the name of a strategy in string form for the key 'strategy'",
                    ));
                };
                let Value::String(name) = name else {
                    return Err(HieraError::new(
                        codes::MERGE_ARGUMENT,
                        format!("Unknown merge strategy: '{}'", name.to_plain_string()),
                    ));
                };
                let base = Self::from_name(name)?;
                // Puppet checks the whole hash (strategy included) against the strategy's
                // options type when it holds more than the strategy.
                if h.len() > 1 {
                    let t = options_type(&base);
                    if !puppet_types::is_instance(&t, v) {
                        let actual = puppet_types::infer_set(v);
                        return Err(HieraError::new(
                            codes::MERGE,
                            puppet_types::describe_mismatch(
                                "The merge options has wrong type,",
                                &t,
                                &actual,
                            ),
                        ));
                    }
                }
                let mut opts = DeepOptions::default();
                for (k, val) in h.iter() {
                    match (k.to_plain_string().as_str(), val) {
                        ("knockout_prefix", Value::String(p)) => {
                            opts.knockout_prefix = Some(p.to_string())
                        }
                        ("sort_merged_arrays", Value::Boolean(b)) => opts.sort_merged_arrays = *b,
                        ("merge_hash_arrays", Value::Boolean(b)) => opts.merge_hash_arrays = *b,
                        _ => {}
                    }
                }
                if opts.knockout_prefix.as_deref() == Some("") {
                    return Err(HieraError::new(
                        codes::MERGE_ARGUMENT,
                        "knockout_prefix cannot be an empty string in deep_merge!",
                    ));
                }
                Ok(match base {
                    MergeStrategy::Deep(d) => MergeStrategy::Deep(DeepOptions {
                        variant: d.variant,
                        ..opts
                    }),
                    other => other,
                })
            }
            Value::Undef => Ok(MergeStrategy::First),
            other => Err(HieraError::new(
                codes::MERGE_ARGUMENT,
                format!("Unknown merge strategy: '{}'", other.to_plain_string()),
            )),
        }
    }

    /// A strategy by name (`first`, `unique`, `hash`, `deep`, `unconstrained_deep`,
    /// `reverse_deep`; `default` is `first`).
    pub fn from_name(name: &str) -> Result<MergeStrategy, HieraError> {
        let deep = |variant| {
            Ok(MergeStrategy::Deep(DeepOptions {
                variant,
                ..DeepOptions::default()
            }))
        };
        match name {
            "first" | "default" => Ok(MergeStrategy::First),
            "unique" => Ok(MergeStrategy::Unique),
            "hash" => Ok(MergeStrategy::Hash),
            "deep" => deep(DeepVariant::Deep),
            "unconstrained_deep" => deep(DeepVariant::Unconstrained),
            "reverse_deep" => deep(DeepVariant::Reverse),
            _ => Err(HieraError::new(
                codes::MERGE_ARGUMENT,
                format!("Unknown merge strategy: '{name}'"),
            )),
        }
    }

    /// The strategy's name.
    pub fn name(&self) -> &'static str {
        match self {
            MergeStrategy::First => "first",
            MergeStrategy::Unique => "unique",
            MergeStrategy::Hash => "hash",
            MergeStrategy::Deep(o) => match o.variant {
                DeepVariant::Deep => "deep",
                DeepVariant::Unconstrained => "unconstrained_deep",
                DeepVariant::Reverse => "reverse_deep",
            },
        }
    }

    /// True for `first`.
    pub fn is_first(&self) -> bool {
        matches!(self, MergeStrategy::First)
    }

    /// The value when it was found at only one of several places.
    pub fn merge_single(&self, v: Value) -> Value {
        match (self, &v) {
            (MergeStrategy::Unique, Value::Array(items)) => Value::Array(Arc::new(uniq(items))),
            _ => v,
        }
    }

    /// The first of several found values, before merging others into it.
    pub fn convert_first(&self, v: Value) -> Value {
        match self {
            MergeStrategy::Unique => Value::Array(Arc::new(flatten_or_wrap(&v))),
            _ => v,
        }
    }

    /// Merges `lower` (lower priority) into `higher`.
    ///
    /// ```
    /// use puppet_hiera::MergeStrategy;
    /// use puppet_types::Value;
    /// let a = Value::hash([(Value::string("x"), Value::from(1))]);
    /// let b = Value::hash([(Value::string("y"), Value::from(2)), (Value::string("x"), Value::from(3))]);
    /// assert_eq!(MergeStrategy::Hash.merge(&a, &b).unwrap().to_string(), "{'y' => 2, 'x' => 1}");
    /// ```
    pub fn merge(&self, higher: &Value, lower: &Value) -> Result<Value, HieraError> {
        match self {
            MergeStrategy::First => Ok(higher.clone()),
            MergeStrategy::Unique => {
                check_unique("The first element of the merge", higher)?;
                check_unique("The second element of the merge", lower)?;
                let mut all = flatten_or_wrap(higher);
                all.extend(flatten_or_wrap(lower));
                Ok(Value::Array(Arc::new(uniq(&all))))
            }
            MergeStrategy::Hash => {
                let h = check_hash("The first element of the merge", higher)?;
                let l = check_hash("The second element of the merge", lower)?;
                let mut out: ValueMap = (**l).clone();
                for (k, v) in h.iter() {
                    out.insert(k.clone(), v.clone());
                }
                Ok(Value::Hash(Arc::new(out)))
            }
            MergeStrategy::Deep(opts) if opts.variant == DeepVariant::Reverse => {
                deep_merge(lower.clone(), higher.clone(), opts)
            }
            MergeStrategy::Deep(opts) => deep_merge(higher.clone(), lower.clone(), opts),
        }
    }
}

fn type_name(v: &Value) -> String {
    match v {
        Value::Undef => "Undef".into(),
        Value::Boolean(_) => "Boolean".into(),
        Value::Integer(_) => "Integer".into(),
        Value::Float(_) => "Float".into(),
        Value::String(_) => "String".into(),
        Value::Array(_) => "Tuple".into(),
        Value::Hash(_) => "Struct".into(),
        other => puppet_types::infer(other).to_string(),
    }
}

fn check_hash<'a>(what: &str, v: &'a Value) -> Result<&'a Arc<ValueMap>, HieraError> {
    match v {
        Value::Hash(h) => Ok(h),
        other => Err(HieraError::new(
            codes::MERGE_TYPE,
            format!(
                "{what} has wrong type, expects a Hash value, got {}",
                type_name(other)
            ),
        )),
    }
}

/// Puppet's `Variant[Scalar, Array[Data]]` check of a unique merge's operands: a hash and
/// an undef (a YAML `~` met after a found value) are refused.
fn check_unique(what: &str, v: &Value) -> Result<(), HieraError> {
    let got = match v {
        Value::Hash(_) => "Struct",
        Value::Undef => "Undef",
        Value::Default => "Default",
        _ => return Ok(()),
    };
    Err(HieraError::new(
        codes::MERGE_TYPE,
        format!("{what} has wrong type, expects a value of type Scalar or Array, got {got}"),
    ))
}

fn flatten_into(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Array(items) => items.iter().for_each(|i| flatten_into(i, out)),
        other => out.push(other.clone()),
    }
}

fn flatten_or_wrap(v: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    flatten_into(v, &mut out);
    out
}

fn uniq(items: &[Value]) -> Vec<Value> {
    let mut seen = indexmap::IndexSet::new();
    for i in items {
        seen.insert(i.clone());
    }
    seen.into_iter().collect()
}

fn truthy(v: &Value) -> bool {
    !matches!(v, Value::Undef | Value::Boolean(false))
}

fn starts_with_prefix(s: &str, prefix: &str) -> bool {
    // Ruby's /^prefix/ matches at the start of any line.
    s.starts_with(prefix) || s.split('\n').skip(1).any(|l| l.starts_with(prefix))
}

fn strip_prefix_lines(s: &str, prefix: &str) -> String {
    s.split('\n')
        .map(|l| l.strip_prefix(prefix).unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

fn overwrite_unmergeables(source: Value, opts: &DeepOptions) -> Value {
    let Some(prefix) = &opts.knockout_prefix else {
        return source;
    };
    match source {
        Value::String(s) => {
            let stripped = strip_prefix_lines(&s, prefix);
            if stripped == s.as_str() {
                Value::String(s)
            } else {
                Value::string("")
            }
        }
        Value::Array(items) => Value::Array(Arc::new(
            items
                .iter()
                .filter(|i| !matches!(i, Value::String(s) if starts_with_prefix(s, prefix)))
                .cloned()
                .collect(),
        )),
        other => other,
    }
}

/// Ruby's `<=>` between two merged array elements, `None` where Ruby has none (a string and
/// a hash, `true` and `false`...).
fn ruby_cmp(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Integer(x), Value::Integer(y)) => Some(x.cmp(y)),
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y),
        (Value::Integer(x), Value::Float(y)) => (*x as f64).partial_cmp(y),
        (Value::Float(x), Value::Integer(y)) => x.partial_cmp(&(*y as f64)),
        (Value::String(x), Value::String(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (Value::Array(x), Value::Array(y)) => {
            for (p, q) in x.iter().zip(y.iter()) {
                match ruby_cmp(p, q)? {
                    Ordering::Equal => {}
                    o => return Some(o),
                }
            }
            Some(x.len().cmp(&y.len()))
        }
        // Object#<=>: 0 for equal objects, nil otherwise.
        _ => (a == b).then_some(Ordering::Equal),
    }
}

/// How Ruby names a value's side in `comparison of X with Y failed`: the class of the
/// receiver; the argument's inspect for nil, true and false, else its class.
fn ruby_class(v: &Value) -> &'static str {
    match v {
        Value::Undef => "NilClass",
        Value::Boolean(true) => "TrueClass",
        Value::Boolean(false) => "FalseClass",
        Value::Integer(_) => "Integer",
        Value::Float(_) => "Float",
        Value::String(_) => "String",
        Value::Array(_) => "Array",
        Value::Hash(_) => "Hash",
        _ => "Object",
    }
}

fn ruby_argument(v: &Value) -> &'static str {
    match v {
        Value::Undef => "nil",
        Value::Boolean(true) => "true",
        Value::Boolean(false) => "false",
        other => ruby_class(other),
    }
}

/// `sort_merged_arrays`: Ruby's `sort!`, which fails with ArgumentError when two elements
/// do not compare. The pair named is the first one that does not compare, adjacent pairs
/// first (Ruby's sort names the pair its algorithm met first; for two or three elements
/// that is an adjacent pair). When every adjacent pair compares, the elements are all
/// numbers (no NaN), all strings, all arrays or all equal: only arrays (compared element by
/// element) can still hold a pair that does not compare, so only they are checked pair by
/// pair, and the sort then always sees a total order.
fn sort_values(items: &mut [Value]) -> Result<(), HieraError> {
    let failed = |a: &Value, b: &Value| {
        HieraError::new(
            codes::MERGE_ARGUMENT,
            format!(
                "comparison of {} with {} failed",
                ruby_class(a),
                ruby_argument(b)
            ),
        )
    };
    for w in items.windows(2) {
        if ruby_cmp(&w[0], &w[1]).is_none() {
            return Err(failed(&w[0], &w[1]));
        }
    }
    if items.iter().any(|v| matches!(v, Value::Array(_))) {
        for (i, a) in items.iter().enumerate() {
            for b in &items[i + 1..] {
                if ruby_cmp(a, b).is_none() {
                    return Err(failed(a, b));
                }
            }
        }
    }
    items.sort_by(|a, b| ruby_cmp(a, b).unwrap_or(Ordering::Equal));
    Ok(())
}

/// The deep_merge gem's `deep_merge!(source, dest)` with Puppet's options; `source` wins.
fn deep_merge(source: Value, dest: Value, opts: &DeepOptions) -> Result<Value, HieraError> {
    deep_merge_depth(source, dest, opts, 0)
}

fn deep_merge_depth(
    source: Value,
    dest: Value,
    opts: &DeepOptions,
    depth: usize,
) -> Result<Value, HieraError> {
    if source.is_undef() {
        return Ok(dest);
    }
    if !truthy(&dest) || depth > 200 {
        return Ok(source);
    }
    match source {
        Value::Hash(src) => {
            let Value::Hash(d) = dest else {
                // The gem overwrites a dest that is not a hash inside its loop over the
                // source's entries: an empty source leaves dest as it is, and after the
                // first entry dest *is* the source, so the later entries are merged with
                // themselves (their arrays lose duplicates).
                if src.is_empty() {
                    return Ok(dest);
                }
                let mut out: ValueMap = (*src).clone();
                for (k, sv) in src.iter().skip(1) {
                    out.insert(
                        k.clone(),
                        deep_merge_depth(sv.clone(), sv.clone(), opts, depth + 1)?,
                    );
                }
                return Ok(Value::Hash(Arc::new(out)));
            };
            let mut out: ValueMap = (*d).clone();
            for (k, sv) in src.iter() {
                let merged = match out.get(k) {
                    Some(dv) if truthy(dv) => {
                        deep_merge_depth(sv.clone(), dv.clone(), opts, depth + 1)?
                    }
                    _ => deep_merge_depth(sv.clone(), sv.clone(), opts, depth + 1)?,
                };
                out.insert(k.clone(), merged);
            }
            Ok(Value::Hash(Arc::new(out)))
        }
        Value::Array(src) => {
            let mut source: Vec<Value> = (*src).clone();
            let mut dest = dest;
            if let Some(prefix) = &opts.knockout_prefix {
                let ko = Value::string(prefix);
                if source.contains(&ko) {
                    dest = match dest {
                        Value::Array(_) => Value::array(vec![]),
                        Value::Hash(_) => Value::hash([]),
                        Value::String(_) => Value::string(""),
                        _ => Value::Undef,
                    };
                    source.retain(|v| v != &ko);
                }
            }
            let Value::Array(d) = dest else {
                return Ok(overwrite_unmergeables(Value::Array(Arc::new(source)), opts));
            };
            let mut dest: Vec<Value> = (*d).clone();
            if let Some(prefix) = &opts.knockout_prefix {
                source.retain(|item| {
                    if let Value::String(s) = item {
                        if starts_with_prefix(s, prefix) {
                            let stripped = Value::string(strip_prefix_lines(s, prefix));
                            dest.retain(|x| x != &stripped && x != item);
                            return false;
                        }
                    }
                    true
                });
            }
            let all_hashes = |v: &[Value]| v.iter().all(|i| matches!(i, Value::Hash(_)));
            let mut merged = if opts.merge_hash_arrays && all_hashes(&source) && all_hashes(&dest) {
                let mut list = Vec::new();
                for (i, dv) in dest.iter().enumerate() {
                    let sv = source.get(i).cloned().unwrap_or_else(|| Value::hash([]));
                    list.push(deep_merge_depth(sv, dv.clone(), opts, depth + 1)?);
                }
                if source.len() > dest.len() {
                    list.extend(source[dest.len()..].iter().cloned());
                }
                list
            } else {
                let mut all = dest;
                all.extend(source);
                uniq(&all)
            };
            if opts.sort_merged_arrays {
                sort_values(&mut merged)?;
            }
            Ok(Value::Array(Arc::new(merged)))
        }
        other => Ok(overwrite_unmergeables(other, opts)),
    }
}

/// The type Puppet checks a `merge` hash against (`options_t` of Puppet's merge strategies):
/// `Struct[{strategy => Optional[Pattern[/NAME/]]}]`, and for `deep` also the optional
/// `knockout_prefix` (String), `merge_debug`, `merge_hash_arrays`, `sort_merged_arrays`
/// (Boolean); `unconstrained_deep` and `reverse_deep` take any `Hash[String[1], Any]`.
fn options_type(strategy: &MergeStrategy) -> Type {
    if let MergeStrategy::Deep(o) = strategy {
        if o.variant != DeepVariant::Deep {
            let key = Type::String(StringType::Size(Some(puppet_types::types::IntRange::new(
                Some(1),
                None,
            ))));
            return Type::hash(key, Type::Any, None);
        }
    }
    let optional_key = |name: &str, value: Type| StructElement {
        name: name.into(),
        key: Type::optional(Type::String(StringType::Value(name.into()))),
        value: Type::optional(value),
    };
    let pattern = Regexp::new(strategy.name())
        .map(|r| Type::Pattern(Arc::new(vec![r])))
        .unwrap_or(Type::Any);
    let mut elements = vec![optional_key("strategy", pattern)];
    if matches!(strategy, MergeStrategy::Deep(_)) {
        elements.push(optional_key("knockout_prefix", Type::any_string()));
        for flag in ["merge_debug", "merge_hash_arrays", "sort_merged_arrays"] {
            elements.push(optional_key(flag, Type::Boolean(None)));
        }
    }
    Type::structure(elements)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::string(x)
    }

    #[test]
    fn reverse_deep_lets_the_lower_priority_win() {
        let higher = Value::hash([(s("a"), s("high")), (s("l"), Value::array(vec![s("x")]))]);
        let lower = Value::hash([(s("a"), s("low")), (s("l"), Value::array(vec![s("y")]))]);
        let reverse = MergeStrategy::from_name("reverse_deep").unwrap();
        assert_eq!(reverse.name(), "reverse_deep");
        assert_eq!(
            reverse.merge(&higher, &lower).unwrap().to_string(),
            "{'a' => 'low', 'l' => ['x', 'y']}"
        );
        let deeper = MergeStrategy::from_name("unconstrained_deep").unwrap();
        assert_eq!(
            deeper.merge(&higher, &lower).unwrap().to_string(),
            "{'a' => 'high', 'l' => ['y', 'x']}"
        );
        // Their options are not checked as `deep`'s are.
        let any = Value::hash([(s("strategy"), s("reverse_deep")), (s("whatever"), s("x"))]);
        assert!(MergeStrategy::from_value(&any).is_ok());
    }

    #[test]
    fn unique_flattens_and_dedups() {
        let a = Value::array(vec![s("a"), Value::array(vec![s("b")])]);
        let b = Value::array(vec![s("b"), s("c")]);
        let m = MergeStrategy::Unique;
        let first = m.convert_first(a);
        assert_eq!(m.merge(&first, &b).unwrap().to_string(), "['a', 'b', 'c']");
    }

    #[test]
    fn sorted_merges_fail_as_rubys_sort() {
        let opts = DeepOptions {
            sort_merged_arrays: true,
            ..Default::default()
        };
        let m = MergeStrategy::Deep(opts);
        let nan = Value::Float(f64::NAN);
        let arr = |v: Vec<Value>| Value::array(v);
        let cases = [
            (
                arr(vec![s("b"), Value::Boolean(true)]),
                arr(vec![s("a")]),
                "comparison of String with true failed",
            ),
            (
                arr(vec![nan.clone(), Value::from(1)]),
                arr(vec![]),
                "comparison of Float with Integer failed",
            ),
            (
                arr(vec![
                    arr(vec![Value::from(1), s("x")]),
                    arr(vec![Value::from(2)]),
                ]),
                arr(vec![arr(vec![Value::from(1), Value::from(3)])]),
                "comparison of Array with Array failed",
            ),
        ];
        for (hi, lo, want) in cases {
            assert_eq!(m.merge(&hi, &lo).unwrap_err().message, want);
        }
        let ok = m
            .merge(
                &arr(vec![Value::from(3), Value::Float(1.5)]),
                &arr(vec![Value::from(2)]),
            )
            .unwrap();
        assert_eq!(ok.to_string(), "[1.5, 2, 3]");
    }

    #[test]
    fn deep_knockout() {
        let opts = DeepOptions {
            knockout_prefix: Some("--".into()),
            ..Default::default()
        };
        let hi = Value::hash([(s("k"), Value::array(vec![s("--a"), s("c")]))]);
        let lo = Value::hash([(s("k"), Value::array(vec![s("a"), s("b")]))]);
        let m = MergeStrategy::Deep(opts);
        assert_eq!(
            m.merge(&hi, &lo).unwrap().to_string(),
            "{'k' => ['b', 'c']}"
        );
    }
}
