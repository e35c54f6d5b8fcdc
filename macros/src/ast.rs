//! Our model of the input, read through serde's own attribute parser (`serde_derive_internals`,
//! Deserialize side), after the schemars pre-pass. Owned, so later phases need no lifetimes.

use proc_macro2::{Group, Ident, Span, TokenStream, TokenTree};
use quote::ToTokens;
use serde_derive_internals::{Ctxt, Derive, ast, attr::TagType};
use syn::{DeriveInput, Type};

use crate::attr::{self, ContainerAttrs, SchemaSource};
use crate::errors::Errors;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Named,
    Tuple,
    Newtype,
    Unit,
}

impl From<ast::Style> for Style {
    fn from(s: ast::Style) -> Self {
        match s {
            ast::Style::Struct => Style::Named,
            ast::Style::Tuple => Style::Tuple,
            ast::Style::Newtype => Style::Newtype,
            ast::Style::Unit => Style::Unit,
        }
    }
}

/// serde's enum representation.
#[derive(Clone, Debug)]
pub enum Repr {
    External,
    Internal { tag: String },
    Adjacent { tag: String, content: String },
    Untagged,
}

pub struct Field {
    /// `x` for named fields, `0`, `1`, ... for tuple fields.
    pub name: String,
    /// The type whose schema the field publishes (`#[schemars(with)]` applied).
    pub ty: Type,
    /// The field's type as written, for error spans.
    pub written: Type,
    /// Not deserialized: not in the schema.
    pub skipped: bool,
    pub flatten: bool,
    /// `#[schemars(schema_with)]`: the schema is hand-written.
    pub opaque: bool,
}

pub struct Variant {
    pub ident: Ident,
    pub style: Style,
    pub fields: Vec<Field>,
    pub skipped: bool,
    /// `#[serde(untagged)]` on the variant (serde >= 1.0.181).
    pub untagged: bool,
}

pub enum Data {
    Struct(Style, Vec<Field>),
    Enum(Repr, Vec<Variant>),
}

pub struct Container {
    pub ident: Ident,
    pub data: Data,
    pub transparent: bool,
    pub attrs: ContainerAttrs,
    pub generics: syn::Generics,
}

impl Container {
    pub fn is_generic(&self) -> bool {
        !self.generics.params.is_empty()
    }
}

fn field(errors: &mut Errors, f: &ast::Field<'_>, me: &TokenStream) -> Field {
    attr::reject_misplaced(errors, &f.original.attrs, "field");
    let (ty, opaque) = match attr::schema_source(errors, &f.original.attrs) {
        SchemaSource::Own => (f.ty.clone(), false),
        SchemaSource::With(ty) => (*ty, false),
        SchemaSource::Opaque => (f.ty.clone(), true),
    };
    let name = match &f.member {
        syn::Member::Named(ident) => ident.to_string(),
        syn::Member::Unnamed(index) => index.index.to_string(),
    };
    Field {
        name,
        ty: replace_self(&ty, me),
        written: f.ty.clone(),
        skipped: f.attrs.skip_deserializing(),
        flatten: f.attrs.flatten(),
        opaque,
    }
}

/// Reads the input. `None` when serde itself rejects the attributes: serde_derive reports those,
/// and we emit only fallback impls so nothing is reported twice.
pub fn parse(errors: &mut Errors, input: &DeriveInput) -> Option<Container> {
    let attrs = attr::container(errors, &input.attrs);
    if let syn::Data::Union(u) = &input.data {
        errors.spanned(
            u.union_token,
            "a Rust `union` has no JSON Schema\nfix: use a struct with named fields or an enum",
        );
        return None;
    }
    let view = crate::prepass::serde_view(input);
    let cx = Ctxt::new();
    let private = Ident::new("__private", Span::call_site());
    let parsed = ast::Container::from_ast(&cx, &view, Derive::Deserialize, &private);
    let serde_ok = cx.check().is_ok();
    let cont = parsed.filter(|_| serde_ok)?;
    // The generated checks sit outside the type's impls, where `Self` means nothing: each
    // field's type is checked with `Self` written out.
    let (_, ty_generics, _) = input.generics.split_for_impl();
    let ident = &input.ident;
    let me = quote::quote!(#ident #ty_generics);
    let data = match &cont.data {
        ast::Data::Struct(style, fields) => Data::Struct(
            (*style).into(),
            fields.iter().map(|f| field(errors, f, &me)).collect(),
        ),
        ast::Data::Enum(variants) => {
            let repr = match cont.attrs.tag() {
                TagType::External => Repr::External,
                TagType::Internal { tag } => Repr::Internal { tag: tag.clone() },
                TagType::Adjacent { tag, content } => Repr::Adjacent {
                    tag: tag.clone(),
                    content: content.clone(),
                },
                TagType::None => Repr::Untagged,
            };
            let variants = variants
                .iter()
                .map(|v| {
                    attr::reject_misplaced(errors, &v.original.attrs, "variant");
                    Variant {
                        ident: v.ident.clone(),
                        style: v.style.into(),
                        fields: v.fields.iter().map(|f| field(errors, f, &me)).collect(),
                        skipped: v.attrs.skip_deserializing(),
                        untagged: v.attrs.untagged(),
                    }
                })
                .collect();
            Data::Enum(repr, variants)
        }
    };
    Some(Container {
        ident: input.ident.clone(),
        data,
        transparent: cont.attrs.transparent(),
        attrs,
        generics: input.generics.clone(),
    })
}

/// `ty` with every `Self` replaced by `me` (the type being derived, with its generics).
fn replace_self(ty: &Type, me: &TokenStream) -> Type {
    if !crate::shape::mentions(ty, &Ident::new("Self", Span::call_site())) {
        return ty.clone();
    }
    fn replace(tokens: TokenStream, me: &TokenStream) -> TokenStream {
        tokens
            .into_iter()
            .flat_map(|tt| match tt {
                TokenTree::Ident(i) if i == "Self" => me.clone(),
                TokenTree::Group(g) => {
                    let mut group = Group::new(g.delimiter(), replace(g.stream(), me));
                    group.set_span(g.span());
                    TokenTree::Group(group).into()
                }
                other => other.into(),
            })
            .collect()
    }
    syn::parse2(replace(ty.to_token_stream(), me)).unwrap_or_else(|_| ty.clone())
}
