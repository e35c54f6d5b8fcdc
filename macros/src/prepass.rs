//! Reads serde attributes the way schemars does: a serde-meaningful key inside `#[schemars(...)]`
//! overrides the same key in `#[serde(...)]` (schemars' own pre-pass has the same rule), so the
//! shape we check is the shape schemars publishes.

use std::borrow::Cow;

use proc_macro2::TokenStream;
use quote::quote;
use syn::punctuated::Punctuated;
use syn::{Attribute, Data, DeriveInput, Meta, Token};

/// The serde keys schemars honours when written as `#[schemars(...)]`.
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
    "transparent",
    "from",
    "try_from",
    "into",
];

fn key_of(meta: &Meta) -> Option<String> {
    meta.path().get_ident().map(ToString::to_string)
}

fn metas(attr: &Attribute) -> Vec<Meta> {
    attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
        .map(|p| p.into_iter().collect())
        .unwrap_or_default()
}

/// Rewrites one attribute list: serde keys from `#[schemars]` win over the same `#[serde]` keys.
fn merge(attrs: &mut Vec<Attribute>) {
    let from_schemars: Vec<Meta> = attrs
        .iter()
        .filter(|a| a.path().is_ident("schemars"))
        .flat_map(metas)
        .filter(|m| key_of(m).is_some_and(|k| SERDE_KEYS.contains(&k.as_str())))
        .collect();
    if from_schemars.is_empty() {
        return;
    }
    let overridden: Vec<String> = from_schemars.iter().filter_map(key_of).collect();
    let mut kept: Vec<TokenStream> = Vec::new();
    attrs.retain(|a| {
        if !a.path().is_ident("serde") {
            return true;
        }
        match a.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) {
            Ok(list) => {
                for m in list {
                    if !key_of(&m).is_some_and(|k| overridden.contains(&k)) {
                        kept.push(quote!(#m));
                    }
                }
                false
            }
            // Leave malformed serde attributes for serde to report.
            Err(_) => true,
        }
    });
    let merged = from_schemars.iter().map(|m| quote!(#m)).chain(kept);
    attrs.push(syn::parse_quote!(#[serde(#(#merged),*)]));
}

/// A copy of `input` whose `#[serde]` attributes say what schemars will read.
pub fn serde_view(input: &DeriveInput) -> Cow<'_, DeriveInput> {
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
    merge(&mut input.attrs);
    match &mut input.data {
        Data::Struct(s) => s.fields.iter_mut().for_each(|f| merge(&mut f.attrs)),
        Data::Enum(e) => e.variants.iter_mut().for_each(|v| {
            merge(&mut v.attrs);
            v.fields.iter_mut().for_each(|f| merge(&mut f.attrs));
        }),
        Data::Union(_) => {}
    }
    Cow::Owned(input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    #[test]
    fn schemars_keys_override_serde_keys() {
        let input: DeriveInput = syn::parse_quote! {
            #[serde(tag = "kind", rename_all = "snake_case")]
            #[schemars(untagged, tag = "type", description = "ignored")]
            enum E { A }
        };
        let out = serde_view(&input);
        let attrs: Vec<String> = out
            .attrs
            .iter()
            .map(|a| a.to_token_stream().to_string())
            .collect();
        assert_eq!(attrs.len(), 2, "{attrs:?}");
        assert!(attrs[0].starts_with("# [schemars"));
        assert_eq!(
            attrs[1],
            "# [serde (untagged , tag = \"type\" , rename_all = \"snake_case\")]"
        );
    }

    #[test]
    fn untouched_without_schemars_keys() {
        let input: DeriveInput = syn::parse_quote! {
            #[serde(untagged)]
            #[schemars(description = "x")]
            enum E { A }
        };
        assert_eq!(
            serde_view(&input).to_token_stream().to_string(),
            input.to_token_stream().to_string()
        );
    }
}
