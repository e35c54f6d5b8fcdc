//! The path of the `toolschema` crate in generated code: `::toolschema`, or the path given with
//! `#[tool_schema(crate = "...")]`.

use proc_macro2::{Ident, Punct, Spacing, Span, TokenStream};
use quote::{ToTokens, TokenStreamExt};
use syn::Path;

/// Interpolated as `#krate` many times per derive: the default path is written as its three
/// tokens each time rather than cloned from a stream, which inside a compiler costs a round trip
/// to the compiler per clone and per concatenation.
#[derive(Clone, Copy)]
pub struct Krate<'a>(pub Option<&'a Path>);

impl ToTokens for Krate<'_> {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match self.0 {
            Some(path) => path.to_tokens(tokens),
            None => {
                tokens.append(Punct::new(':', Spacing::Joint));
                tokens.append(Punct::new(':', Spacing::Alone));
                tokens.append(Ident::new("toolschema", Span::call_site()));
            }
        }
    }
}

impl Krate<'_> {
    /// The path with every token at `span` (a call the compiler reports at the span of the whole
    /// expression must not start with tokens at the derive).
    pub fn at(self, span: Span) -> TokenStream {
        match self.0 {
            None => quote::quote_spanned!(span=> ::toolschema),
            Some(path) => path
                .to_token_stream()
                .into_iter()
                .map(|mut token| {
                    token.set_span(span);
                    token
                })
                .collect(),
        }
    }
}
