//! Puppet 7.23's texts for calls that no signature accepts (`TypeMismatchDescriber`'s
//! `describe_signatures`): `'f' expects 2 arguments, got 1`, `'f' parameter 'x' expects ...`,
//! `'each' expects a block`, `'abs' does not expect a block`, `'each' block expects between 1
//! and 2 arguments, got 3`, and the `The function 'f' was called with arguments it does not
//! accept. It expects one of:` list with one `rejected:` line per signature.
//!
//! Single type mismatches come from `puppet_types::mismatch::describe`, and alternatives are
//! merged by `puppet_types::mismatch::merge_descriptions` (the one describer); this module adds
//! the argument counts, the block checks and the texts of the signature lists.

use crate::context::BlockSignature;
use crate::signature::{arity, signature_string, BlockParam, Param};
use puppet_types::mismatch::{describe, merge_descriptions, Mismatch, MismatchKind, PathElement};
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
    let errors = merge_descriptions(0, true, &error_arrays);
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
            lines.push(format!("  rejected:{}", e.chop_path(0).format()));
        }
    } else {
        lines.push(format!(
            "The function {label} was called with arguments it does not accept. It expects one of:"
        ));
        for (i, s) in sigs.iter().enumerate() {
            lines.push(format!("  ({})", signature_string(s.params, s.block)));
            for e in &error_arrays[i] {
                lines.push(format!("    rejected:{}", e.chop_path(0).format()));
            }
        }
    }
    lines.join("\n")
}
