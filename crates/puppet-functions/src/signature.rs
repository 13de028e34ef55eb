//! Signatures of dispatches: the builder ([`Signature`]) used at registration, and the
//! resolved parameter lists ([`Param`], [`BlockParam`]) that dispatch checks calls against.
//!
//! Types may be given as [`Type`] values or as text (`"Variant[Numeric, String]"`), which is
//! read with the function's local type aliases when the function is registered. This module
//! does not call anything; matching lives in the registry, mismatch texts in `describe`.

use puppet_types::Type;
use smol_str::SmolStr;

/// A type as given to the signature builder: already built, or text to read at registration.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeSpec {
    /// A built type.
    Type(Type),
    /// A type expression such as `Hash[String, Integer]`.
    Text(SmolStr),
}

impl From<Type> for TypeSpec {
    fn from(t: Type) -> Self {
        TypeSpec::Type(t)
    }
}
impl From<&str> for TypeSpec {
    fn from(s: &str) -> Self {
        TypeSpec::Text(SmolStr::new(s))
    }
}
impl From<String> for TypeSpec {
    fn from(s: String) -> Self {
        TypeSpec::Text(SmolStr::new(s))
    }
}

/// How a parameter takes its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamKind {
    /// Exactly one argument.
    Required,
    /// Zero or one argument.
    Optional,
    /// Zero or more arguments (`*$rest`), last parameter only.
    Repeated,
    /// One or more arguments, last parameter only.
    RequiredRepeated,
}

/// A resolved parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// Parameter name (without `$`).
    pub name: SmolStr,
    /// Declared type (for repeated parameters, the type of each argument).
    pub ty: Type,
    /// How it takes arguments.
    pub kind: ParamKind,
}

/// A resolved block parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockParam {
    /// Parameter name.
    pub name: SmolStr,
    /// The Callable type (not wrapped in Optional).
    pub ty: Type,
    /// True for `optional_block_param`.
    pub optional: bool,
}

/// The builder of one dispatch's signature, in the style of Puppet's dispatch DSL.
///
/// Order mistakes (a required parameter after an optional one, anything after a repeated one)
/// are reported by [`crate::FunctionBuilder::register`].
///
/// ```
/// use puppet_functions::Signature;
/// let sig = Signature::new()
///     .param("Iterable", "enumerable")
///     .optional_param("Any", "memo")
///     .block_param("Callable[2, 2]", "block")
///     .return_type("Any");
/// assert_eq!(sig.len(), 2);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Signature {
    pub(crate) params: Vec<(SmolStr, TypeSpec, ParamKind)>,
    pub(crate) block: Option<(SmolStr, TypeSpec, bool)>,
    pub(crate) return_type: Option<TypeSpec>,
    pub(crate) after_block: Option<SmolStr>,
}

impl Signature {
    /// An empty signature (a function of no arguments).
    pub fn new() -> Signature {
        Signature::default()
    }

    fn push(mut self, ty: impl Into<TypeSpec>, name: &str, kind: ParamKind) -> Signature {
        if self.block.is_some() && self.after_block.is_none() {
            self.after_block = Some(SmolStr::new(name));
        }
        self.params.push((SmolStr::new(name), ty.into(), kind));
        self
    }

    /// A required parameter.
    pub fn param(self, ty: impl Into<TypeSpec>, name: &str) -> Signature {
        self.push(ty, name, ParamKind::Required)
    }
    /// An optional parameter.
    pub fn optional_param(self, ty: impl Into<TypeSpec>, name: &str) -> Signature {
        self.push(ty, name, ParamKind::Optional)
    }
    /// A repeated parameter taking zero or more arguments (must be last).
    pub fn repeated_param(self, ty: impl Into<TypeSpec>, name: &str) -> Signature {
        self.push(ty, name, ParamKind::Repeated)
    }
    /// A repeated parameter taking one or more arguments (must be last).
    pub fn required_repeated_param(self, ty: impl Into<TypeSpec>, name: &str) -> Signature {
        self.push(ty, name, ParamKind::RequiredRepeated)
    }
    /// A required block parameter; `ty` must be a Callable type.
    pub fn block_param(mut self, ty: impl Into<TypeSpec>, name: &str) -> Signature {
        if self.block.is_some() && self.after_block.is_none() {
            self.after_block = Some(SmolStr::new(name));
        }
        self.block = Some((SmolStr::new(name), ty.into(), false));
        self
    }
    /// An optional block parameter; `ty` must be a Callable (or `Optional[Callable]`) type.
    pub fn optional_block_param(mut self, ty: impl Into<TypeSpec>, name: &str) -> Signature {
        if self.block.is_some() && self.after_block.is_none() {
            self.after_block = Some(SmolStr::new(name));
        }
        self.block = Some((SmolStr::new(name), ty.into(), true));
        self
    }
    /// The type every returned value must match.
    pub fn return_type(mut self, ty: impl Into<TypeSpec>) -> Signature {
        self.return_type = Some(ty.into());
        self
    }
    /// The number of declared (non-block) parameters.
    pub fn len(&self) -> usize {
        self.params.len()
    }
    /// True when no (non-block) parameter is declared.
    pub fn is_empty(&self) -> bool {
        self.params.is_empty()
    }
}

/// Arity of a parameter list: (min, max) with `None` for unbounded.
pub(crate) fn arity(params: &[Param]) -> (usize, Option<usize>) {
    let min = params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Required | ParamKind::RequiredRepeated))
        .count();
    let repeated = params
        .last()
        .is_some_and(|p| matches!(p.kind, ParamKind::Repeated | ParamKind::RequiredRepeated));
    (min, if repeated { None } else { Some(params.len()) })
}

/// The type for the argument at `index`, repeating the last parameter's type.
pub(crate) fn param_at(params: &[Param], index: usize) -> Option<&Param> {
    params.get(index).or_else(|| {
        params
            .last()
            .filter(|p| matches!(p.kind, ParamKind::Repeated | ParamKind::RequiredRepeated))
    })
}

/// Puppet's `signature_string`: `Iterable enumerable, Any memo?, Callable[2, 2] block`.
pub(crate) fn signature_string(params: &[Param], block: Option<&BlockParam>) -> String {
    let (min, max) = arity(params);
    if min == 0 && max == Some(0) {
        return String::new();
    }
    let mut parts: Vec<String> = Vec::new();
    let last = params.len().saturating_sub(1);
    for (i, p) in params.iter().enumerate() {
        let mut ty = p.ty.clone();
        let indicator = if max.is_none() && i == last {
            if min == params.len() {
                "+"
            } else {
                "*"
            }
        } else if i + 1 > min {
            if let Type::Optional(Some(inner)) = &ty {
                ty = (**inner).clone();
            }
            "?"
        } else {
            ""
        };
        parts.push(format!("{ty} {}{indicator}", p.name));
    }
    let mut out = parts.join(", ");
    // Puppet prints a required block only when its type is a Callable itself (not an
    // alias of one, as `lookup`'s `BlockType`).
    if let Some(b) = block.filter(|b| b.optional || !matches!(b.ty, Type::Alias(_))) {
        if !out.is_empty() {
            out.push_str(", ");
        }
        out.push_str(&format!("{} {}", b.ty, b.name));
        if b.optional {
            out.push('?');
        }
    }
    out
}

/// Builds the parameter list of a Puppet-language function from its declared parameters.
///
/// Each entry is (name, type, has a default value, captures the rest). A last parameter whose
/// type is a Callable (or `Optional[Callable]`) becomes the block parameter, as in Puppet.
pub fn puppet_signature(
    params: &[(SmolStr, Type, bool, bool)],
    returns: Option<Type>,
) -> Signature {
    let mut sig = Signature::new();
    let n = params.len();
    for (i, (name, ty, has_default, rest)) in params.iter().enumerate() {
        let callable = |t: &Type| matches!(t.unalias(), Type::Callable(_));
        if i + 1 == n && !rest {
            if callable(ty) {
                sig = sig.block_param(ty.clone(), name);
                continue;
            }
            if let Type::Optional(Some(inner)) = ty {
                if callable(inner) {
                    sig = sig.optional_block_param((**inner).clone(), name);
                    continue;
                }
            }
        }
        sig = if *rest {
            sig.repeated_param(ty.clone(), name)
        } else if *has_default {
            sig.optional_param(ty.clone(), name)
        } else {
            sig.param(ty.clone(), name)
        };
    }
    if let Some(r) = returns {
        sig = sig.return_type(r);
    }
    sig
}

/// Puppet's text of a Puppet-language function's signature, from its declared parameters as
/// [`puppet_signature`] takes them (types already evaluated): `Integer a, Any y?, String r*`,
/// with a last Callable parameter shown as the block, as a registered function prints it.
///
/// ```
/// use puppet_functions::puppet_signature_string;
/// use puppet_types::Type;
/// let params = [
///     ("a".into(), Type::any_integer(), false, false),
///     ("y".into(), Type::Any, true, false),
///     ("r".into(), Type::any_string(), false, true),
/// ];
/// assert_eq!(puppet_signature_string(&params), "Integer a, Any y?, String r*");
/// ```
pub fn puppet_signature_string(params: &[(SmolStr, Type, bool, bool)]) -> String {
    let sig = puppet_signature(params, None);
    let resolved = |spec: &TypeSpec| match spec {
        TypeSpec::Type(t) => t.clone(),
        // `puppet_signature` gives only built types.
        TypeSpec::Text(_) => Type::Any,
    };
    let params: Vec<Param> = (sig.params.iter())
        .map(|(name, spec, kind)| Param {
            name: name.clone(),
            ty: resolved(spec),
            kind: *kind,
        })
        .collect();
    let block = sig.block.as_ref().map(|(name, spec, optional)| BlockParam {
        name: name.clone(),
        ty: resolved(spec),
        optional: *optional,
    });
    signature_string(&params, block.as_ref())
}
