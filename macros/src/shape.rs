//! The shape of one branch, as far as the macro can see it from syntax, and its `const` tokens.

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
}

impl Branch {
    /// `Some(true)` when certainly structured, `Some(false)` when certainly not, `None` when it
    /// depends on another type's shape.
    pub fn structured(&self) -> Option<bool> {
        match self {
            Branch::Object | Branch::Array => Some(true),
            Branch::Scalar | Branch::Null | Branch::Nothing => Some(false),
            Branch::Of(_) => None,
            Branch::Nullable(inner) => inner.structured(),
        }
    }

    pub fn tokens(&self, krate: &TokenStream) -> TokenStream {
        match self {
            Branch::Object => quote!(#krate::Shape::OBJECT),
            Branch::Array => quote!(#krate::Shape::ARRAY),
            Branch::Scalar => quote!(#krate::Shape::SCALAR),
            Branch::Null => quote!(#krate::Shape::NULL),
            Branch::Nothing => quote!(#krate::Shape::NEVER),
            Branch::Of(ty) => quote!(<#ty as #krate::ProviderSafe>::SHAPE),
            Branch::Nullable(inner) => {
                let inner = inner.tokens(krate);
                quote!(#inner.or_null())
            }
        }
    }
}

/// Whether `ty` names `ident` (or `Self`) anywhere: such a type's shape would depend on the shape
/// being defined, which `const` evaluation cannot do.
pub fn mentions(ty: &Type, ident: &Ident) -> bool {
    fn walk(tokens: TokenStream, ident: &Ident) -> bool {
        tokens.into_iter().any(|tt| match tt {
            TokenTree::Ident(i) => i == *ident || i == "Self",
            TokenTree::Group(g) => walk(g.stream(), ident),
            _ => false,
        })
    }
    walk(ty.to_token_stream(), ident)
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

/// The shape of a type that refers to the type being defined, read from its outer wrappers.
pub fn recursive_branch(ty: &Type) -> Branch {
    match ty {
        Type::Array(_) | Type::Slice(_) | Type::Tuple(_) => return Branch::Array,
        Type::Reference(r) => return recursive_branch(&r.elem),
        Type::Paren(p) => return recursive_branch(&p.elem),
        Type::Group(g) => return recursive_branch(&g.elem),
        _ => {}
    }
    match last_segment(ty) {
        Some((name, args)) => match name.as_str() {
            "Vec" | "VecDeque" | "HashSet" | "BTreeSet" | "IndexSet" | "LinkedList" => {
                Branch::Array
            }
            "HashMap" | "BTreeMap" | "IndexMap" => Branch::Object,
            "Option" => match args.first() {
                Some(inner) => Branch::Nullable(Box::new(recursive_branch(inner))),
                None => Branch::Nothing,
            },
            "Box" | "Rc" | "Arc" | "Cow" => match args.first() {
                Some(inner) => recursive_branch(inner),
                None => Branch::Nothing,
            },
            // The type being defined: its branches are already in the union.
            _ => Branch::Nothing,
        },
        None => Branch::Nothing,
    }
}

/// `Vec < Foo >` → `Vec<Foo>`: a type as a person writes it, for messages.
pub fn display(ty: &Type) -> String {
    let raw = ty.to_token_stream().to_string();
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
            display(&ty),
            "std::collections::HashMap<String, Vec<Option<Foo>>>"
        );
        let ty: Type = parse_quote!(&'a [u8; 4]);
        assert_eq!(display(&ty), "&'a [u8; 4]");
    }

    #[test]
    fn recursive_shapes() {
        let me: Ident = parse_quote!(Json);
        let cases: Vec<(Type, Option<bool>)> = vec![
            (parse_quote!(Vec<Json>), Some(true)),
            (parse_quote!(BTreeMap<String, Json>), Some(true)),
            (parse_quote!(Box<Json>), Some(false)),
            (parse_quote!(Option<Box<Vec<Json>>>), Some(true)),
        ];
        for (ty, want) in cases {
            assert!(mentions(&ty, &me));
            assert_eq!(recursive_branch(&ty).structured(), want, "{}", display(&ty));
        }
        assert!(!mentions(&parse_quote!(Vec<JsonValue>), &me));
    }
}
