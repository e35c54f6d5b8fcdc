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
    /// `ty` is not `written` (`#[schemars(with)]`, or `Self` spelled out).
    pub rewritten: bool,
    /// Not deserialized: not in the schema.
    pub skipped: bool,
    pub flatten: bool,
    /// `#[schemars(schema_with)]`: the schema is hand-written (the key, for error spans).
    pub opaque: Option<syn::Path>,
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

/// What serde says about one field.
struct SerdeField<'a> {
    attrs: &'a [syn::Attribute],
    member: &'a syn::Member,
    ty: &'a Type,
    skipped: bool,
    flatten: bool,
}

impl<'a> SerdeField<'a> {
    fn of(f: &'a ast::Field<'a>) -> Self {
        SerdeField {
            attrs: &f.original.attrs,
            member: &f.member,
            ty: f.ty,
            skipped: f.attrs.skip_deserializing(),
            flatten: f.attrs.flatten(),
        }
    }
}

fn field(errors: &mut Errors, f: SerdeField<'_>, me: &TokenStream) -> Field {
    attr::reject_misplaced(errors, f.attrs, "field");
    let (ty, opaque, with) = match attr::schema_source(errors, f.attrs) {
        SchemaSource::Own => (f.ty.clone(), None, false),
        SchemaSource::With(ty) => (*ty, None, true),
        SchemaSource::Opaque(key) => (f.ty.clone(), Some(key), false),
    };
    let (ty, replaced) = replace_self(ty, me);
    let name = match f.member {
        syn::Member::Named(ident) => ident.to_string(),
        syn::Member::Unnamed(index) => index.index.to_string(),
    };
    Field {
        name,
        ty,
        written: f.ty.clone(),
        rewritten: with || replaced,
        skipped: f.skipped,
        flatten: f.flatten,
        opaque,
    }
}

/// Where a serde attribute stands, for [`reads_as_default`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Container,
    Variant,
    NamedField,
    TupleField,
}

/// serde's `rename_all` values (serde_derive_internals `RenameRule::from_str`).
const RENAME_RULES: &[&str] = &[
    "lowercase",
    "UPPERCASE",
    "PascalCase",
    "camelCase",
    "snake_case",
    "SCREAMING_SNAKE_CASE",
    "kebab-case",
    "SCREAMING-KEBAB-CASE",
];

/// Whether serde would read these attributes as its default reading: none at all, or only keys
/// that change names or defaults (which the model does not hold) in the one form serde accepts
/// without a possible error (`rename = "x"`, `rename_all = "snake_case"`, a bare `default` on a
/// named field, ...), each key once. Anything else, malformed or unknown included, goes through
/// serde's own parser, which reports it.
fn reads_as_default(attrs: &[syn::Attribute], place: Place) -> bool {
    let mut seen: Vec<String> = Vec::new();
    attrs.iter().all(|a| {
        if a.path().is_ident("schemars") {
            return false;
        }
        if !a.path().is_ident("serde") {
            return true;
        }
        let mut harmless = true;
        let parsed = a.parse_nested_meta(|meta| {
            let Some(key) = meta.path.get_ident().map(ToString::to_string) else {
                harmless = false;
                return Ok(());
            };
            let string_value = |meta: &syn::meta::ParseNestedMeta<'_>| -> syn::Result<String> {
                Ok(meta.value()?.parse::<syn::LitStr>()?.value())
            };
            let ok = match (key.as_str(), place) {
                ("rename_all", Place::Container) => {
                    RENAME_RULES.contains(&string_value(&meta)?.as_str())
                }
                ("deny_unknown_fields", Place::Container) => {
                    meta.input.is_empty() || meta.input.peek(syn::Token![,])
                }
                ("rename", Place::Variant | Place::NamedField) => string_value(&meta).is_ok(),
                ("default", Place::NamedField) => {
                    meta.input.is_empty() || meta.input.peek(syn::Token![,])
                }
                _ => false,
            };
            harmless &= ok && !seen.contains(&key);
            seen.push(key);
            Ok(())
        });
        parsed.is_ok() && harmless
    })
}

/// Whether serde's reading of the input is its default one (no attribute, or only the harmless
/// ones of [`reads_as_default`]), known without its attribute parser.
fn serde_defaults(input: &DeriveInput) -> bool {
    let fields = |fields: &syn::Fields| {
        let place = match fields {
            syn::Fields::Named(_) => Place::NamedField,
            _ => Place::TupleField,
        };
        fields.iter().all(|f| reads_as_default(&f.attrs, place))
    };
    reads_as_default(&input.attrs, Place::Container)
        && match &input.data {
            syn::Data::Struct(s) => fields(&s.fields),
            syn::Data::Enum(e) => e
                .variants
                .iter()
                .all(|v| reads_as_default(&v.attrs, Place::Variant) && fields(&v.fields)),
            syn::Data::Union(_) => false,
        }
}

fn style_of(fields: &syn::Fields) -> Style {
    match fields {
        syn::Fields::Named(_) => Style::Named,
        syn::Fields::Unnamed(u) if u.unnamed.len() == 1 => Style::Newtype,
        syn::Fields::Unnamed(_) => Style::Tuple,
        syn::Fields::Unit => Style::Unit,
    }
}

/// serde's default reading of fields without attributes: every field deserialized, by name or
/// position.
fn default_fields(errors: &mut Errors, fields: &syn::Fields, me: &TokenStream) -> Vec<Field> {
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let member = match &f.ident {
                Some(ident) => syn::Member::Named(ident.clone()),
                None => syn::Member::Unnamed(syn::Index::from(i)),
            };
            let serde = SerdeField {
                attrs: &f.attrs,
                member: &member,
                ty: &f.ty,
                skipped: false,
                flatten: false,
            };
            field(errors, serde, me)
        })
        .collect()
}

/// The model of an input without serde or schemars attributes (most nested types): what serde's
/// parser would say, without running it.
fn parse_defaults(errors: &mut Errors, input: &DeriveInput, attrs: ContainerAttrs) -> Container {
    let me = self_type(input);
    let data = match &input.data {
        syn::Data::Struct(s) => {
            Data::Struct(style_of(&s.fields), default_fields(errors, &s.fields, &me))
        }
        syn::Data::Enum(e) => Data::Enum(
            Repr::External,
            e.variants
                .iter()
                .map(|v| {
                    attr::reject_misplaced(errors, &v.attrs, "variant");
                    Variant {
                        ident: v.ident.clone(),
                        style: style_of(&v.fields),
                        fields: default_fields(errors, &v.fields, &me),
                        skipped: false,
                        untagged: false,
                    }
                })
                .collect(),
        ),
        syn::Data::Union(_) => unreachable!("rejected before"),
    };
    Container {
        ident: input.ident.clone(),
        data,
        transparent: false,
        attrs,
        generics: input.generics.clone(),
    }
}

/// The generated checks sit outside the type's impls, where `Self` means nothing: each field's
/// type is checked with `Self` written out.
fn self_type(input: &DeriveInput) -> TokenStream {
    let (_, ty_generics, _) = input.generics.split_for_impl();
    let ident = &input.ident;
    quote::quote!(#ident #ty_generics)
}

/// Reads the input. `None` when it cannot be read: a Rust `union`, or attributes serde's parser
/// refuses; both are reported (never a silent fallback: the fallback impls check nothing).
pub fn parse(errors: &mut Errors, input: &DeriveInput) -> Option<Container> {
    let attrs = attr::container(errors, &input.attrs);
    if let syn::Data::Union(u) = &input.data {
        errors.spanned(
            u.union_token,
            "a Rust `union` has no JSON Schema\nfix: use a struct with named fields or an enum",
        );
        return None;
    }
    if serde_defaults(input) {
        return Some(parse_defaults(errors, input, attrs));
    }
    parse_serde(errors, input, attrs)
}

/// The model read through serde's own attribute parser.
fn parse_serde(
    errors: &mut Errors,
    input: &DeriveInput,
    attrs: ContainerAttrs,
) -> Option<Container> {
    let view = crate::prepass::serde_view(errors, input);
    let cx = Ctxt::new();
    let private = Ident::new("__private", Span::call_site());
    let parsed = ast::Container::from_ast(&cx, &view, Derive::Deserialize, &private);
    if let Err(refused) = cx.check() {
        // serde_derive reports the same mistake where the type derives `Deserialize`; ours says
        // what it costs here: nothing of the type is checked until it reads.
        for e in refused {
            errors.push(syn::Error::new(
                e.span(),
                format!(
                    "{e}: serde's parser refuses this attribute, so toolschema cannot tell what `{}` publishes and checks nothing in it\nfix: correct the attribute as the message says (where a `#[schemars(...)]` key repeats a `#[serde(...)]` key, schemars reads the `#[schemars]` one)",
                    input.ident
                ),
            ));
        }
        return None;
    }
    let Some(cont) = parsed else {
        // serde's parser gives up only after recording an error (reported above); never silent.
        errors.spanned(
            &input.ident,
            format!(
                "serde's parser cannot read `{}`, so toolschema cannot tell what it publishes and checks nothing in it\nfix: derive `Deserialize` on it and correct what serde reports",
                input.ident
            ),
        );
        return None;
    };
    let me = self_type(input);
    let data = match &cont.data {
        ast::Data::Struct(style, fields) => Data::Struct(
            (*style).into(),
            fields
                .iter()
                .map(|f| field(errors, SerdeField::of(f), &me))
                .collect(),
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
                        fields: v
                            .fields
                            .iter()
                            .map(|f| field(errors, SerdeField::of(f), &me))
                            .collect(),
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

/// `ty` with every `Self` replaced by `me` (the type being derived, with its generics), and
/// whether there was one.
fn replace_self(ty: Type, me: &TokenStream) -> (Type, bool) {
    if !crate::shape::mentions_self(&ty) {
        return (ty, false);
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
    match syn::parse2(replace(ty.to_token_stream(), me)) {
        Ok(replaced) => (replaced, true),
        Err(_) => (ty, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything later phases read from the model, as text.
    fn describe(c: &Container) -> String {
        let fields = |fs: &[Field]| {
            fs.iter()
                .map(|f| {
                    format!(
                        "{}: {} (as written {}) skipped={} flatten={} opaque={}",
                        f.name,
                        f.ty.to_token_stream(),
                        f.written.to_token_stream(),
                        f.skipped,
                        f.flatten,
                        f.opaque.is_some()
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        let data = match &c.data {
            Data::Struct(style, fs) => format!("struct {style:?} [{}]", fields(fs)),
            Data::Enum(repr, vs) => format!(
                "enum {repr:?} [{}]",
                vs.iter()
                    .map(|v| format!(
                        "{} {:?} skipped={} untagged={} [{}]",
                        v.ident,
                        v.style,
                        v.skipped,
                        v.untagged,
                        fields(&v.fields)
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        format!(
            "{} transparent={} generics={} {data}",
            c.ident,
            c.transparent,
            c.generics.to_token_stream()
        )
    }

    #[test]
    fn inputs_without_serde_attributes_read_as_serde_reads_them() {
        let inputs: Vec<DeriveInput> = vec![
            syn::parse_quote!(
                struct Named {
                    a: String,
                    b: Option<Box<Self>>,
                    c: Vec<u8>,
                }
            ),
            syn::parse_quote!(
                struct Tuple(u32, String);
            ),
            syn::parse_quote!(
                struct Newtype(Vec<String>);
            ),
            syn::parse_quote!(
                struct Unit;
            ),
            syn::parse_quote!(
                struct Generic<T: Clone> {
                    items: Vec<T>,
                }
            ),
            syn::parse_quote!(
                enum E {
                    A,
                    B(u32),
                    C(u32, String),
                    D { x: Inner, y: Vec<Self> },
                }
            ),
            syn::parse_quote!(
                #[derive(Clone)]
                #[doc = "x"]
                struct Documented {
                    #[doc = "y"]
                    a: u32,
                }
            ),
        ];
        // Attributes that change only names or defaults: still serde's default reading.
        let harmless: Vec<DeriveInput> = vec![
            syn::parse_quote!(
                #[serde(rename_all = "snake_case", deny_unknown_fields)]
                struct S {
                    #[serde(default)]
                    a: u32,
                    #[serde(rename = "bee", default)]
                    b: Option<Inner>,
                }
            ),
            syn::parse_quote!(
                #[serde(rename_all = "kebab-case")]
                enum K {
                    #[serde(rename = "")]
                    Empty,
                    Full(Vec<Self>),
                }
            ),
        ];
        for input in inputs.into_iter().chain(harmless) {
            assert!(serde_defaults(&input), "{}", input.to_token_stream());
            let (mut e1, mut e2) = (Errors::new(), Errors::new());
            let fast = parse_defaults(&mut e1, &input, ContainerAttrs::default());
            let serde =
                parse_serde(&mut e2, &input, ContainerAttrs::default()).expect("serde reads it");
            assert_eq!(describe(&fast), describe(&serde));
        }
        // Anything that changes the reading, or that serde may refuse, goes to serde's parser.
        let to_serde: Vec<DeriveInput> = vec![
            syn::parse_quote!(
                struct S {
                    #[serde(flatten)]
                    a: Inner,
                }
            ),
            syn::parse_quote!(
                #[serde(tag = "t")]
                enum E {
                    A { x: u32 },
                }
            ),
            syn::parse_quote!(
                enum E {
                    A,
                    #[serde(untagged)]
                    B(String),
                }
            ),
            syn::parse_quote!(
                #[serde(rename_all = "Title Case")]
                enum E {
                    A,
                }
            ),
            syn::parse_quote!(
                #[serde(rename_all = "snake_case", rename_all = "camelCase")]
                enum E {
                    A,
                }
            ),
            syn::parse_quote!(
                #[serde(rename_all(deserialize = "snake_case"))]
                struct S {
                    a: u32,
                }
            ),
            syn::parse_quote!(
                struct S {
                    #[serde(default = "zero")]
                    a: u32,
                }
            ),
            syn::parse_quote!(
                struct T(#[serde(default)] u32);
            ),
            syn::parse_quote!(
                struct S {
                    #[serde(skip_deserializing)]
                    a: u32,
                }
            ),
            syn::parse_quote!(
                #[serde(transparent)]
                struct S {
                    a: u32,
                }
            ),
            syn::parse_quote!(
                #[serde(deny_unknown_fields = true)]
                struct S {
                    a: u32,
                }
            ),
            syn::parse_quote!(
                #[serde]
                struct S {
                    a: u32,
                }
            ),
        ];
        for input in to_serde {
            assert!(!serde_defaults(&input), "{}", input.to_token_stream());
        }
        let with_schemars: DeriveInput = syn::parse_quote!(
            #[schemars(rename = "T")]
            struct S {
                a: u32,
            }
        );
        assert!(!serde_defaults(&with_schemars));
    }
}
