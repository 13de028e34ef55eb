//! Object types and object values: Puppet's `Object[{...}]` types, their instances, and the
//! Pcore objects `Error`, `Deferred` and `Annotation`.
//!
//! An [`ObjectType`] is built from the initialization hash the language gives it
//! (`Object[{name => 'X', parent => P, attributes => {...}, functions => {...}, ...}]`) by
//! [`ObjectType::from_init_hash`]. A type alias `type X = Object[{...}]` names the type after
//! the alias ([`crate::TypeAlias::resolve_to`] does this). Parents are kept as the types that
//! were given (usually aliases) and resolved when needed, so types may refer to each other.
//!
//! An [`ObjectValue`] holds its type and the values of all attributes, inherited ones first.
//! [`new_object`] creates one from positional arguments or one hash, as Puppet's `new` does.
//! [`ObjectValue::get`] reads an attribute and [`ObjectValue::call`] calls an attribute reader
//! or a built-in member function (`Error.message`).
//!
//! Type parameters (`Error['puppet/error']`, `MyType[p1 => 'x']`) make an extension type
//! ([`ObjectExt`]) that also tests the instance's attributes of the same names.

use crate::error::TypeError;
use crate::format::{puppet_quote, type_string, value_p};
use crate::infer::{generalize, infer};
use crate::types::Type;
use crate::value::Value;
use smol_str::SmolStr;
use std::sync::{Arc, OnceLock};

/// The kind of an [`ObjectType`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ObjectKind {
    /// An Object type.
    Object,
    /// A TypeSet (known by its printed form only).
    TypeSet,
}

/// The `kind` of an attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttrKind {
    /// `constant`: the value is fixed by the type.
    Constant,
    /// `derived`: computed, never given.
    Derived,
    /// `given_or_derived`.
    GivenOrDerived,
    /// `reference`.
    Reference,
}

impl AttrKind {
    fn as_str(self) -> &'static str {
        match self {
            AttrKind::Constant => "constant",
            AttrKind::Derived => "derived",
            AttrKind::GivenOrDerived => "given_or_derived",
            AttrKind::Reference => "reference",
        }
    }
}

/// An attribute, function or type parameter of an Object type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Member {
    /// The member name.
    pub name: SmolStr,
    /// Attribute / parameter type, or the Callable of a function.
    pub ty: Type,
    /// The attribute kind (attributes only).
    pub kind: Option<AttrKind>,
    /// The default (or constant) value; `None` when the attribute has none.
    pub value: Option<Value>,
    /// `final => true`.
    pub is_final: bool,
    /// `override => true`.
    pub is_override: bool,
    /// The `annotations` hash, as given.
    pub annotations: Option<Value>,
}

impl Member {
    fn plain(name: &str, ty: Type) -> Member {
        Member {
            name: SmolStr::new(name),
            ty,
            kind: None,
            value: None,
            is_final: false,
            is_override: false,
            annotations: None,
        }
    }

    /// Whether a value must be given for this attribute when creating an instance.
    /// An attribute without a default whose type accepts `undef` is optional (and `undef`
    /// when not given).
    pub fn is_required(&self) -> bool {
        self.value.is_none() && !crate::assign::assignable(&self.ty, &Type::Undef)
    }

    /// Whether the attribute is set by `new` (not a constant and not derived).
    pub fn is_settable(&self) -> bool {
        !matches!(self.kind, Some(AttrKind::Constant | AttrKind::Derived))
    }
}

/// A parameterized Object type: `Error['puppet/error', 'OOPS']`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ObjectExt {
    /// The type being parameterized.
    pub base: Arc<ObjectType>,
    /// The parameter values by type-parameter name (`default` ones left out).
    pub params: Vec<(SmolStr, Value)>,
}

/// An Object type (or the TypeSet type, which is known by its text only).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ObjectType {
    /// Name (`None` for the plain `Object` and for anonymous object types).
    pub name: Option<SmolStr>,
    /// What kind of meta type this is.
    pub kind: ObjectKind,
    /// The printed form of a TypeSet (empty for Object types).
    pub text: SmolStr,
    /// The parent type as given (usually an alias); resolve with [`ObjectType::parent_type`].
    pub parent: Option<Type>,
    /// Type parameters in declaration order.
    pub type_parameters: Vec<Member>,
    /// The type's own attributes (constants included) in declaration order.
    pub attributes: Vec<Member>,
    /// The type's own functions.
    pub functions: Vec<Member>,
    /// `equality => [...]`.
    pub equality: Option<Vec<SmolStr>>,
    /// `equality_include_type`.
    pub equality_include_type: bool,
    /// `checks`, as given.
    pub checks: Option<Value>,
    /// `annotations`, as given.
    pub annotations: Option<Value>,
    /// Set for a parameterized type (`Error[...]`).
    pub ext: Option<ObjectExt>,
}

fn bad(msg: impl Into<String>) -> TypeError {
    TypeError::BadParameter(msg.into())
}

fn key(s: &str) -> Value {
    Value::string(s)
}

impl ObjectType {
    /// An empty object type (the plain `Object` when unnamed).
    pub fn empty(name: Option<&str>) -> ObjectType {
        ObjectType {
            name: name.map(SmolStr::new),
            kind: ObjectKind::Object,
            text: SmolStr::default(),
            parent: None,
            type_parameters: vec![],
            attributes: vec![],
            functions: vec![],
            equality: None,
            equality_include_type: true,
            checks: None,
            annotations: None,
            ext: None,
        }
    }

    /// True for the plain `Object` type (every object is an instance of it).
    pub fn is_plain_object(&self) -> bool {
        self.kind == ObjectKind::Object && *self == ObjectType::empty(None)
    }

    /// The label Puppet uses in messages: the name, or `Object`.
    pub fn label(&self) -> &str {
        self.name.as_deref().unwrap_or("Object")
    }

    /// The definition behind a parameterized type (itself otherwise).
    pub fn definition(&self) -> &ObjectType {
        match &self.ext {
            Some(e) => &e.base,
            None => self,
        }
    }

    /// A copy named `name` (what a type alias does to the Object type it names).
    pub fn renamed(&self, name: &str) -> ObjectType {
        let mut o = self.clone();
        o.name = Some(SmolStr::new(name));
        o
    }

    /// Builds an Object type from its initialization hash, with Puppet's checks of the hash.
    pub fn from_init_hash(h: &crate::value::ValueMap) -> Result<ObjectType, TypeError> {
        let mut o = ObjectType::empty(None);
        for (k, v) in h.iter() {
            let k = match k {
                Value::String(s) => s.as_str(),
                other => {
                    return Err(bad(format!(
                        "object initializer has wrong type, key {other} is not a String"
                    )))
                }
            };
            match k {
                "name" => match v {
                    Value::String(s) => o.name = Some(s.clone().into()),
                    Value::Undef => {}
                    other => {
                        return Err(wrong_entry(
                            "name",
                            "Pattern[/\\A[A-Z][\\w]*(?:::[A-Z][\\w]*)*\\z/]",
                            other,
                        ))
                    }
                },
                "parent" => match v {
                    Value::Type(t) => o.parent = Some(t.clone()),
                    Value::String(s) => o.parent = Some(crate::params::resolve_type_name(s)),
                    Value::Undef => {}
                    other => return Err(wrong_entry("parent", "Type", other)),
                },
                "type_parameters" => o.type_parameters = members(v, "type_parameter")?,
                "attributes" => {
                    let ms = members(v, "attribute")?;
                    o.attributes.extend(ms);
                }
                "constants" => {
                    let Value::Hash(ch) = v else {
                        return Err(wrong_entry(
                            "constants",
                            "Hash[Pattern[/\\A[a-z_]\\w*\\z/], Any]",
                            v,
                        ));
                    };
                    for (ck, cv) in ch.iter() {
                        let name = ck
                            .as_str()
                            .ok_or_else(|| bad("constant names must be Strings"))?;
                        let mut m = Member::plain(name, generalize(&infer(cv)));
                        m.kind = Some(AttrKind::Constant);
                        m.value = Some(cv.clone());
                        o.attributes.push(m);
                    }
                }
                "functions" => o.functions = members(v, "function")?,
                "equality" => {
                    o.equality = match v {
                        Value::String(s) => Some(vec![s.clone().into()]),
                        Value::Array(a) => Some(
                            a.iter()
                                .map(|x| {
                                    x.as_str()
                                        .map(SmolStr::new)
                                        .ok_or_else(|| wrong_entry("equality", "Array[String]", v))
                                })
                                .collect::<Result<_, _>>()?,
                        ),
                        Value::Undef => None,
                        other => return Err(wrong_entry("equality", "Array[String]", other)),
                    }
                }
                "equality_include_type" => match v {
                    Value::Boolean(b) => o.equality_include_type = *b,
                    other => return Err(wrong_entry("equality_include_type", "Boolean", other)),
                },
                "checks" => o.checks = Some(v.clone()),
                "annotations" => {
                    // Puppet's `Optional[Hash[Type[Annotation], Hash[Pcore::MemberName, Any]]]`.
                    let member_name = match crate::regexp::Regexp::new(r"\A[a-z_]\w*\z") {
                        Ok(r) => Type::Pattern(Arc::new(vec![r])),
                        Err(_) => Type::any_string(),
                    };
                    let annotation = builtin("Annotation").map(Type::Object).unwrap_or(Type::Any);
                    let expected = Type::hash(
                        Type::type_of(annotation),
                        Type::hash(member_name, Type::Any, None),
                        None,
                    );
                    match v {
                        Value::Undef => {}
                        v if crate::assign::is_instance(&expected, v) => {
                            o.annotations = Some(v.clone())
                        }
                        other => {
                            return Err(bad(format!(
                                "object initializer has wrong type, entry 'annotations' expects a value of type Undef or {}, got {}",
                                crate::format::alias_expanded_string(&expected),
                                crate::format::alias_expanded_string(&generalize(&infer(other)))
                            )))
                        }
                    }
                }
                "serialization" => {}
                other => {
                    return Err(bad(format!(
                        "object initializer has wrong type, unrecognized key '{other}'"
                    )))
                }
            }
        }
        // Duplicate names between attributes and functions.
        for f in &o.functions {
            if o.attributes.iter().any(|a| a.name == f.name) {
                return Err(bad(format!(
                    "attribute {}[{}] conflicts with function {}[{}]",
                    o.label(),
                    f.name,
                    o.label(),
                    f.name
                )));
            }
        }
        if let Some(eq) = &o.equality {
            for e in eq {
                if !o.attributes.iter().any(|a| &a.name == e) && o.parent.is_none() {
                    return Err(bad(format!(
                        "{} equality is referencing non existent attribute '{e}'",
                        o.label()
                    )));
                }
            }
        }
        Ok(o)
    }

    /// The resolved parent Object type, if any.
    pub fn parent_type(&self) -> Option<Arc<ObjectType>> {
        let p = self.definition().parent.as_ref()?;
        match p.unalias() {
            Type::Object(o) => Some(o),
            _ => None,
        }
    }

    /// This type and its ancestors, nearest first (cut at 64 levels, which also stops cycles).
    fn chain(&self) -> Vec<Arc<ObjectType>> {
        let mut out: Vec<Arc<ObjectType>> = Vec::new();
        let mut cur = self.parent_type();
        while let Some(p) = cur {
            if out.len() >= 64 || out.iter().any(|q| Arc::ptr_eq(q, &p)) {
                break;
            }
            cur = p.parent_type();
            out.push(p);
        }
        out
    }

    /// All attributes, inherited ones first; an overriding attribute keeps its parent's place.
    pub fn all_attributes(&self) -> Vec<Member> {
        let def = self.definition();
        let mut chain = def.chain();
        chain.reverse();
        let mut out: Vec<Member> = Vec::new();
        let own = def.attributes.iter();
        for m in chain.iter().flat_map(|p| p.attributes.iter()).chain(own) {
            match out.iter_mut().find(|x| x.name == m.name) {
                Some(x) => *x = m.clone(),
                None => out.push(m.clone()),
            }
        }
        out
    }

    /// All functions, inherited ones first.
    pub fn all_functions(&self) -> Vec<Member> {
        let def = self.definition();
        let mut chain = def.chain();
        chain.reverse();
        let mut out: Vec<Member> = Vec::new();
        for m in chain
            .iter()
            .flat_map(|p| p.functions.iter())
            .chain(def.functions.iter())
        {
            match out.iter_mut().find(|x| x.name == m.name) {
                Some(x) => *x = m.clone(),
                None => out.push(m.clone()),
            }
        }
        out
    }

    /// All type parameters, inherited ones first.
    pub fn all_type_parameters(&self) -> Vec<Member> {
        let def = self.definition();
        let mut chain = def.chain();
        chain.reverse();
        let mut out: Vec<Member> = Vec::new();
        for m in chain
            .iter()
            .flat_map(|p| p.type_parameters.iter())
            .chain(def.type_parameters.iter())
        {
            match out.iter_mut().find(|x| x.name == m.name) {
                Some(x) => *x = m.clone(),
                None => out.push(m.clone()),
            }
        }
        out
    }

    /// The value of a constant attribute (also inherited ones).
    pub fn constant(&self, name: &str) -> Option<Value> {
        self.all_attributes()
            .into_iter()
            .find(|a| a.name == name && a.kind == Some(AttrKind::Constant))
            .and_then(|a| a.value)
    }

    /// The Callable type of a function (also inherited ones).
    pub fn function(&self, name: &str) -> Option<Member> {
        self.all_functions().into_iter().find(|f| f.name == name)
    }

    /// Checks what can only be checked once the parents are known: inheritance cycles, final
    /// attributes that are overridden, overrides of nothing, and equality declared twice.
    pub fn validate(&self) -> Result<(), TypeError> {
        let def = self.definition();
        let mut seen: Vec<Arc<ObjectType>> = Vec::new();
        let mut cur = def.parent_type();
        while let Some(p) = cur {
            if p.name.is_some() && p.name == def.name || seen.len() > 64 {
                return Err(bad(format!(
                    "The Object type '{}' inherits from itself",
                    def.label()
                )));
            }
            if seen.iter().any(|q| Arc::ptr_eq(q, &p)) {
                return Err(bad(format!(
                    "The Object type '{}' inherits from itself",
                    p.label()
                )));
            }
            cur = p.parent_type();
            seen.push(p);
        }
        if let Some(parent) = def.parent_type() {
            let inherited = parent.all_attributes();
            for a in &def.attributes {
                if let Some(pa) = inherited.iter().find(|x| x.name == a.name) {
                    let owner = find_owner(&parent, &a.name);
                    if pa.is_final {
                        return Err(bad(format!(
                            "attribute {}[{}] attempts to override final attribute {}[{}]",
                            def.label(),
                            a.name,
                            owner,
                            a.name
                        )));
                    }
                    if !a.is_override {
                        return Err(bad(format!(
                            "attribute {}[{}] attempts to override attribute {}[{}] without having override => true",
                            def.label(),
                            a.name,
                            owner,
                            a.name
                        )));
                    }
                } else if a.is_override {
                    return Err(bad(format!(
                        "expected attribute {}[{}] to override an inherited attribute, but no such attribute was found",
                        def.label(),
                        a.name
                    )));
                }
            }
            if let Some(eq) = &def.equality {
                // The parent's equality (declared, or all its attributes) may not be named
                // again; Puppet names the ancestor whose equality first includes it.
                let parent_eq = parent.equality_attributes();
                if let Some(e) = eq.iter().find(|e| parent_eq.contains(e)) {
                    let mut definer = parent.clone();
                    while let Some(gp) = definer.parent_type() {
                        if !gp.equality_attributes().contains(e) {
                            break;
                        }
                        definer = gp;
                    }
                    return Err(bad(format!(
                        "{} equality is referencing attribute {}[{e}] which is included in equality of {}",
                        def.label(),
                        find_owner(&parent, e),
                        definer.label()
                    )));
                }
            }
        }
        Ok(())
    }

    /// The attributes `==` compares: the `equality` attributes of this type and its parents,
    /// or every non-constant attribute when none are declared.
    pub fn equality_attributes(&self) -> Vec<SmolStr> {
        let def = self.definition();
        let mut names: Vec<SmolStr> = Vec::new();
        let mut any_declared = false;
        let mut chain = def.chain();
        chain.reverse();
        for t in chain.iter().map(|a| &**a).chain(std::iter::once(def)) {
            if let Some(eq) = &t.equality {
                any_declared = true;
                names.extend(eq.iter().cloned());
            }
        }
        if any_declared {
            names
        } else {
            def.all_attributes()
                .into_iter()
                .filter(|a| a.kind != Some(AttrKind::Constant))
                .map(|a| a.name)
                .collect()
        }
    }

    /// The `Struct` type of the hash `new` accepts.
    pub fn init_hash_type(&self) -> Type {
        let elems = self
            .all_attributes()
            .into_iter()
            .filter(Member::is_settable)
            .map(|a| {
                let kt = Type::String(crate::types::StringType::Value(a.name.clone()));
                crate::types::StructElement {
                    name: a.name.clone(),
                    key: if a.is_required() {
                        kt
                    } else {
                        Type::optional(kt)
                    },
                    value: a.ty.clone(),
                }
            })
            .collect();
        Type::structure(elems)
    }

    /// The attributes `new` takes positionally: required ones first, then those with defaults.
    pub fn parameter_order(&self) -> Vec<Member> {
        let settable: Vec<Member> = self
            .all_attributes()
            .into_iter()
            .filter(Member::is_settable)
            .collect();
        let (req, opt): (Vec<Member>, Vec<Member>) =
            settable.into_iter().partition(Member::is_required);
        req.into_iter().chain(opt).collect()
    }

    /// What `Base[args]` means for an Object type: with type parameters, a parameterized type
    /// (`MyType['a']`, `MyType[p1 => 'a']`); without them, one init hash makes a new type whose
    /// parent is `base` (`type Sub = MyObject { attributes => {...} }`).
    pub fn access(self: &Arc<ObjectType>, base: &Type, args: &[Value]) -> Result<Type, TypeError> {
        if let [Value::Hash(h)] = args {
            let init_keys = [
                "name",
                "parent",
                "type_parameters",
                "attributes",
                "constants",
                "functions",
                "equality",
                "equality_include_type",
                "checks",
                "annotations",
                "serialization",
            ];
            let is_init = !h.is_empty()
                && h.keys()
                    .all(|k| k.as_str().is_some_and(|k| init_keys.contains(&k)));
            if is_init && self.definition().all_type_parameters().is_empty() {
                let mut o = ObjectType::from_init_hash(h)?;
                o.parent = Some(base.clone());
                return Ok(Type::Object(Arc::new(o)));
            }
        }
        self.parameterized(args)
    }

    /// A parameterized form of this type (`MyType['a']`, `MyType[p1 => 'a']`).
    pub fn parameterized(self: &Arc<ObjectType>, args: &[Value]) -> Result<Type, TypeError> {
        let base = match &self.ext {
            Some(e) => e.base.clone(),
            None => self.clone(),
        };
        let pts = base.all_type_parameters();
        if pts.is_empty() {
            return Err(bad(format!(
                "The {}-Type cannot be parameterized using []",
                base.label()
            )));
        }
        let named = args.len() == 1
            && matches!(args[0], Value::Hash(_))
            && !crate::assign::is_instance(&param_type(&pts[0]), &args[0]);
        let mut params: Vec<(SmolStr, Value)> = Vec::new();
        if named {
            if let Value::Hash(h) = &args[0] {
                for (k, v) in h.iter() {
                    let kn = k.as_str().unwrap_or_default();
                    let Some(tp) = pts.iter().find(|p| p.name == kn) else {
                        return Err(bad(format!(
                            "'{kn}' is not a known type parameter for {}-Type",
                            base.label()
                        )));
                    };
                    if !v.eq(&Value::Default) {
                        check_param(&base, tp, v)?;
                        params.push((tp.name.clone(), v.clone()));
                    }
                }
            }
        } else {
            if args.len() > pts.len() {
                return Err(bad(format!(
                    "The {}-Type accepts at most {} type parameters, got {}",
                    base.label(),
                    pts.len(),
                    args.len()
                )));
            }
            for (tp, v) in pts.iter().zip(args.iter()) {
                if *v != Value::Default {
                    check_param(&base, tp, v)?;
                    params.push((tp.name.clone(), v.clone()));
                }
            }
        }
        if params.is_empty() {
            return Err(TypeError::Operation(format!(
                "The {}-Type cannot be parameterized using an empty parameter list",
                base.label()
            )));
        }
        Ok(Type::Object(Arc::new(ObjectType {
            ext: Some(ObjectExt {
                base: base.clone(),
                params,
            }),
            ..ObjectType::empty(base.name.as_deref())
        })))
    }
}

fn param_type(p: &Member) -> Type {
    Type::optional(p.ty.clone())
}

fn check_param(base: &ObjectType, tp: &Member, v: &Value) -> Result<(), TypeError> {
    if crate::assign::is_instance(&param_type(tp), v) {
        Ok(())
    } else {
        Err(bad(crate::mismatch::describe_mismatch(
            &format!("{}[{}]", base.label(), tp.name),
            &param_type(tp),
            &crate::infer::infer_set(v),
        )))
    }
}

fn find_owner(start: &Arc<ObjectType>, attr: &str) -> String {
    let mut cur = Some(start.clone());
    let mut owner = start.label().to_string();
    while let Some(t) = cur {
        if t.attributes.iter().any(|a| a.name == attr) {
            owner = t.label().to_string();
        }
        cur = t.parent_type();
    }
    owner
}

fn wrong_entry(entry: &str, expected: &str, got: &Value) -> TypeError {
    bad(format!(
        "object initializer has wrong type, entry '{entry}' expects a value of type {expected}, got {}",
        generalize(&infer(got))
    ))
}

fn members(v: &Value, what: &str) -> Result<Vec<Member>, TypeError> {
    let Value::Hash(h) = v else {
        if v.is_undef() {
            return Ok(vec![]);
        }
        return Err(bad(format!(
            "object initializer has wrong type, {what}s must be given as a Hash, got {}",
            generalize(&infer(v))
        )));
    };
    let mut out = Vec::new();
    for (k, mv) in h.iter() {
        let name = match k {
            Value::String(s) => s.clone(),
            other => return Err(bad(format!("{what} name {other} is not a String"))),
        };
        let mut m = Member::plain(&name, Type::Any);
        match mv {
            Value::Type(t) => m.ty = t.clone(),
            Value::Hash(fh) => {
                let mut has_type = false;
                for (fk, fv) in fh.iter() {
                    match (fk.as_str().unwrap_or_default(), fv) {
                        ("type", Value::Type(t)) => {
                            m.ty = t.clone();
                            has_type = true;
                        }
                        ("type", Value::String(s)) => {
                            m.ty = crate::params::resolve_type_name(s);
                            has_type = true;
                        }
                        ("kind", Value::String(s)) if what == "attribute" => {
                            m.kind = Some(match s.as_str() {
                                "constant" => AttrKind::Constant,
                                "derived" => AttrKind::Derived,
                                "given_or_derived" => AttrKind::GivenOrDerived,
                                "reference" => AttrKind::Reference,
                                other => {
                                    return Err(bad(format!(
                                        "initializer for attribute {name} has wrong type, entry 'kind' expects a match for Enum['constant', 'derived', 'given_or_derived', 'reference'], got '{other}'"
                                    )))
                                }
                            })
                        }
                        ("value", x) if what != "function" => m.value = Some(x.clone()),
                        ("final", Value::Boolean(b)) => m.is_final = *b,
                        ("override", Value::Boolean(b)) => m.is_override = *b,
                        ("annotations", x) => m.annotations = Some(x.clone()),
                        (other, _) => {
                            return Err(bad(format!(
                                "initializer for {what} {name} has wrong type, unrecognized key '{other}'"
                            )))
                        }
                    }
                }
                if !has_type {
                    return Err(bad(format!(
                        "initializer for {what} {name} has wrong type, expects a value for key 'type'"
                    )));
                }
            }
            other => {
                return Err(bad(format!(
                "initializer for {what} {name} has wrong type, expects a Type or a Hash, got {}",
                generalize(&infer(other))
            )))
            }
        }
        if m.kind == Some(AttrKind::Constant) {
            if m.value.is_none() {
                return Err(bad(format!(
                    "attribute {name} of kind 'constant' requires a value"
                )));
            }
            m.is_final = true;
        }
        if what == "type_parameter" {
            // A type parameter's value may always be left out.
            m.value = None;
        }
        if let Some(v) = &m.value {
            if m.kind != Some(AttrKind::Derived) && !crate::assign::is_instance(&m.ty, v) {
                return Err(bad(crate::mismatch::describe_mismatch(
                    &format!("attribute {name}"),
                    &m.ty,
                    &crate::infer::infer_set(v),
                )));
            }
        }
        out.push(m);
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Values

/// An instance of an Object type.
#[derive(Debug, Clone)]
pub struct ObjectValue {
    /// The object's type (never a parameterized one).
    pub object_type: Arc<ObjectType>,
    /// The values of all attributes (constants and defaults included), inherited ones first.
    pub values: Vec<(SmolStr, Value)>,
}

impl ObjectValue {
    /// The value of an attribute.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// The type name (`MyObject`), or `Object` for an anonymous type.
    pub fn type_name(&self) -> &str {
        self.object_type.label()
    }

    /// Calls a member: an attribute reader (no arguments), or a function of the type.
    /// `None` when the type has no such member (the caller then tries other functions).
    ///
    /// Functions declared in Puppet have no body this crate can run; calling one is an error,
    /// except for the built-in `Error.message` and functions whose Ruby body is a single-quoted
    /// string literal.
    pub fn call(&self, name: &str, args: &[Value]) -> Option<Result<Value, TypeError>> {
        if let Some(v) = self.get(name) {
            if args.is_empty() {
                return Some(Ok(v.clone()));
            }
            return Some(Err(TypeError::BadArity(format!(
                "'{}[{name}]' expects no arguments, got {}",
                self.type_name(),
                args.len()
            ))));
        }
        let f = self.object_type.function(name)?;
        if self.object_type.name.as_deref() == Some("Error") && name == "message" {
            return Some(Ok(self.get("msg").cloned().unwrap_or(Value::Undef)));
        }
        if let Some(Value::Hash(ann)) = &f.annotations {
            for (k, body) in ann.iter() {
                let is_ruby = match k {
                    Value::Type(t) => match t.unalias() {
                        Type::Object(o) => o.name.as_deref() == Some("RubyMethod"),
                        Type::TypeReference(n) => n == "RubyMethod",
                        _ => false,
                    },
                    other => other.as_str() == Some("RubyMethod"),
                };
                if let (true, Value::Hash(b)) = (is_ruby, body) {
                    if let Some(Value::String(code)) = b.get(&key("body")) {
                        let code = code.trim();
                        if code.len() >= 2
                            && code.starts_with('\'')
                            && code.ends_with('\'')
                            && !code[1..code.len() - 1].contains(['\'', '\\'])
                        {
                            return Some(Ok(Value::string(&code[1..code.len() - 1])));
                        }
                    }
                }
            }
        }
        Some(Err(TypeError::Conversion(format!(
            "The function {}[{name}] has no implementation",
            self.type_name()
        ))))
    }

    /// The hash `%p` shows: settable attributes whose value differs from the default, in
    /// declaration order (inherited ones first).
    pub fn init_hash(&self) -> Vec<(SmolStr, Value)> {
        let mut out = Vec::new();
        for a in self.object_type.all_attributes() {
            if !a.is_settable() {
                continue;
            }
            let v = self.get(&a.name).cloned().unwrap_or(Value::Undef);
            if a.value.as_ref() == Some(&v) {
                continue;
            }
            out.push((a.name.clone(), v));
        }
        out
    }

    /// Puppet's `==` on objects: same type and equal equality attributes.
    pub fn equals(&self, other: &ObjectValue, eq: &dyn Fn(&Value, &Value) -> bool) -> bool {
        let same_type = Arc::ptr_eq(&self.object_type, &other.object_type)
            || self.object_type == other.object_type;
        same_type
            && self.object_type.equality_attributes().iter().all(|n| {
                match (self.get(n), other.get(n)) {
                    (Some(a), Some(b)) => eq(a, b),
                    (None, None) => true,
                    _ => false,
                }
            })
    }
}

impl PartialEq for ObjectValue {
    fn eq(&self, other: &Self) -> bool {
        self.equals(other, &|a, b| a == b)
    }
}

// ---------------------------------------------------------------------------------------------
// Creation

fn label_new(t: &ObjectType) -> String {
    format!("new_{}", t.label())
}

fn signature_text(params: &[Member], required: usize) -> String {
    params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            format!(
                "{} {}{}",
                p.ty,
                p.name,
                if i >= required { "?" } else { "" }
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn count_text(min: usize, max: usize) -> String {
    let n = if min == max {
        format!("{min}")
    } else {
        format!("between {min} and {max}")
    };
    format!(
        "{n} argument{}",
        if max == 1 && min == max { "" } else { "s" }
    )
}

/// Creates an instance of an Object type from `new`'s arguments: one hash of attribute values,
/// or the attribute values positionally (required attributes first, then those with defaults).
pub fn new_object(t: &Arc<ObjectType>, args: &[Value]) -> Result<Value, TypeError> {
    let base = match &t.ext {
        Some(e) => e.base.clone(),
        None => t.clone(),
    };
    if base.kind == ObjectKind::TypeSet || base.is_plain_object() {
        return Err(TypeError::Conversion(format!(
            "Creation of new instance of type '{}' is not supported",
            Type::Object(base.clone())
        )));
    }
    base.validate()?;
    let params = base.parameter_order();
    let required = params.iter().filter(|p| p.is_required()).count();
    let struct_type = base.init_hash_type();
    let fname = label_new(&base);
    // Hash form.
    if let [Value::Hash(h)] = args {
        if crate::assign::is_instance(&struct_type, &args[0]) {
            return build(&base, |name| h.get(&key(name)).cloned());
        }
    }
    // Positional form.
    let arity_ok = args.len() >= required && args.len() <= params.len();
    let mut rejection = None;
    if arity_ok {
        let mut bad_arg = None;
        for (p, v) in params.iter().zip(args.iter()) {
            if !crate::assign::is_instance(&p.ty, v) {
                bad_arg = Some((p, v));
                break;
            }
        }
        match bad_arg {
            None => {
                return build(&base, |name| {
                    params
                        .iter()
                        .position(|p| p.name == name)
                        .and_then(|i| args.get(i).cloned())
                })
            }
            Some((p, v)) => {
                rejection = Some(crate::mismatch::describe_mismatch(
                    &format!("parameter '{}'", p.name),
                    &p.ty,
                    &crate::infer::infer_set(v),
                ))
            }
        }
    }
    let hash_ok = args.len() == 1;
    if !hash_ok && !arity_ok {
        // Neither form takes this many arguments.
        let (min, max) = (required.min(1), params.len().max(1));
        let got = if args.is_empty() {
            "none".to_string()
        } else {
            args.len().to_string()
        };
        return Err(TypeError::BadArity(format!(
            "'{fname}' expects {}, got {got}",
            count_text(min, max)
        )));
    }
    let hash_reason = crate::mismatch::describe_mismatch(
        "parameter 'hash'",
        &struct_type,
        &crate::infer::infer_set(args.first().unwrap_or(&Value::Undef)),
    );
    let struct_text = if params.is_empty() {
        "Struct".to_string()
    } else {
        struct_type.to_string()
    };
    let pos_reason = rejection.unwrap_or_else(|| {
        let got = if args.is_empty() {
            "none".to_string()
        } else {
            args.len().to_string()
        };
        if params.is_empty() {
            format!("expects no arguments, got {got}")
        } else {
            format!("expects {}, got {got}", count_text(required, params.len()))
        }
    });
    Err(TypeError::Conversion(format!(
        "The function '{fname}' was called with arguments it does not accept. It expects one of:\n  ({struct_text} hash)\n    rejected: {hash_reason}\n  ({})\n    rejected: {pos_reason}",
        signature_text(&params, required)
    )))
}

fn build(
    base: &Arc<ObjectType>,
    given: impl Fn(&str) -> Option<Value>,
) -> Result<Value, TypeError> {
    let mut values = Vec::new();
    for a in base.all_attributes() {
        let v = if a.is_settable() {
            match given(&a.name) {
                Some(v) => v,
                None => match &a.value {
                    Some(d) => d.clone(),
                    None if a.kind == Some(AttrKind::GivenOrDerived) || !a.is_required() => {
                        Value::Undef
                    }
                    None => {
                        return Err(TypeError::Conversion(format!(
                            "{}[{}] expects a value",
                            base.label(),
                            a.name
                        )))
                    }
                },
            }
        } else {
            a.value.clone().unwrap_or(Value::Undef)
        };
        values.push((a.name.clone(), v));
    }
    Ok(Value::Object(Arc::new(ObjectValue {
        object_type: base.clone(),
        values,
    })))
}

// ---------------------------------------------------------------------------------------------
// Type relations

/// `a` is `b` or one of `b`'s ancestors (both unparameterized).
fn is_ancestor_or_self(a: &ObjectType, b: &Arc<ObjectType>) -> bool {
    if a.is_plain_object() {
        return true;
    }
    let same = |x: &ObjectType| match (&a.name, &x.name) {
        (Some(n), Some(m)) => n == m,
        _ => a == x,
    };
    if same(b) {
        return true;
    }
    b.chain().iter().any(|p| same(p))
}

/// Puppet's `match?` of a type parameter value against an instance's or type's value.
fn param_match(have: &Value, want: &Value) -> bool {
    match (have, want) {
        (Value::String(s), Value::Regexp(r)) => r.is_match(s),
        (Value::Type(h), Value::Type(w)) => crate::assign::assignable(w, h),
        (_, Value::Type(w)) => crate::assign::is_instance(w, have),
        (Value::String(a), Value::String(b)) => a.to_lowercase() == b.to_lowercase(),
        (a, b) => a == b,
    }
}

/// `a` accepts `b` (both Object types, possibly parameterized).
pub fn object_assignable(a: &ObjectType, b: &ObjectType) -> bool {
    if a.kind != b.kind {
        return false;
    }
    if a.kind == ObjectKind::TypeSet {
        // The `TypeSet` type itself (Puppet's DEFAULT) accepts every type set.
        let is_default = match crate::params::builtin_object("TypeSet") {
            Type::Object(d) => *a == *d,
            _ => false,
        };
        return a == b || a.text.is_empty() || is_default;
    }
    let bdef: Arc<ObjectType> = match &b.ext {
        Some(e) => e.base.clone(),
        None => Arc::new(b.clone()),
    };
    if !is_ancestor_or_self(a.definition(), &bdef) {
        return false;
    }
    match &a.ext {
        None => true,
        Some(ae) => {
            let bparams: &[(SmolStr, Value)] = match &b.ext {
                Some(be) => &be.params,
                None => &[],
            };
            ae.params.iter().all(|(n, want)| {
                bparams
                    .iter()
                    .find(|(m, _)| m == n)
                    .is_some_and(|(_, have)| param_match(have, want))
            })
        }
    }
}

/// `v` is an instance of the Object type `t`.
pub fn object_instance(t: &ObjectType, v: &Value) -> bool {
    match v {
        Value::Object(o) => {
            if !is_ancestor_or_self(t.definition(), &o.object_type) {
                return false;
            }
            match &t.ext {
                None => true,
                Some(e) => e
                    .params
                    .iter()
                    .all(|(n, want)| o.get(n).is_some_and(|have| param_match(have, want))),
            }
        }
        // Types are Pcore objects: every type value is an instance of plain Object.
        Value::Type(_) => t.is_plain_object(),
        _ => false,
    }
}

/// The type `type($o)` gives: the object's type, parameterized by the values of its
/// type-parameter attributes when it has type parameters (`Error[undef, undef]`).
pub fn infer_object(o: &ObjectValue) -> Type {
    let pts = o.object_type.all_type_parameters();
    if pts.is_empty() {
        return Type::Object(o.object_type.clone());
    }
    let params = pts
        .iter()
        .map(|p| {
            (
                p.name.clone(),
                o.get(&p.name).cloned().unwrap_or(Value::Undef),
            )
        })
        .collect();
    Type::Object(Arc::new(ObjectType {
        ext: Some(ObjectExt {
            base: o.object_type.clone(),
            params,
        }),
        ..ObjectType::empty(o.object_type.name.as_deref())
    }))
}

// ---------------------------------------------------------------------------------------------
// Text

fn member_text(out: &mut String, m: &Member, is_param: bool) {
    let mut parts: Vec<String> = Vec::new();
    if m.is_final && m.kind != Some(AttrKind::Constant) {
        parts.push("final => true".into());
    }
    if m.is_override {
        parts.push("override => true".into());
    }
    if let Some(a) = &m.annotations {
        parts.push(format!("annotations => {}", value_text(a)));
    }
    if let Some(k) = m.kind {
        parts.push(format!("kind => {}", k.as_str()));
    }
    if !is_param {
        if let Some(v) = &m.value {
            parts.push(format!("value => {}", value_text(v)));
        }
    }
    if parts.is_empty() {
        type_string(out, &m.ty);
    } else {
        out.push_str("{type => ");
        type_string(out, &m.ty);
        for p in parts {
            out.push_str(", ");
            out.push_str(&p);
        }
        out.push('}');
    }
}

fn value_text(v: &Value) -> String {
    let mut s = String::new();
    match v {
        // Types inside an initializer hash are shown by name.
        Value::Type(t) => type_string(&mut s, t),
        Value::Hash(h) => {
            s.push('{');
            for (i, (k, x)) in h.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                s.push_str(&value_text(k));
                s.push_str(" => ");
                s.push_str(&value_text(x));
            }
            s.push('}');
        }
        Value::Array(a) => {
            s.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                s.push_str(&value_text(x));
            }
            s.push(']');
        }
        other => value_p(&mut s, other),
    }
    s
}

fn members_text(out: &mut String, ms: &[&Member], is_param: bool) {
    out.push('{');
    for (i, m) in ms.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&puppet_quote(&m.name));
        out.push_str(" => ");
        member_text(out, m, is_param);
    }
    out.push('}');
}

/// Appends the expanded text of an Object type: `Object[{name => 'X', attributes => {...}}]`,
/// or `Name[params]` for a parameterized one.
pub fn expanded_text(out: &mut String, o: &ObjectType) {
    if o.kind == ObjectKind::TypeSet {
        out.push_str(&o.text);
        return;
    }
    if let Some(e) = &o.ext {
        ext_text(out, e);
        return;
    }
    let mut parts: Vec<String> = Vec::new();
    if let Some(a) = &o.annotations {
        parts.push(format!("annotations => {}", value_text(a)));
    }
    if let Some(n) = &o.name {
        parts.push(format!("name => {}", puppet_quote(n)));
    }
    if let Some(p) = &o.parent {
        let mut s = String::from("parent => ");
        type_string(&mut s, p);
        parts.push(s);
    }
    if !o.type_parameters.is_empty() {
        let mut s = String::from("type_parameters => ");
        members_text(&mut s, &o.type_parameters.iter().collect::<Vec<_>>(), true);
        parts.push(s);
    }
    let (consts, others): (Vec<&Member>, Vec<&Member>) = o.attributes.iter().partition(|a| {
        a.kind == Some(AttrKind::Constant)
            && a.value
                .as_ref()
                .is_some_and(|v| generalize(&infer(v)) == a.ty)
    });
    if !others.is_empty() {
        let mut s = String::from("attributes => ");
        members_text(&mut s, &others, false);
        parts.push(s);
    }
    if !consts.is_empty() {
        let mut s = String::from("constants => {");
        for (i, c) in consts.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            s.push_str(&puppet_quote(&c.name));
            s.push_str(" => ");
            s.push_str(&value_text(c.value.as_ref().unwrap_or(&Value::Undef)));
        }
        s.push('}');
        parts.push(s);
    }
    if !o.functions.is_empty() {
        let mut s = String::from("functions => ");
        members_text(&mut s, &o.functions.iter().collect::<Vec<_>>(), false);
        parts.push(s);
    }
    if let Some(eq) = &o.equality {
        let quoted: Vec<String> = eq.iter().map(|e| puppet_quote(e)).collect();
        parts.push(format!("equality => [{}]", quoted.join(", ")));
    }
    if let Some(c) = &o.checks {
        parts.push(format!("checks => {}", value_text(c)));
    }
    out.push_str("Object[{");
    out.push_str(&parts.join(", "));
    out.push_str("}]");
}

fn ext_text(out: &mut String, e: &ObjectExt) {
    out.push_str(e.base.label());
    out.push('[');
    let pts = e.base.all_type_parameters();
    if pts.len() > 2 {
        out.push('{');
        for (i, (n, v)) in e.params.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&puppet_quote(n));
            out.push_str(" => ");
            out.push_str(&value_text(v));
        }
        out.push('}');
    } else {
        let mut vals: Vec<Option<&Value>> = pts
            .iter()
            .map(|p| e.params.iter().find(|(n, _)| *n == p.name).map(|(_, v)| v))
            .collect();
        while vals.last().is_some_and(|v| v.is_none()) {
            vals.pop();
        }
        for (i, v) in vals.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            match v {
                Some(v) => out.push_str(&value_text(v)),
                None => out.push_str("default"),
            }
        }
    }
    out.push(']');
}

/// Appends the text of an Object type inside another type: its name (parameterized types
/// with their parameters), or the expanded form for an anonymous type.
pub fn nested_text(out: &mut String, o: &ObjectType) {
    if o.ext.is_some() || o.kind == ObjectKind::TypeSet {
        return expanded_text(out, o);
    }
    match &o.name {
        Some(n) => out.push_str(n),
        None if o.is_plain_object() => out.push_str("Object"),
        None => expanded_text(out, o),
    }
}

/// Appends the `%p` text of an object: `MyObject({'a' => 1})`.
pub fn value_text_p(out: &mut String, o: &ObjectValue) {
    out.push_str(o.type_name());
    out.push_str("({");
    for (i, (n, v)) in o.init_hash().iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&puppet_quote(n));
        out.push_str(" => ");
        value_p(out, v);
    }
    out.push_str("})");
}

// ---------------------------------------------------------------------------------------------
// Built-in Pcore objects

fn t(s: &str) -> Type {
    crate::params::resolve_type_name(s)
}

fn string1() -> Type {
    Type::string_sized(crate::types::IntRange::new(Some(1), None))
}

fn error_type() -> ObjectType {
    let matchable = Type::variant_of(vec![
        Type::any_string(),
        Type::Regexp(None),
        Type::type_of(t("Enum")),
        Type::type_of(t("Pattern")),
        Type::type_of(Type::NotUndef(None)),
        Type::type_of(Type::Undef),
    ]);
    let opt = |ty: Type| {
        let mut m = Member::plain("", Type::optional(ty));
        m.value = Some(Value::Undef);
        m
    };
    let named = |name: &str, mut m: Member| {
        m.name = SmolStr::new(name);
        m
    };
    let mut o = ObjectType::empty(Some("Error"));
    o.type_parameters = vec![
        Member::plain("kind", matchable.clone()),
        Member::plain("issue_code", matchable),
    ];
    o.attributes = vec![
        Member::plain("msg", string1()),
        named("kind", opt(string1())),
        named("details", opt(Type::hash(string1(), Type::data(), None))),
        named("issue_code", opt(string1())),
    ];
    o.functions = vec![Member::plain(
        "message",
        Type::callable(
            Some(crate::types::TupleType {
                types: vec![],
                size: Some(crate::types::IntRange::new(Some(0), Some(0))),
            }),
            None,
            Some(string1()),
        ),
    )];
    o
}

fn deferred_type() -> ObjectType {
    let mut o = ObjectType::empty(Some("Deferred"));
    let pattern =
        match crate::regexp::Regexp::new("\\A[$]?[a-z][a-z0-9_]*(?:::[a-z][a-z0-9_]*)*\\z") {
            Ok(r) => Type::Pattern(Arc::new(vec![r])),
            Err(_) => Type::any_string(),
        };
    let mut args = Member::plain("arguments", Type::optional(Type::array_of_any()));
    args.value = Some(Value::Undef);
    o.attributes = vec![Member::plain("name", pattern), args];
    o
}

/// `Puppet::LookupContext`: what a Hiera backend function receives as its `context`,
/// Puppet 7.23's Pcore type (`Puppet::Pops::Lookup::Context`): the environment's and
/// module's names, and functions whose implementation the lookup calling the function
/// provides.
fn lookup_context_type() -> ObjectType {
    use crate::types::{IntRange, TupleType};
    // `n` arguments of any type (`Callable[n, n]`), or exactly these (`Callable[T, U]`).
    let params = |n: i64| TupleType {
        types: if n == 0 { vec![] } else { vec![Type::Unit] },
        size: Some(IntRange::new(Some(n), Some(n))),
    };
    let args = |types: Vec<Type>| TupleType { types, size: None };
    let callable = |p: TupleType, block: Option<Type>, returns: Option<Type>| {
        Type::callable(Some(p), block, returns)
    };
    let key = || Type::optional(t("Scalar"));
    let mut o = ObjectType::empty(Some("Puppet::LookupContext"));
    o.parent = Some(Type::Any);
    let mut env = Member::plain("environment_name", string1());
    env.kind = Some(AttrKind::Derived);
    let module = Member::plain(
        "module_name",
        Type::variant_of(vec![string1(), Type::Undef]),
    );
    o.attributes = vec![env, module];
    let block = |n: i64| callable(params(n), None, None);
    o.functions = vec![
        Member::plain("not_found", callable(params(0), None, Some(Type::Undef))),
        Member::plain(
            "explain",
            callable(params(0), Some(block(0)), Some(Type::Undef)),
        ),
        Member::plain("interpolate", callable(params(1), None, None)),
        Member::plain("cache", callable(args(vec![key(), Type::Any]), None, None)),
        Member::plain(
            "cache_all",
            callable(
                args(vec![Type::hash(key(), Type::Any, None)]),
                None,
                Some(Type::Undef),
            ),
        ),
        Member::plain(
            "cache_has_key",
            callable(args(vec![key()]), None, Some(Type::Boolean(None))),
        ),
        Member::plain("cached_value", callable(args(vec![key()]), None, None)),
        Member::plain(
            "cached_entries",
            Type::variant_of(vec![
                callable(params(0), Some(block(1)), Some(Type::Undef)),
                callable(params(0), Some(block(2)), Some(Type::Undef)),
                callable(
                    params(0),
                    None,
                    Some(Type::Iterable(Some(Arc::new(Type::tuple(
                        vec![key(), Type::Any],
                        None,
                    ))))),
                ),
            ]),
        ),
        Member::plain(
            "cached_file_data",
            callable(
                // (Puppet declares the block `callable([1, 1])`: an Array[Integer]
                // parameter, as its type printing shows.)
                args(vec![
                    Type::any_string(),
                    Type::optional(callable(
                        args(vec![Type::array(t("Integer"), None)]),
                        None,
                        None,
                    )),
                ]),
                None,
                None,
            ),
        ),
    ];
    o
}

/// The built-in Object types: `Object`, `Error`, `Deferred`, `Annotation`, `RubyMethod`,
/// `Pcore` (the type whose `annotate` adds several annotations at once) and
/// `Puppet::LookupContext`.
pub fn builtin(name: &str) -> Option<Arc<ObjectType>> {
    static LOOKUP_CONTEXT: OnceLock<Arc<ObjectType>> = OnceLock::new();
    static PCORE: OnceLock<Arc<ObjectType>> = OnceLock::new();
    static ERROR: OnceLock<Arc<ObjectType>> = OnceLock::new();
    static DEFERRED: OnceLock<Arc<ObjectType>> = OnceLock::new();
    static OBJECT: OnceLock<Arc<ObjectType>> = OnceLock::new();
    static ANNOTATION: OnceLock<Arc<ObjectType>> = OnceLock::new();
    static RUBY_METHOD: OnceLock<Arc<ObjectType>> = OnceLock::new();
    Some(match name {
        "Object" => OBJECT
            .get_or_init(|| Arc::new(ObjectType::empty(None)))
            .clone(),
        "Error" => ERROR.get_or_init(|| Arc::new(error_type())).clone(),
        "Pcore" => PCORE
            .get_or_init(|| Arc::new(ObjectType::empty(Some("Pcore"))))
            .clone(),
        "Deferred" => DEFERRED.get_or_init(|| Arc::new(deferred_type())).clone(),
        "Puppet::LookupContext" => LOOKUP_CONTEXT
            .get_or_init(|| Arc::new(lookup_context_type()))
            .clone(),
        "Annotation" => ANNOTATION
            .get_or_init(|| Arc::new(ObjectType::empty(Some("Annotation"))))
            .clone(),
        "RubyMethod" => RUBY_METHOD
            .get_or_init(|| {
                let mut o = ObjectType::empty(Some("RubyMethod"));
                o.parent = Some(Type::Object(
                    builtin("Annotation").unwrap_or_else(|| Arc::new(ObjectType::empty(None))),
                ));
                let mut params = Member::plain("parameters", Type::optional(Type::any_string()));
                params.value = Some(Value::Undef);
                o.attributes = vec![Member::plain("body", Type::any_string()), params];
                Arc::new(o)
            })
            .clone(),
        _ => return None,
    })
}

/// An `Error` object.
pub fn error_value(msg: &str, kind: Option<&str>, issue_code: Option<&str>) -> Value {
    let mut h = crate::value::ValueMap::default();
    h.insert(key("msg"), Value::string(msg));
    if let Some(k) = kind {
        h.insert(key("kind"), Value::string(k));
    }
    if let Some(c) = issue_code {
        h.insert(key("issue_code"), Value::string(c));
    }
    let Some(et) = builtin("Error") else {
        return Value::Undef;
    };
    new_object(&et, &[Value::Hash(Arc::new(h))]).unwrap_or(Value::Undef)
}
