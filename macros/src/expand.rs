//! Code generation. Runs after validation; the impls and checks of a type sit in
//! `const _: () = { ... }` (impls alone need no scope).
//!
//! - The `ProviderSafe` impl carries the type's [`Shape`](../toolschema/struct.Shape.html) as a
//!   `const`, so unions of types defined elsewhere are counted by the compiler.
//! - Field checks are one `const _: () = toolschema::__private::require(ok, "message");` item
//!   each, every token at the span of the field's type (non-generic types), or trait bounds plus
//!   `NESTED_OK` (generic types, checked where they are instantiated). One item per check: the
//!   compiler stops a constant's evaluation at its first failure, and every mistake of a derive
//!   must be reported in one compile.
//! - What the output costs to compile is measured by `tests/compile-cost/` (issue 11): the
//!   generated code, more than the macro, is most of it, so fewer items and tokens beat a faster
//!   macro.
//! - When validation failed, the impls are still emitted with a neutral shape, so one mistake
//!   does not cascade into errors in code that uses the type.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::{DeriveInput, Generics, Ident};

use crate::ast::{self, Container};
pub use crate::check::Mode;
use crate::check::{self, Analysis, CheckKind, FieldCheck, HAND_WRITTEN_FIX, ShapePlan, UNION_FIX};
use crate::errors::Errors;
use crate::krate::Krate;
use crate::shape::{self, Branch};

pub fn derive(input: &DeriveInput, mode: Mode) -> TokenStream {
    let mut errors = Errors::new();
    let Some(cont) = ast::parse(&mut errors, input) else {
        let krate = Krate(None);
        let fallback = if matches!(input.data, syn::Data::Union(_)) {
            TokenStream::new()
        } else {
            fallback(input, mode, krate)
        };
        let errors = errors.finish();
        return quote!(#errors #fallback);
    };
    let krate = Krate(cont.attrs.krate.as_ref());
    let analysis = check::analyze(&mut errors, &cont, mode);
    let valid = errors.is_empty();
    let impls = impls(&cont, &analysis, mode, krate, valid);
    let checks = field_checks(&cont, &analysis, krate);
    let unions = if valid {
        let mut unions = union_asserts(&cont, &analysis, krate);
        unions.extend(hand_written_asserts(&cont, &analysis, krate));
        unions
    } else {
        TokenStream::new()
    };
    let errors = errors.finish();
    if checks.is_empty() && unions.is_empty() {
        // Impls alone (most nested types): no scope to open, one item fewer to compile.
        return quote! {
            #errors
            #impls
        };
    }
    quote! {
        #errors
        #[allow(clippy::all)]
        const _: () = {
            #impls
            #checks
            #unions
        };
    }
}

fn type_params(generics: &Generics) -> Vec<Ident> {
    generics.type_params().map(|p| p.ident.clone()).collect()
}

/// The container's generics with `T: ProviderSafe` (and, for `ToolParams`, `T: DeserializeOwned`)
/// on every type parameter.
fn bounded(generics: &Generics, krate: Krate, deserialize: bool) -> Generics {
    let mut generics = generics.clone();
    let params = type_params(&generics);
    let where_clause = generics.make_where_clause();
    for p in params {
        where_clause
            .predicates
            .push(syn::parse_quote!(#p: #krate::ProviderSafe));
        if deserialize {
            where_clause
                .predicates
                .push(syn::parse_quote!(#p: #krate::__private::serde::de::DeserializeOwned));
        }
    }
    generics
}

fn shape_expr(cont: &Container, analysis: &Analysis, krate: Krate) -> TokenStream {
    match &analysis.shape {
        ShapePlan::Single(branch) => branch.tokens(krate),
        // A union of one constant branch is that branch (a unit-only enum: one string enum).
        // `union` clears the allowed and reported marks, which constants do not have.
        ShapePlan::Union(counted)
            if counted.len() == 1
                && cont.attrs.allow_union.is_none()
                && !matches!(counted[0].branch, Branch::Of(_) | Branch::Nullable(_)) =>
        {
            counted[0].branch.tokens(krate)
        }
        ShapePlan::Union(counted) => {
            let parts = counted.iter().map(|c| c.branch.tokens(krate));
            let allowed = cont.attrs.allow_union.as_ref().map(|_| quote!(.allowed()));
            quote!(#krate::Shape::NEVER #(.union(#parts))* #allowed)
        }
    }
}

fn impls(
    cont: &Container,
    analysis: &Analysis,
    mode: Mode,
    krate: Krate,
    valid: bool,
) -> TokenStream {
    let ident = &cont.ident;
    let generics = bounded(&cont.generics, krate, false);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let shape = if valid && cont.is_generic() {
        shape_expr(cont, analysis, krate)
    } else if valid {
        // A non-generic type's violations are reported at its definition; mark them so uses of
        // the type do not report the same mistake again. A single certain branch (a struct, a
        // unit-only enum) cannot be a violation: nothing to mark.
        let shape = shape_expr(cont, analysis, krate);
        let certain = match &analysis.shape {
            ShapePlan::Single(b) => b.structured().is_some(),
            ShapePlan::Union(counted) => {
                counted.iter().all(|c| c.branch.structured() == Some(false))
            }
        };
        if certain {
            shape
        } else {
            quote!(#shape.reported_if_unsafe())
        }
    } else {
        quote!(#krate::Shape::ANY)
    };
    let nested_ok = cont.is_generic().then(|| {
        let params = type_params(&cont.generics);
        let terms = analysis
            .checks
            .iter()
            .filter(|c| shape::mentions_any(&c.ty, &params) && !shape::mentions(&c.ty, &cont.ident))
            .filter_map(|c| {
                let ty = &c.ty;
                match c.kind {
                    CheckKind::Full => Some(quote!(#krate::__private::field_ok::<#ty>())),
                    CheckKind::Nested => Some(quote!(<#ty as #krate::ProviderSafe>::NESTED_OK)),
                    CheckKind::RootFlatten => None,
                }
            });
        quote!(const NESTED_OK: bool = true #(&& #terms)*;)
    });
    let mut visited: Vec<&str> = Vec::new();
    let visits: Vec<TokenStream> = analysis
        .checks
        .iter()
        .filter(|c| !c.known_safe)
        .filter_map(|c| {
            if visited.contains(&c.text.as_str()) {
                return None;
            }
            visited.push(&c.text);
            let ty = &c.tokens;
            if cont.is_generic() {
                let via = via(c, krate);
                Some(quote_spanned!(c.span=> <#ty as #via>::visit_allowed_unions))
            } else {
                // The field's check (`field_checks`) reports a missing impl; this never does,
                // so the error is counted once.
                Some(quote_spanned!(c.span=> {
                    #[allow(unused_imports)]
                    use #krate::__private::NoVisit as _;
                    #krate::__private::Visit::<#ty>::VISIT
                }))
            }
        })
        .collect();
    // Nothing below but standard types: the trait's default (no children).
    let children = (!visits.is_empty()).then(|| {
        quote! {
            const __CHILDREN: &'static [fn(&mut #krate::AllowedUnions)] = &[#(#visits),*];
        }
    });
    let allowed = cont.attrs.allow_union.as_ref().map(|(reason, _)| {
        quote! {
            const __ALLOWED: ::core::option::Option<&'static str> = ::core::option::Option::Some(#reason);
        }
    });
    let tool_params = (mode == Mode::ToolParams).then(|| {
        let generics = bounded(&cont.generics, krate, true);
        let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
        quote! {
            #[automatically_derived]
            impl #impl_generics #krate::ToolParams for #ident #ty_generics #where_clause {}
        }
    });
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::ProviderSafe for #ident #ty_generics #where_clause {
            const SHAPE: #krate::Shape = #shape;
            #nested_ok
            #allowed
            #children
        }
        #tool_params
    }
}

/// The impls alone, with a neutral shape: emitted beside the errors that say why the input could
/// not be read (`ast::parse`), so uses of the type do not fail a second time. Never emitted
/// without an error: it checks nothing.
fn fallback(input: &DeriveInput, mode: Mode, krate: Krate) -> TokenStream {
    let ident = &input.ident;
    let generics = bounded(&input.generics, krate, false);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let tool_params = (mode == Mode::ToolParams).then(|| {
        let generics = bounded(&input.generics, krate, true);
        let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
        quote! {
            #[automatically_derived]
            impl #impl_generics #krate::ToolParams for #ident #ty_generics #where_clause {}
        }
    });
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #krate::ProviderSafe for #ident #ty_generics #where_clause {
                const SHAPE: #krate::Shape = #krate::Shape::ANY;
            }
            #tool_params
        };
    }
}

fn field_message(check: &FieldCheck, cont: &Container) -> String {
    let ty = &check.text;
    match check.kind {
        CheckKind::Full => format!(
            "{} has type `{ty}`, whose schema is or contains an `anyOf`/`oneOf` with more than one object- or array-typed branch; clients that keep only the first branch or flatten unions lose the others silently\n{UNION_FIX}",
            check.owner
        ),
        CheckKind::Nested => format!(
            "{} wraps `{ty}`, whose schema contains an `anyOf`/`oneOf` with more than one object- or array-typed branch; clients that keep only the first branch or flatten unions lose the others silently\n{UNION_FIX}",
            check.owner
        ),
        CheckKind::RootFlatten => format!(
            "{} is `#[serde(flatten)]` over `{ty}`, whose schema is a union: flattening it into `{}` puts `anyOf`/`oneOf` at the root of the tool's parameters, which OpenAI and Anthropic reject (no attribute can allow this)\nfix: make it a named field, or flatten a struct with named fields",
            check.owner, cont.ident
        ),
    }
}

/// `text` as a raw string literal token (`r#"..."#`, with as many `#` as the text needs).
///
/// The message is passed to `toolschema::__private::require`, which panics with it as the
/// argument of a `"{}"` format string, never as the format string itself, so user text (a
/// variant's `{"Variant": ...}`) stays plain text.
/// A raw literal is lexed by the compiler, where `Literal::string` would escape every character
/// (and `str::parse` would lex it first) in the macro's own unoptimized code: a few hundred
/// characters for each of the messages a crate's derives emit.
fn message_literal(text: &str) -> proc_macro2::Literal {
    let bytes = text.as_bytes();
    if bytes.contains(&b'\r') {
        // A raw string cannot hold a bare carriage return.
        return proc_macro2::Literal::string(text);
    }
    // One `#` more than the longest run of `#` after a `"` in the text. The quotes are found
    // with `str::find` (a word-at-a-time search), not by looking at every byte in the macro's
    // own unoptimized code.
    let mut hashes = 0;
    let mut rest = text;
    while let Some(at) = rest.find('"') {
        rest = &rest[at + 1..];
        let run = rest.len() - rest.trim_start_matches('#').len();
        hashes = hashes.max(run + 1);
    }
    let fence = "#".repeat(hashes);
    let repr = format!("r{fence}\"{text}\"{fence}");
    // SAFETY: `repr` is a valid raw string literal: it holds no carriage return, and its fence
    // is longer than any run of `#` that follows a `"` inside it, so it ends where it should.
    unsafe { proc_macro2::Literal::from_str_unchecked(&repr) }
}

/// The path of `toolschema::__private::require`, every token at `span`: the compiler reports a
/// failed check at the span of the whole call (`#[track_caller]`), which must be the field's or
/// the variant's, not the derive's (where the crate path's tokens come from).
fn require_at(krate: Krate, span: proc_macro2::Span) -> TokenStream {
    let krate = krate.at(span);
    quote_spanned!(span=> #krate::__private::require)
}

/// The trait a field's check goes through: `ProviderSafe`, or for a type named like one
/// toolschema supports behind a feature, the hint trait whose error names that feature (both
/// hold for every `ProviderSafe` type).
fn via(c: &crate::check::FieldCheck, krate: Krate) -> TokenStream {
    match c.hint {
        Some(hint) => {
            let hint = proc_macro2::Ident::new(hint, c.span);
            quote!(#krate::__private::#hint)
        }
        None => quote!(#krate::ProviderSafe),
    }
}

fn field_checks(cont: &Container, analysis: &Analysis, krate: Krate) -> TokenStream {
    let mut out = TokenStream::new();
    if cont.is_generic() {
        // Generic types: prove the bounds now; the shapes are checked where the type is used.
        let generics = bounded(&cont.generics, krate, false);
        let (impl_generics, _, where_clause) = generics.split_for_impl();
        let asserts = analysis.checks.iter().map(|c| {
            let ty = &c.ty;
            let via = via(c, krate);
            quote_spanned!(c.span=> let _ = <#ty as #via>::NESTED_OK;)
        });
        out.extend(quote! {
            const _: fn() = || {
                fn __toolschema_field_bounds #impl_generics () #where_clause { #(#asserts)* }
            };
        });
    } else {
        // A standard type of standard scalars is safe by construction: no check to emit.
        for c in analysis
            .checks
            .iter()
            .filter(|c| c.kind == CheckKind::RootFlatten || !c.known_safe)
        {
            let ty = &c.tokens;
            let message = message_literal(&field_message(c, cont));
            let cond = match c.kind {
                // Projections, not calls of a bounded fn: a missing impl then gives the same
                // diagnostic as in `__CHILDREN`, which rustc reports once.
                CheckKind::Full if c.hint.is_some() => {
                    let via = via(c, krate);
                    quote!(<#ty as #via>::FIELD_OK)
                }
                CheckKind::Full => quote!(<#ty as #krate::ProviderSafe>::__FIELD_OK),
                CheckKind::Nested => {
                    let via = via(c, krate);
                    quote!(<#ty as #via>::NESTED_OK)
                }
                CheckKind::RootFlatten => {
                    quote!(!<#ty as #krate::ProviderSafe>::SHAPE.flattens_to_combinator())
                }
            };
            let require = require_at(krate, c.span);
            out.extend(quote_spanned! {c.span=>
                const _: () = #require(#cond, #message);
            });
        }
    }
    out
}

/// Union checks that need the shapes of other types: the first variant at which the union gets a
/// second structured branch fails, at that variant.
fn union_asserts(cont: &Container, analysis: &Analysis, krate: Krate) -> TokenStream {
    if let (Some(opaque), false) = (&cont.attrs.opaque, analysis.opaque_branches.is_empty()) {
        return opaque_union_assert(cont, &analysis.opaque_branches, opaque, krate);
    }
    let ShapePlan::Union(counted) = &analysis.shape else {
        return TokenStream::new();
    };
    let dependent = counted.iter().any(|c| c.branch.structured().is_none());
    if cont.is_generic() || !dependent {
        return TokenStream::new();
    }
    let name = &cont.ident;
    if let Some((_, lit)) = &cont.attrs.allow_union {
        let parts = counted.iter().map(|c| c.branch.tokens(krate));
        let message = message_literal(&format!(
            "`allow_union` on enum `{name}`, which is no longer a structural union (its variants publish at most one object- or array-typed branch)\nfix: remove the `allow_union` attribute"
        ));
        let require = require_at(krate, lit.span());
        return quote_spanned! {lit.span()=>
            const _: () = #require(
                #krate::Shape::NEVER #(.union(#parts))* .is_structural_union(),
                #message
            );
        };
    }
    let mut out = TokenStream::new();
    let mut candidates: Vec<String> = Vec::new();
    for (i, c) in counted.iter().enumerate() {
        if c.branch.structured() == Some(false) {
            continue;
        }
        candidates.push(format!("`{}`", c.variant));
        let before = counted[..i].iter().map(|c| c.branch.tokens(krate));
        let this = c.branch.tokens(krate);
        let require = require_at(krate, c.variant.span());
        let message = message_literal(&format!(
            "enum `{name}` is a structural union: {}, and with variant `{}` it has more than one object- or array-typed branch (structured branches can come from {}); clients that keep only the first branch (Langflow) or flatten unions (Gemini function calling) lose the others without an error\n{UNION_FIX}",
            analysis.repr,
            c.variant,
            candidates.join(", "),
        ));
        out.extend(quote_spanned! {c.variant.span()=>
            const _: () = {
                const BEFORE: #krate::Shape = #krate::Shape::NEVER #(.union(#before))*;
                const UPTO: #krate::Shape = BEFORE.union(#this);
                #require(!(BEFORE.structured() <= 1 && UPTO.structured() > 1), #message)
            };
        });
    }
    out
}

/// An `opaque` enum whose variants' shapes come from other types: no structural union among
/// them (checked by the compiler), or the error at `opaque` says to allow it instead.
fn opaque_union_assert(
    cont: &Container,
    counted: &[crate::check::Counted],
    opaque: &syn::Path,
    krate: Krate,
) -> TokenStream {
    if cont.is_generic() {
        return TokenStream::new();
    }
    let name = &cont.ident;
    let parts = counted.iter().map(|c| c.branch.tokens(krate));
    let span = syn::spanned::Spanned::span(opaque);
    let message = message_literal(&format!(
        "`opaque` on enum `{name}`, whose variants publish more than one object- or array-typed branch of one union; `opaque` is for a `JsonSchema` written by hand, and here it would keep that union without a reason\nfix: if `{name}` derives `JsonSchema`, replace `opaque` with `allow_union = \"reason (#issue)\"` or remove the union; if its `JsonSchema` is written by hand and publishes no such union, implement `ProviderSafe` for it by hand with the `SHAPE` it publishes instead of deriving it"
    ));
    let require = require_at(krate, span);
    quote_spanned! {span=>
        const _: () = #require(
            !#krate::Shape::NEVER #(.union(#parts))* .is_structural_union(),
            #message
        );
    }
}

/// A branch whose schema the derive cannot see (a type whose `SHAPE` is opaque, or a
/// `schema_with` variant) beside a branch that is or may be object- or array-typed fails at its
/// variant: the union may hold two structured branches and nothing here can tell. Cases settled
/// from syntax alone are reported by `check::check_hand_written_branches`.
fn hand_written_asserts(cont: &Container, analysis: &Analysis, krate: Krate) -> TokenStream {
    let ShapePlan::Union(counted) = &analysis.shape else {
        return TokenStream::new();
    };
    if cont.is_generic() || cont.attrs.allow_union.is_some() {
        return TokenStream::new();
    }
    let unseen = |b: &Branch| matches!(b, Branch::Of(_) | Branch::Opaque);
    let certain_structured = counted.iter().any(|c| c.branch.structured() == Some(true));
    let name = &cont.ident;
    let mut out = TokenStream::new();
    for (i, c) in counted.iter().enumerate() {
        if !unseen(&c.branch) {
            continue;
        }
        let others = counted
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, o)| &o.branch);
        let may_matter = others
            .clone()
            .any(|o| o.structured() != Some(false) || matches!(o, Branch::Opaque));
        // A `schema_with` variant beside a certain structured branch: reported from syntax.
        if !may_matter || (matches!(c.branch, Branch::Opaque) && certain_structured) {
            continue;
        }
        let this = c.branch.tokens(krate);
        let before = counted[..i].iter().map(|c| c.branch.tokens(krate));
        let rest = others.map(|b| b.tokens(krate));
        let require = require_at(krate, c.variant.span());
        let what = match &c.branch {
            Branch::Of(ty) => format!(
                "wraps `{}`, whose schema the derive cannot see (a hand-written `JsonSchema` marked `#[tool_schema(opaque)]`, or a newtype over a `#[schemars(schema_with = ...)]` field),",
                crate::shape::display_tokens(&quote!(#ty))
            ),
            _ => "publishes a hand-written schema (`#[schemars(schema_with = ...)]`)".to_owned(),
        };
        let message = message_literal(&format!(
            "variant `{name}::{}` {what} as a branch of the union beside a branch that is or may be object- or array-typed: if both are, clients that keep only the first branch or flatten unions lose one without an error\n{HAND_WRITTEN_FIX}",
            c.variant
        ));
        out.extend(quote_spanned! {c.variant.span()=>
            const _: () = {
                const THIS: #krate::Shape = #this;
                const BEFORE: #krate::Shape = #krate::Shape::NEVER #(.union(#before))*;
                const OTHERS: #krate::Shape = #krate::Shape::NEVER #(.union(#rest))*;
                #require(!(THIS.is_opaque() && (OTHERS.structured() > 0 || BEFORE.is_opaque())), #message)
            };
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Mode, derive, message_literal};

    /// Every input that reaches the fallback impls (which check nothing) comes with an error:
    /// a Rust `union`, attributes serde's parser refuses, and attributes the merge with
    /// `#[schemars]` could once have made refused (issue 50). Inputs that read are not fallbacks.
    #[test]
    fn no_fallback_is_silent() {
        let fallbacks: Vec<syn::DeriveInput> = vec![
            syn::parse_quote!(
                union U {
                    a: u32,
                }
            ),
            syn::parse_quote!(
                struct S {
                    #[serde(skip_deserializing, skip_deserializing)]
                    a: u32,
                }
            ),
            syn::parse_quote!(
                #[serde(tag = "t")]
                enum E {
                    A(u32, String),
                }
            ),
            syn::parse_quote!(
                struct S {
                    #[schemars(skip, skip_deserializing)]
                    a: u32,
                }
            ),
            syn::parse_quote!(
                struct S {
                    #[schemars(with = )]
                    a: u32,
                }
            ),
        ];
        for input in &fallbacks {
            for mode in [Mode::ToolParams, Mode::ProviderSafe] {
                let out = derive(input, mode).to_string();
                assert!(
                    out.contains("compile_error"),
                    "no error for {}:\n{out}",
                    quote::quote!(#input)
                );
            }
        }
        // Read as schemars reads them: no error, and the field checks are emitted.
        let read: Vec<syn::DeriveInput> = vec![
            syn::parse_quote!(
                struct S {
                    #[serde(default, skip_deserializing)]
                    #[schemars(skip)]
                    a: u32,
                    b: Other,
                }
            ),
            syn::parse_quote!(
                struct S {
                    #[schemars(skip)]
                    #[serde(skip_deserializing)]
                    #[serde(default)]
                    a: u32,
                    b: Other,
                }
            ),
        ];
        for input in &read {
            let out = derive(input, Mode::ToolParams).to_string();
            assert!(!out.contains("compile_error"), "{out}");
            assert!(out.contains("Shape :: OBJECT"), "{out}");
            assert!(out.contains("< Other as"), "field `b` unchecked: {out}");
        }
    }

    /// The literal reads back as the text itself, whatever quotes, hashes and braces it holds.
    #[test]
    fn message_literals_read_back_as_their_text() {
        for text in [
            "plain",
            "",
            "a `{\"Variant\": ...}` and {} and {{",
            "ends with a quote\"",
            "\"# and \"## inside, `#[tool_schema(allow_union = \"reason (#issue)\")]`",
            "line one\nline two\ttab \\ backslash",
            "a tag with a carriage return: \"t\r\"",
        ] {
            let lit = message_literal(text);
            let read: syn::LitStr = syn::parse2(quote::quote!(#lit)).expect("a string literal");
            assert_eq!(read.value(), text);
        }
    }
}
