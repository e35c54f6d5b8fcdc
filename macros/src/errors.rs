//! An error accumulator: every independent mistake of one derive is reported in one compile.

use std::fmt::Display;

use proc_macro2::TokenStream;
use quote::ToTokens;

/// Collects spanned errors; [`Errors::finish`] turns them into `compile_error!`s.
///
/// Dropping it with errors still inside is a bug in the macro, caught by the tests.
#[derive(Default)]
pub struct Errors {
    errors: Option<Vec<syn::Error>>,
}

impl Errors {
    pub fn new() -> Self {
        Errors {
            errors: Some(Vec::new()),
        }
    }

    /// An error at the span of `tokens`.
    pub fn spanned<T: ToTokens, M: Display>(&mut self, tokens: T, message: M) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    pub fn push(&mut self, error: syn::Error) {
        self.errors
            .as_mut()
            .expect("errors already finished")
            .push(error);
    }

    pub fn is_empty(&self) -> bool {
        self.errors.as_ref().is_none_or(Vec::is_empty)
    }

    /// The `compile_error!`s, one per error, each at its own span.
    pub fn finish(mut self) -> TokenStream {
        let errors = self.errors.take().unwrap_or_default();
        errors.into_iter().map(|e| e.to_compile_error()).collect()
    }
}

impl Drop for Errors {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.as_ref().is_some_and(|e| !e.is_empty()) {
            panic!("toolschema-macros: errors were collected but never emitted");
        }
    }
}
