//! What an adaptation gives back ([`Adapted`]), and the choices a target leaves to the caller
//! ([`AdaptOptions`]).

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use super::{Change, Encoded, Loss, Target};

/// A schema adapted for one target, with what it changed and lost. It borrows the input when
/// adapted from a reference ([`Target::adapt`]); [`Adapted::into_owned`] (or
/// [`Target::adapt_owned`]) gives one that owns it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Adapted<'a> {
    /// The target.
    pub target: Target,
    /// The schema to send.
    pub schema: Value,
    /// For targets with a strict flag: `Some(true)` only when strict enforcement succeeded.
    pub strict: Option<bool>,
    /// The per-tool fallback (`{"type": "object", "properties": {}}`) was used.
    pub fallback: bool,
    /// Everything the output no longer enforces.
    pub losses: Vec<Loss>,
    /// Rewrites that keep what the schema enforces (or change only the shape of arguments).
    pub changes: Vec<Change>,
    /// Places sent in another form than their own ([`AdaptSettings::with_encoding`]), each
    /// decoded back by [`crate::restore`]; empty unless encoding is on.
    ///
    /// [`AdaptSettings::with_encoding`]: super::AdaptSettings::with_encoding
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub encoded: Vec<Encoded>,
    /// The schema before adaptation: arguments are restored and validated against it
    /// ([`crate::restore`]).
    #[serde(skip)]
    pub input: Cow<'a, Value>,
}

impl Adapted<'_> {
    /// The same adaptation owning its input (a copy of it when it was borrowed).
    pub fn into_owned(self) -> Adapted<'static> {
        Adapted {
            target: self.target,
            schema: self.schema,
            strict: self.strict,
            fallback: self.fallback,
            losses: self.losses,
            changes: self.changes,
            encoded: self.encoded,
            input: Cow::Owned(self.input.into_owned()),
        }
    }
}

/// Choices a target leaves to the caller; [`AdaptOptions::default`] is what [`Target::adapt`] uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct AdaptOptions {
    /// OpenAI strict and Responses: spill every value constraint into the description instead of
    /// sending the ones OpenAI enforces in strict mode (`pattern`, `format` from OpenAI's list,
    /// `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`/`multipleOf`,
    /// `minItems`/`maxItems`). OpenAI's Structured Outputs guide
    /// (<https://platform.openai.com/docs/guides/structured-outputs#supported-schemas>) says these
    /// "are not yet supported for fine-tuned models": set this for a fine-tuned model. It is the
    /// reference implementation's behaviour, written when the guide rejected all of them.
    pub openai_conservative: bool,
}

impl AdaptOptions {
    /// OpenAI strict spills every value constraint (for fine-tuned models).
    pub fn openai_conservative(mut self, yes: bool) -> Self {
        self.openai_conservative = yes;
        self
    }
}
