//! Reads serde attributes the way schemars does (schemars_derive's `process_serde_attrs`): a
//! serde-meaningful key inside `#[schemars(...)]` overrides the same key in `#[serde(...)]`,
//! `#[schemars(skip)]` overrides serde's `skip_serializing` and `skip_deserializing` too, and
//! `#[schemars(!key)]` drops serde's `key`. So the shape we check is the shape schemars publishes,
//! and the merge never invents a conflict (a repeated key) that the user's code does not have.

use std::borrow::Cow;

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Data, DeriveInput, Meta, Path, Token};

use crate::errors::Errors;

/// The serde keys schemars reads from both attributes (schemars_derive's `SERDE_KEYWORDS`):
/// from `#[schemars(...)]` all but the last two (`serialize_with` and `with` are not copied
/// over), from `#[serde(...)]` all but `bound` (only the schemars one counts).
const SERDE_KEYS: &[&str] = &[
    "rename",
    "rename_all",
    "rename_all_fields",
    "deny_unknown_fields",
    "tag",
    "content",
    "untagged",
    "default",
    "skip",
    "skip_serializing",
    "skip_serializing_if",
    "skip_deserializing",
    "flatten",
    "remote",
    "transparent",
    "into",
    "from",
    "try_from",
    "bound",
    "serialize_with",
    "with",
];

/// Whether schemars copies `key` from `#[schemars(...)]` into serde's reading.
fn from_schemars(key: &str) -> bool {
    SERDE_KEYS[..SERDE_KEYS.len() - 2].contains(&key)
}

/// Whether schemars keeps `key` of `#[serde(...)]` (unless `#[schemars]` overrides it).
fn from_serde(key: &str) -> bool {
    key != "bound" && SERDE_KEYS.contains(&key)
}

/// One item of `#[schemars(...)]`: a meta, or schemars' `!key` (drop serde's `key`).
pub enum SchemarsItem {
    Meta(Meta),
    Unset(Path),
}

impl Parse for SchemarsItem {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        if input.peek(Token![!]) {
            let _: Token![!] = input.parse()?;
            Ok(SchemarsItem::Unset(input.parse()?))
        } else {
            Ok(SchemarsItem::Meta(input.parse()?))
        }
    }
}

/// The items of one `#[schemars(...)]` attribute.
pub fn parse_schemars(attr: &Attribute) -> syn::Result<Vec<SchemarsItem>> {
    attr.parse_args_with(Punctuated::<SchemarsItem, Token![,]>::parse_terminated)
        .map(|items| items.into_iter().collect())
}

/// [`parse_schemars`], reporting an attribute that does not read is an error of
/// ours too: what it says about the schema would otherwise be ignored without a word.
pub fn schemars_items(errors: &mut Errors, attr: &Attribute) -> Vec<SchemarsItem> {
    match parse_schemars(attr) {
        Ok(items) => items,
        Err(e) => {
            errors.push(syn::Error::new(
                e.span(),
                format!(
                    "cannot read this `#[schemars(...)]` attribute ({e}), so toolschema cannot tell what this item publishes\nfix: write it as schemars documents it, e.g. `#[schemars(rename = \"x\", skip)]`"
                ),
            ));
            Vec::new()
        }
    }
}

fn key_of(path: &Path) -> Option<String> {
    path.get_ident().map(ToString::to_string)
}

/// Rewrites one attribute list as schemars does.
fn merge(errors: &mut Errors, attrs: &mut Vec<Attribute>) {
    let mut effective: Vec<TokenStream> = Vec::new();
    let mut overridden: Vec<String> = Vec::new();
    let mut unset: Vec<String> = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("schemars")) {
        for item in schemars_items(errors, attr) {
            match item {
                SchemarsItem::Unset(path) => unset.extend(key_of(&path)),
                SchemarsItem::Meta(meta) => {
                    let Some(key) = key_of(meta.path()) else {
                        continue;
                    };
                    if from_schemars(&key) {
                        overridden.push(key);
                        effective.push(quote!(#meta));
                    }
                }
            }
        }
    }
    if overridden.iter().any(|k| k == "skip") {
        overridden.extend([
            "skip_serializing".to_owned(),
            "skip_deserializing".to_owned(),
        ]);
    }
    attrs.retain(|a| {
        if !a.path().is_ident("serde") {
            return true;
        }
        // A `#[serde(...)]` that does not read is dropped, as schemars drops it; serde_derive
        // reports it where the type derives `Deserialize`.
        let list = a
            .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
            .unwrap_or_default();
        for meta in list {
            let kept = key_of(meta.path())
                .is_some_and(|k| from_serde(&k) && !overridden.contains(&k) && !unset.contains(&k));
            if kept {
                effective.push(quote!(#meta));
            }
        }
        false
    });
    if !effective.is_empty() {
        attrs.push(syn::parse_quote!(#[serde(#(#effective),*)]));
    }
}

/// A copy of `input` whose `#[serde]` attributes say what schemars will read.
pub fn serde_view<'a>(errors: &mut Errors, input: &'a DeriveInput) -> Cow<'a, DeriveInput> {
    // Most types have no `#[schemars]` attribute at all: nothing to merge, no copy.
    let schemars = |attrs: &[Attribute]| attrs.iter().any(|a| a.path().is_ident("schemars"));
    let any = schemars(&input.attrs)
        || match &input.data {
            Data::Struct(s) => s.fields.iter().any(|f| schemars(&f.attrs)),
            Data::Enum(e) => e
                .variants
                .iter()
                .any(|v| schemars(&v.attrs) || v.fields.iter().any(|f| schemars(&f.attrs))),
            Data::Union(_) => false,
        };
    if !any {
        return Cow::Borrowed(input);
    }
    let mut input = input.clone();
    merge(errors, &mut input.attrs);
    match &mut input.data {
        Data::Struct(s) => s
            .fields
            .iter_mut()
            .for_each(|f| merge(errors, &mut f.attrs)),
        Data::Enum(e) => e.variants.iter_mut().for_each(|v| {
            merge(errors, &mut v.attrs);
            v.fields
                .iter_mut()
                .for_each(|f| merge(errors, &mut f.attrs));
        }),
        Data::Union(_) => {}
    }
    Cow::Owned(input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn serde_attrs(attrs: &[Attribute]) -> Vec<String> {
        attrs
            .iter()
            .filter(|a| a.path().is_ident("serde"))
            .map(|a| a.to_token_stream().to_string())
            .collect()
    }

    fn view(input: &DeriveInput) -> DeriveInput {
        let mut errors = Errors::new();
        let out = serde_view(&mut errors, input).into_owned();
        assert!(errors.is_empty());
        errors.finish();
        out
    }

    #[test]
    fn schemars_keys_override_serde_keys() {
        let input: DeriveInput = syn::parse_quote! {
            #[serde(tag = "kind", rename_all = "snake_case")]
            #[schemars(untagged, tag = "type", description = "ignored")]
            enum E { A }
        };
        let out = view(&input);
        assert_eq!(out.attrs.len(), 2);
        assert_eq!(
            serde_attrs(&out.attrs),
            ["# [serde (untagged , tag = \"type\" , rename_all = \"snake_case\")]"]
        );
    }

    #[test]
    fn serde_keys_kept_without_schemars_keys() {
        let input: DeriveInput = syn::parse_quote! {
            #[serde(untagged)]
            #[schemars(description = "x")]
            enum E { A }
        };
        assert_eq!(serde_attrs(&view(&input).attrs), ["# [serde (untagged)]"]);
    }

    /// `#[schemars(skip)]` stands for both of serde's skips, so the merge keeps neither beside it
    /// (issue 50: keeping `skip_deserializing` made serde's parser refuse a duplicate the user
    /// never wrote), in any order and over any number of `#[serde]` lines.
    #[test]
    fn schemars_skip_overrides_both_serde_skips() {
        let inputs: Vec<DeriveInput> = vec![
            syn::parse_quote! {
                struct S {
                    #[serde(default, skip_deserializing)]
                    #[schemars(skip)]
                    a: u32,
                }
            },
            syn::parse_quote! {
                struct S {
                    #[schemars(skip)]
                    #[serde(skip_deserializing)]
                    #[serde(default)]
                    a: u32,
                }
            },
            syn::parse_quote! {
                struct S {
                    #[serde(skip_serializing, default, skip_deserializing)]
                    #[schemars(skip)]
                    a: u32,
                }
            },
        ];
        for input in inputs {
            let out = view(&input);
            let Data::Struct(s) = &out.data else {
                unreachable!()
            };
            let field = s.fields.iter().next().unwrap();
            assert_eq!(
                serde_attrs(&field.attrs),
                ["# [serde (skip , default)]"],
                "{}",
                input.to_token_stream()
            );
        }
    }

    #[test]
    fn schemars_unset_drops_the_serde_key() {
        let input: DeriveInput = syn::parse_quote! {
            #[serde(untagged, rename_all = "snake_case")]
            #[schemars(!untagged, description = "x")]
            enum E { A }
        };
        assert_eq!(
            serde_attrs(&view(&input).attrs),
            ["# [serde (rename_all = \"snake_case\")]"]
        );
    }

    #[test]
    fn an_unreadable_schemars_attribute_is_an_error() {
        let input: DeriveInput = syn::parse_quote! {
            struct S {
                #[schemars(with = )]
                a: u32,
            }
        };
        let mut errors = Errors::new();
        let _ = serde_view(&mut errors, &input);
        assert!(!errors.is_empty());
        let text = errors.finish().to_string();
        assert!(
            text.contains("cannot read this `#[schemars(...)]` attribute"),
            "{text}"
        );
    }
}
