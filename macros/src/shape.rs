//! The shape of one branch, as far as the macro can see it from syntax, and its `const` tokens.

use crate::krate::Krate;
use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::{GenericArgument, PathArguments, Type};

/// One branch of a union, or the whole shape of a non-union.
#[derive(Clone)]
pub enum Branch {
    Object,
    Array,
    Scalar,
    Null,
    /// Adds nothing (a recursive `Box<Self>` variant: the union already holds its branches).
    Nothing,
    /// The type's own `ProviderSafe::SHAPE`, known only to the compiler.
    Of(Box<Type>),
    /// `Option` of a branch.
    Nullable(Box<Branch>),
    /// A hand-written schema (`#[tool_schema(opaque)]`): unknown to the macro, checked at run time.
    Opaque,
}

impl Branch {
    /// `Some(true)` when certainly structured, `Some(false)` when certainly not, `None` when it
    /// depends on another type's shape.
    pub fn structured(&self) -> Option<bool> {
        match self {
            Branch::Object | Branch::Array => Some(true),
            Branch::Scalar | Branch::Null | Branch::Nothing | Branch::Opaque => Some(false),
            Branch::Of(_) => None,
            Branch::Nullable(inner) => inner.structured(),
        }
    }

    pub fn tokens(&self, krate: Krate) -> TokenStream {
        match self {
            Branch::Object => quote!(#krate::Shape::OBJECT),
            Branch::Array => quote!(#krate::Shape::ARRAY),
            Branch::Scalar => quote!(#krate::Shape::SCALAR),
            Branch::Null => quote!(#krate::Shape::NULL),
            Branch::Nothing => quote!(#krate::Shape::NEVER),
            Branch::Opaque => quote!(#krate::Shape::OPAQUE),
            Branch::Of(ty) => quote!(<#ty as #krate::ProviderSafe>::SHAPE),
            Branch::Nullable(inner) => {
                let inner = inner.tokens(krate);
                quote!(#inner.or_null())
            }
        }
    }
}

/// Whether `ty` refers to the type being defined anywhere inside it: such a type's shape would
/// depend on the shape being defined, which `const` evaluation cannot do.
///
/// Only `Self` and the bare, unqualified name of the type being defined count: a path with more
/// than one segment (`v1::Filter`, `crate::v1::Filter`, `super::Filter`, `self::v1::Filter`)
/// names another item, even when its last segment is the same name. Inside the module that
/// defines `Filter`, a bare `Filter` can only resolve to it (a `use` of another `Filter` would
/// clash with the definition); a renaming import (`use other::Filter as F`) is a different
/// name and is counted through its own `ProviderSafe::SHAPE` by the compiler.
pub fn mentions(ty: &Type, ident: &Ident) -> bool {
    match ty {
        Type::Path(p) => {
            if let Some(q) = &p.qself {
                if mentions(&q.ty, ident) {
                    return true;
                }
            }
            let path = &p.path;
            let first = path.segments.first();
            let is_self = p.qself.is_none()
                && path.leading_colon.is_none()
                && first.is_some_and(|s| {
                    s.ident == "Self" || (path.segments.len() == 1 && s.ident == *ident)
                });
            is_self
                || path
                    .segments
                    .iter()
                    .any(|s| args_mention(&s.arguments, ident))
        }
        Type::Array(a) => mentions(&a.elem, ident),
        Type::Slice(s) => mentions(&s.elem, ident),
        Type::Reference(r) => mentions(&r.elem, ident),
        Type::Ptr(p) => mentions(&p.elem, ident),
        Type::Paren(p) => mentions(&p.elem, ident),
        Type::Group(g) => mentions(&g.elem, ident),
        Type::Tuple(t) => t.elems.iter().any(|e| mentions(e, ident)),
        _ => false,
    }
}

/// Whether `ty` names `Self` anywhere ([`mentions`] of `Self`, without making an identifier).
pub fn mentions_self(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => {
            p.qself.as_ref().is_some_and(|q| mentions_self(&q.ty))
                || p.path.segments.iter().any(|s| {
                    s.ident == "Self"
                        || match &s.arguments {
                            PathArguments::AngleBracketed(a) => {
                                a.args.iter().any(|arg| match arg {
                                    GenericArgument::Type(t) => mentions_self(t),
                                    GenericArgument::AssocType(a) => mentions_self(&a.ty),
                                    _ => false,
                                })
                            }
                            _ => false,
                        }
                })
        }
        Type::Array(a) => mentions_self(&a.elem),
        Type::Slice(s) => mentions_self(&s.elem),
        Type::Reference(r) => mentions_self(&r.elem),
        Type::Ptr(p) => mentions_self(&p.elem),
        Type::Paren(p) => mentions_self(&p.elem),
        Type::Group(g) => mentions_self(&g.elem),
        Type::Tuple(t) => t.elems.iter().any(mentions_self),
        _ => false,
    }
}

fn args_mention(args: &PathArguments, ident: &Ident) -> bool {
    match args {
        PathArguments::AngleBracketed(a) => a.args.iter().any(|arg| match arg {
            GenericArgument::Type(t) => mentions(t, ident),
            GenericArgument::AssocType(a) => mentions(&a.ty, ident),
            _ => false,
        }),
        // `Fn(..)` sugar publishes no schema of ours.
        PathArguments::Parenthesized(_) | PathArguments::None => false,
    }
}

/// Whether `ty` is itself the type being defined (`Self`, or its bare name with any generic
/// arguments).
fn is_itself(ty: &Type, ident: &Ident) -> bool {
    match ty {
        Type::Path(p) if p.qself.is_none() && p.path.leading_colon.is_none() => {
            let segs = &p.path.segments;
            segs.len() == 1 && (segs[0].ident == *ident || segs[0].ident == "Self")
        }
        _ => false,
    }
}

/// Whether `ty` names any of the generic type parameters.
pub fn mentions_any(ty: &Type, params: &[Ident]) -> bool {
    params.iter().any(|p| {
        fn walk(tokens: TokenStream, p: &Ident) -> bool {
            tokens.into_iter().any(|tt| match tt {
                TokenTree::Ident(i) => i == *p,
                TokenTree::Group(g) => walk(g.stream(), p),
                _ => false,
            })
        }
        walk(ty.to_token_stream(), p)
    })
}

fn last_segment(ty: &Type) -> Option<(String, Vec<Type>)> {
    let Type::Path(path) = ty else { return None };
    let seg = path.path.segments.last()?;
    let args = match &seg.arguments {
        PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|a| match a {
                GenericArgument::Type(t) => Some(t.clone()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Some((seg.ident.to_string(), args))
}

/// The shape of a type that refers to the type being defined, read from its outer wrappers:
/// `Vec<Self>` is an array, `Option<Box<Self>>` the type itself or null. A wrapper the macro does
/// not know (`Wrapper<Filter>`) is left to the compiler (`Of`): a struct's shape does not depend
/// on its fields, so that evaluation terminates; a cycle through other enums is rustc's cycle error.
pub fn recursive_branch(ty: &Type, ident: &Ident) -> Branch {
    if is_itself(ty, ident) {
        // The type being defined: its branches are already in the union.
        return Branch::Nothing;
    }
    match ty {
        Type::Array(_) | Type::Slice(_) | Type::Tuple(_) => return Branch::Array,
        Type::Reference(r) => return recursive_branch(&r.elem, ident),
        Type::Paren(p) => return recursive_branch(&p.elem, ident),
        Type::Group(g) => return recursive_branch(&g.elem, ident),
        _ => {}
    }
    match last_segment(ty) {
        Some((name, args)) => match name.as_str() {
            "Vec" | "VecDeque" | "HashSet" | "BTreeSet" | "IndexSet" | "LinkedList" => {
                Branch::Array
            }
            "HashMap" | "BTreeMap" | "IndexMap" => Branch::Object,
            "Option" => match args.first() {
                Some(inner) => Branch::Nullable(Box::new(recursive_branch(inner, ident))),
                None => Branch::Of(Box::new(ty.clone())),
            },
            "Box" | "Rc" | "Arc" | "Cow" => match args.first() {
                Some(inner) => recursive_branch(inner, ident),
                None => Branch::Of(Box::new(ty.clone())),
            },
            _ => Branch::Of(Box::new(ty.clone())),
        },
        None => Branch::Of(Box::new(ty.clone())),
    }
}

/// Whether `ty` is a standard type built only from standard scalar types (`String`,
/// `Option<u32>`, `Vec<String>`, `HashMap<String, f64>`, `[u8; 4]`): its schema is known to be
/// contract-safe, so the derive emits no check and no visit for it (it would cost compile time
/// and prove nothing). Read from the path as written: a bare name or one under `std`/`core`/
/// `alloc`. A type that shadows a standard name (`struct String`) is not checked at compile time;
/// `check_contract()` still judges the published schema.
/// The hint trait (`toolschema::__private::Uuid1`, ...) for a type named like one toolschema
/// implements `ProviderSafe` for behind a feature: the last segment of its path.
pub fn feature_hint(ty: &Type) -> Option<&'static str> {
    let Type::Path(p) = ty else {
        return None;
    };
    let last = p.path.segments.last()?.ident.to_string();
    Some(match last.as_str() {
        "Uuid" => "Uuid1",
        "DateTime" | "NaiveDate" | "NaiveDateTime" | "NaiveTime" | "Weekday" | "TimeDelta" => {
            "Chrono04"
        }
        "Url" => "Url2",
        "IndexMap" | "IndexSet" => "Indexmap2",
        _ => return None,
    })
}

pub fn known_safe(ty: &Type) -> bool {
    match ty {
        Type::Array(a) => known_safe(&a.elem),
        Type::Slice(s) => known_safe(&s.elem),
        Type::Reference(r) => known_safe(&r.elem),
        Type::Paren(p) => known_safe(&p.elem),
        Type::Group(g) => known_safe(&g.elem),
        Type::Tuple(t) => t.elems.iter().all(known_safe),
        Type::Path(p) if p.qself.is_none() => {
            let segs = &p.path.segments;
            let Some(last) = segs.last() else {
                return false;
            };
            let std_path = segs.len() == 1 && p.path.leading_colon.is_none()
                || segs
                    .first()
                    .is_some_and(|s| s.ident == "std" || s.ident == "core" || s.ident == "alloc");
            if !std_path
                || segs
                    .iter()
                    .take(segs.len() - 1)
                    .any(|s| !s.arguments.is_empty())
            {
                return false;
            }
            let args: Vec<&Type> = match &last.arguments {
                PathArguments::None => Vec::new(),
                PathArguments::AngleBracketed(a) => {
                    let mut types = Vec::new();
                    for arg in &a.args {
                        match arg {
                            GenericArgument::Type(t) => types.push(t),
                            GenericArgument::Lifetime(_) => {}
                            _ => return false,
                        }
                    }
                    types
                }
                PathArguments::Parenthesized(_) => return false,
            };
            let name = last.ident.to_string();
            match (name.as_str(), args.as_slice()) {
                (
                    "bool" | "char" | "str" | "String" | "i8" | "i16" | "i32" | "i64" | "i128"
                    | "isize" | "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "f32" | "f64"
                    | "PathBuf",
                    [],
                ) => true,
                (
                    "Option" | "Vec" | "VecDeque" | "BTreeSet" | "HashSet" | "Box" | "Rc" | "Arc",
                    [inner],
                ) => known_safe(inner),
                ("HashMap" | "BTreeMap", [key, value]) => is_string(key) && known_safe(value),
                _ => false,
            }
        }
        _ => false,
    }
}

fn is_string(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == "String" && s.arguments.is_empty())
        && (p.path.segments.len() == 1 || p.path.segments.first().is_some_and(|s| s.ident == "std" || s.ident == "alloc")))
}

/// `Vec < Foo >` → `Vec<Foo>`: a type as a person writes it, for messages.
pub fn display_tokens(tokens: &TokenStream) -> String {
    let raw = tokens.to_string();
    let mut out = String::with_capacity(raw.len());
    for part in raw.split(' ') {
        let glue = matches!(part, "<" | ">" | "::" | "," | ">>" | ")" | "]" | ";")
            || out.ends_with('<')
            || out.ends_with("::")
            || out.ends_with('&')
            || out.ends_with('(')
            || out.ends_with('[');
        if !glue && !out.is_empty() {
            out.push(' ');
        }
        out.push_str(part);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn displays_types_compactly() {
        let ty: Type = parse_quote!(std::collections::HashMap<String, Vec<Option<Foo>>>);
        assert_eq!(
            display_tokens(&ty.to_token_stream()),
            "std::collections::HashMap<String, Vec<Option<Foo>>>"
        );
        let ty: Type = parse_quote!(&'a [u8; 4]);
        assert_eq!(display_tokens(&ty.to_token_stream()), "&'a [u8; 4]");
    }

    #[test]
    fn recursive_shapes() {
        let me: Ident = parse_quote!(Json);
        let cases: Vec<(Type, Option<bool>)> = vec![
            (parse_quote!(Vec<Json>), Some(true)),
            (parse_quote!(BTreeMap<String, Json>), Some(true)),
            (parse_quote!(Box<Json>), Some(false)),
            (parse_quote!(Box<Self>), Some(false)),
            (parse_quote!(Option<Box<Vec<Json>>>), Some(true)),
            // An unknown wrapper is counted by the compiler.
            (parse_quote!(Wrapper<Json>), None),
        ];
        for (ty, want) in cases {
            assert!(
                mentions(&ty, &me),
                "{}",
                display_tokens(&ty.to_token_stream())
            );
            assert_eq!(
                recursive_branch(&ty, &me).structured(),
                want,
                "{}",
                display_tokens(&ty.to_token_stream())
            );
        }
    }

    #[test]
    fn known_safe_std_types() {
        let safe: Vec<Type> = vec![
            parse_quote!(String),
            parse_quote!(Option<u32>),
            parse_quote!(Vec<String>),
            parse_quote!(std::collections::HashMap<String, f64>),
            parse_quote!(BTreeMap<String, Vec<Option<bool>>>),
            parse_quote!([u8; 4]),
            parse_quote!(&'a str),
            parse_quote!((u32, String)),
        ];
        for ty in safe {
            assert!(known_safe(&ty), "{}", display_tokens(&ty.to_token_stream()));
        }
        let unknown: Vec<Type> = vec![
            parse_quote!(Item),
            parse_quote!(Option<Kind>),
            parse_quote!(Vec<T>),
            parse_quote!(HashMap<u32, String>),
            parse_quote!(HashMap<String, Item>),
            parse_quote!(my::String),
            parse_quote!(serde_json::Value),
            parse_quote!(Cow<'a, str>),
        ];
        for ty in unknown {
            assert!(
                !known_safe(&ty),
                "{}",
                display_tokens(&ty.to_token_stream())
            );
        }
    }

    #[test]
    fn only_bare_name_or_self_is_self_reference() {
        let me: Ident = parse_quote!(Filter);
        let refers: Vec<Type> = vec![
            parse_quote!(Filter),
            parse_quote!(Self),
            parse_quote!(Box<Filter>),
            parse_quote!(std::vec::Vec<Filter>),
            parse_quote!(Wrapper<Filter>),
            parse_quote!(&'a [Filter]),
            parse_quote!((u32, Filter)),
        ];
        for ty in refers {
            assert!(
                mentions(&ty, &me),
                "{}",
                display_tokens(&ty.to_token_stream())
            );
        }
        let others: Vec<Type> = vec![
            parse_quote!(v1::Filter),
            parse_quote!(crate::v1::Filter),
            parse_quote!(super::Filter),
            parse_quote!(self::v1::Filter),
            parse_quote!(::v1::Filter),
            parse_quote!(Wrapper<v1::Filter>),
            parse_quote!(Box<super::Filter>),
            parse_quote!(FilterKind),
            parse_quote!(Vec<JsonValue>),
        ];
        for ty in others {
            assert!(
                !mentions(&ty, &me),
                "{}",
                display_tokens(&ty.to_token_stream())
            );
        }
    }
}
