//! Puppet 7.23's texts for calls that no signature accepts (`TypeMismatchDescriber`'s
//! `describe_signatures`): `'f' expects 2 arguments, got 1`, `'f' parameter 'x' expects ...`,
//! `'each' expects a block`, `'abs' does not expect a block`, `'each' block expects between 1
//! and 2 arguments, got 3`, and the `The function 'f' was called with arguments it does not
//! accept. It expects one of:` list with one `rejected:` line per signature.
//!
//! Single type mismatches come from `puppet_types::mismatch::describe`; this module adds the
//! argument counts, the block checks, and the merging of alternatives across signatures.

use crate::context::BlockSignature;
use crate::signature::{arity, signature_string, BlockParam, Param};
use puppet_types::mismatch::{describe, Mismatch, MismatchKind, PathElement};
use puppet_types::types::IntRange;
use puppet_types::{assignable, infer_set, normalize, Type, Value};

/// One signature as the describer sees it.
pub(crate) struct SigView<'a> {
    pub params: &'a [Param],
    pub block: Option<&'a BlockParam>,
}

fn range(min: usize, max: Option<usize>) -> IntRange {
    IntRange::new(Some(min as i64), max.map(|m| m as i64))
}

fn argument_errors(sig: &SigView<'_>, index: usize, args: &[Type]) -> Vec<Mismatch> {
    let path = vec![PathElement::Variant(index)];
    let (min, max) = arity(sig.params);
    let n = args.len();
    if n < min || max.is_some_and(|m| n > m) {
        return vec![Mismatch {
            path,
            kind: MismatchKind::Count {
                expected: range(min, max),
                actual: range(n, Some(n)),
            },
        }];
    }
    for (i, at) in args.iter().enumerate() {
        let Some(p) = crate::signature::param_at(sig.params, i) else {
            break;
        };
        if !assignable(&p.ty, at) {
            let mut ppath = path.clone();
            ppath.push(PathElement::Parameter(p.name.to_string()));
            let d = describe(&p.ty, at, &ppath);
            if !d.is_empty() {
                return d;
            }
        }
    }
    Vec::new()
}

fn block_errors(sig: &SigView<'_>, index: usize, block: Option<&BlockSignature>) -> Vec<Mismatch> {
    let path = vec![PathElement::Variant(index)];
    match (block, sig.block) {
        (Some(_), None) => vec![Mismatch {
            path,
            kind: MismatchKind::UnexpectedBlock,
        }],
        (None, Some(b)) if !b.optional => vec![Mismatch {
            path,
            kind: MismatchKind::MissingRequiredBlock,
        }],
        (Some(actual), Some(b)) => {
            let mut bpath = path;
            bpath.push(PathElement::Block);
            describe_block(&b.ty, actual, bpath)
        }
        _ => Vec::new(),
    }
}

fn describe_block(
    expected: &Type,
    actual: &BlockSignature,
    path: Vec<PathElement>,
) -> Vec<Mismatch> {
    let actual_t = actual.callable_type();
    let Type::Callable(c) = expected.unalias() else {
        return vec![Mismatch {
            path,
            kind: MismatchKind::Type {
                expected: normalize(expected),
                actual: actual_t,
            },
        }];
    };
    let Some(params) = &c.params else {
        return Vec::new();
    };
    let expected_size = params.size_range();
    let actual_size = range(actual.min, actual.max);
    if !expected_size.covers(&actual_size) {
        return vec![Mismatch {
            path,
            kind: MismatchKind::Count {
                expected: expected_size,
                actual: actual_size,
            },
        }];
    }
    let mut out = Vec::new();
    if !params.types.is_empty() {
        for (i, at) in actual.types.iter().enumerate() {
            let adx = i.min(params.types.len() - 1);
            let et = &params.types[adx];
            if *et == Type::Unit {
                continue;
            }
            let mut p = path.clone();
            p.push(PathElement::Index(adx));
            out.extend(describe(et, at, &p));
        }
    }
    out
}

fn canonical(m: &Mismatch) -> Vec<&PathElement> {
    m.path
        .iter()
        .filter(|p| !matches!(p, PathElement::Variant(_)))
        .collect()
}

#[derive(Clone, Copy, PartialEq)]
enum Class {
    Count,
    MissingBlock,
    UnexpectedBlock,
    Type,
}

fn class_of(k: &MismatchKind) -> Option<Class> {
    match k {
        MismatchKind::Count { .. } => Some(Class::Count),
        MismatchKind::MissingRequiredBlock => Some(Class::MissingBlock),
        MismatchKind::UnexpectedBlock => Some(Class::UnexpectedBlock),
        MismatchKind::Type { .. } | MismatchKind::Pattern { .. } => Some(Class::Type),
        _ => None,
    }
}

fn merge_two(a: &Mismatch, b: &Mismatch) -> Mismatch {
    let kind = match (&a.kind, &b.kind) {
        (
            MismatchKind::Count {
                expected: e1,
                actual,
            },
            MismatchKind::Count { expected: e2, .. },
        ) => MismatchKind::Count {
            expected: IntRange::new(
                Some(e1.min.unwrap_or(0).min(e2.min.unwrap_or(0))),
                match (e1.max, e2.max) {
                    (Some(x), Some(y)) => Some(x.max(y)),
                    _ => None,
                },
            ),
            actual: *actual,
        },
        (
            MismatchKind::Type {
                expected: e1,
                actual,
            },
            MismatchKind::Type { expected: e2, .. } | MismatchKind::Pattern { expected: e2, .. },
        ) if e1 != e2 => MismatchKind::Type {
            expected: normalize(&Type::variant_of(vec![e1.clone(), e2.clone()])),
            actual: actual.clone(),
        },
        (k, _) => k.clone(),
    };
    Mismatch {
        path: b.path.clone(),
        kind,
    }
}

fn chop_first(m: &Mismatch) -> Mismatch {
    let mut m = m.clone();
    if !m.path.is_empty() {
        m.path.remove(0);
    }
    m
}

fn merge_descriptions(variants: &[Vec<Mismatch>]) -> Vec<Mismatch> {
    let mut descriptions: Vec<Mismatch> = variants.iter().flatten().cloned().collect();
    for class in [
        Class::Count,
        Class::MissingBlock,
        Class::UnexpectedBlock,
        Class::Type,
    ] {
        let ms: Vec<&Mismatch> = descriptions
            .iter()
            .filter(|m| class_of(&m.kind) == Some(class))
            .collect();
        if ms.is_empty() || ms.len() != variants.len() {
            continue;
        }
        let mut acc = Some(ms[0].clone());
        for m in &ms[1..] {
            acc = match acc {
                Some(p) if canonical(&p) == canonical(m) => Some(merge_two(&p, m)),
                _ => None,
            };
        }
        if let Some(g) = acc {
            descriptions = vec![g];
            break;
        }
    }
    let mut uniq: Vec<Mismatch> = Vec::new();
    for d in descriptions {
        if !uniq
            .iter()
            .any(|u| canonical(u) == canonical(&d) && u.kind == d.kind)
        {
            uniq.push(d);
        }
    }
    if uniq.len() == 1 {
        vec![chop_first(&uniq[0])]
    } else {
        uniq
    }
}

/// The error text for a call that no signature accepts.
pub(crate) fn describe_signatures(
    name: &str,
    sigs: &[SigView<'_>],
    args: &[Value],
    block: Option<&BlockSignature>,
) -> String {
    let arg_types: Vec<Type> = args.iter().map(infer_set).collect();
    let mut error_arrays: Vec<Vec<Mismatch>> = sigs
        .iter()
        .enumerate()
        .map(|(i, s)| argument_errors(s, i, &arg_types))
        .collect();
    if !error_arrays.iter().all(|a| !a.is_empty()) {
        let block_arrays: Vec<Vec<Mismatch>> = sigs
            .iter()
            .enumerate()
            .map(|(i, s)| block_errors(s, i, block))
            .collect();
        let bc = block_arrays.iter().filter(|a| !a.is_empty()).count();
        if bc == block_arrays.len() {
            error_arrays = block_arrays;
        } else if bc > 0 {
            for (i, a) in error_arrays.iter_mut().enumerate() {
                if a.is_empty() {
                    *a = block_arrays[i].clone();
                }
            }
        }
    }
    let label = format!("'{name}'");
    let errors = merge_descriptions(&error_arrays);
    if errors.len() == 1 {
        return format!("{label}{}", errors[0].format());
    }
    let mut lines = Vec::new();
    if sigs.len() == 1 {
        lines.push(format!(
            "{label} expects ({})",
            signature_string(sigs[0].params, sigs[0].block)
        ));
        for e in &error_arrays[0] {
            lines.push(format!("  rejected:{}", chop_first(e).format()));
        }
    } else {
        lines.push(format!(
            "The function {label} was called with arguments it does not accept. It expects one of:"
        ));
        for (i, s) in sigs.iter().enumerate() {
            lines.push(format!("  ({})", signature_string(s.params, s.block)));
            for e in &error_arrays[i] {
                lines.push(format!("    rejected:{}", chop_first(e).format()));
            }
        }
    }
    lines.join("\n")
}
