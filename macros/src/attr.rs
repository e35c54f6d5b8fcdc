//! Our own attributes: `#[tool_schema(...)]`, and the `#[schemars(...)]` keys that change which
//! type's schema a field publishes (`with`, `schema_with`).

use syn::{Attribute, Expr, ExprLit, Lit, LitStr, Meta, Path, Type};

use crate::errors::Errors;

/// The attribute name.
pub const TOOL_SCHEMA: &str = "tool_schema";
/// `#[tool_schema(allow_union = "...")]`
pub const ALLOW_UNION: &str = "allow_union";
/// `#[tool_schema(crate = "...")]`
pub const CRATE: &str = "crate";
/// `#[tool_schema(opaque)]`
pub const OPAQUE: &str = "opaque";

/// `#[tool_schema(...)]` on the container.
#[derive(Default)]
pub struct ContainerAttrs {
    /// The reason, and the attribute's tokens for error spans.
    pub allow_union: Option<(String, LitStr)>,
    /// Path to the `toolschema` crate.
    pub krate: Option<Path>,
    /// `opaque`: the type's `JsonSchema` is written by hand, so its serde attributes say nothing
    /// about what it publishes; the key's tokens, for error spans.
    pub opaque: Option<Path>,
}

/// A key may appear once; the second occurrence is the error.
fn set_once<T>(errors: &mut Errors, slot: &mut Option<T>, value: T, key: &syn::Path, name: &str) {
    if slot.is_some() {
        errors.spanned(
            key,
            format!("duplicate `tool_schema` key `{name}`\nfix: keep one `{name}` on this item"),
        );
    } else {
        *slot = Some(value);
    }
}

/// Whether a reason names the issue that tracks the union's removal: `#123`, `GH-123`, a URL.
fn names_an_issue(reason: &str) -> bool {
    let bytes = reason.as_bytes();
    let hash_number = bytes
        .windows(2)
        .any(|w| w[0] == b'#' && w[1].is_ascii_digit());
    hash_number || reason.contains("://") || reason.to_ascii_lowercase().contains("issue ")
}

pub fn container(errors: &mut Errors, attrs: &[Attribute]) -> ContainerAttrs {
    let mut out = ContainerAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident(TOOL_SCHEMA)) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident(ALLOW_UNION) {
                let lit: LitStr = meta.value()?.parse()?;
                let reason = lit.value();
                if reason.trim().is_empty() {
                    errors.spanned(
                        &lit,
                        "`allow_union` needs a reason: an allowed structural union is debt that must stay visible\nfix: say why the union is needed now and which issue tracks removing it, e.g. `allow_union = \"legacy clients send both shapes (#163)\"`",
                    );
                } else if !names_an_issue(&reason) {
                    errors.spanned(
                        &lit,
                        "the `allow_union` reason does not name the issue that tracks removing the union\nfix: add the issue reference to the reason, e.g. `(#163)` or its URL",
                    );
                }
                set_once(errors, &mut out.allow_union, (reason, lit), &meta.path, ALLOW_UNION);
                Ok(())
            } else if meta.path.is_ident(OPAQUE) {
                let path = meta.path.clone();
                set_once(errors, &mut out.opaque, path, &meta.path, OPAQUE);
                Ok(())
            } else if meta.path.is_ident(CRATE) {
                let lit: LitStr = meta.value()?.parse()?;
                match lit.parse::<Path>() {
                    Ok(path) => set_once(errors, &mut out.krate, path, &meta.path, CRATE),
                    Err(_) => errors.spanned(
                        &lit,
                        "`crate` must be a path to the `toolschema` crate\nfix: write it as a path, e.g. `crate = \"::my_reexport::toolschema\"`",
                    ),
                }
                Ok(())
            } else {
                let key = meta
                    .path
                    .get_ident()
                    .map(ToString::to_string)
                    .unwrap_or_else(|| "this".to_owned());
                errors.spanned(
                    &meta.path,
                    format!(
                        "unknown `tool_schema` key `{key}`\nfix: use one of `allow_union = \"reason (#issue)\"`, `opaque` or `crate = \"path\"`"
                    ),
                );
                // Skip the key's value so the next key is still read.
                if meta.input.peek(syn::Token![=]) {
                    let _: syn::Expr = meta.value()?.parse()?;
                } else if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                    let _group: proc_macro2::TokenTree = meta.input.parse()?;
                }
                Ok(())
            }
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    out
}

/// `#[tool_schema]` has no meaning on a variant or a field.
pub fn reject_misplaced(errors: &mut Errors, attrs: &[Attribute], what: &str) {
    for attr in attrs.iter().filter(|a| a.path().is_ident(TOOL_SCHEMA)) {
        errors.spanned(
            attr,
            format!(
                "`#[tool_schema(...)]` is not allowed on a {what}\nfix: put `#[tool_schema(allow_union = \"...\")]` on the enum itself"
            ),
        );
    }
}

/// What a field's `#[schemars(...)]` says about the schema it publishes.
pub enum SchemaSource {
    /// The field's own type.
    Own,
    /// `#[schemars(with = "T")]`: `T`'s schema.
    With(Box<Type>),
    /// `#[schemars(schema_with = "f")]`: a hand-written schema the derive cannot see; the
    /// runtime contract checker covers it. The key, for error spans.
    Opaque(Path),
}

pub fn schema_source(errors: &mut Errors, attrs: &[Attribute]) -> SchemaSource {
    let mut source = SchemaSource::Own;
    for attr in attrs.iter().filter(|a| a.path().is_ident("schemars")) {
        // An attribute that does not read was reported by the pre-pass (`prepass::merge`), which
        // reads every `#[schemars]` attribute of the input first.
        let Ok(items) = crate::prepass::parse_schemars(attr) else {
            continue;
        };
        for item in items {
            let crate::prepass::SchemarsItem::Meta(Meta::NameValue(nv)) = item else {
                continue;
            };
            if nv.path.is_ident("with") {
                let parsed = match &nv.value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(lit), ..
                    }) => lit.parse::<Type>(),
                    other => Err(syn::Error::new_spanned(
                        other,
                        "`with` must be a string naming a type\nfix: write it as `#[schemars(with = \"Type\")]`",
                    )),
                };
                match parsed {
                    Ok(ty) => source = SchemaSource::With(Box::new(ty)),
                    Err(e) => errors.push(e),
                }
            } else if nv.path.is_ident("schema_with") {
                source = SchemaSource::Opaque(nv.path.clone());
            }
        }
    }
    source
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_references() {
        assert!(names_an_issue("legacy (#163)"));
        assert!(names_an_issue("see https://tracker/163"));
        assert!(!names_an_issue("because"));
        assert!(!names_an_issue("use # carefully"));
    }
}
