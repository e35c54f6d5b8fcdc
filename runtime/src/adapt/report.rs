//! What an adaptation changed, and what it lost: the report is the guarantee that nothing is
//! lost silently.

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;

pub use super::pointer::Pointer;

/// How a constraint stopped being enforced by the provider.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum LossKind {
    /// Removed from the schema and written into the node's `description`: the model can read
    /// it, the provider no longer enforces it.
    Spilled,
    /// Removed without a trace in the schema.
    Dropped,
    /// Several branches or types merged into one; values of the others are no longer accepted
    /// or no longer distinguished.
    Collapsed,
    /// The schema accepts more than before (`oneOf` read as `anyOf`, a closed choice opened).
    Widened,
    /// A `$ref` replaced by its target, or recursion cut at a bounded depth.
    Inlined,
    /// The whole tool fell back to a simpler schema (non-strict, or the empty object).
    Fallback,
}

/// One keyword, branch or constraint whose enforcement the output no longer carries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Loss {
    /// JSON Pointer into the input schema, as the caller passed it: the keyword itself where it
    /// still names one, else its node (for a node made by inlining a `$ref`: the definition).
    pub pointer: Pointer,
    /// JSON Pointer of the node in the output where the place now is (a spilled keyword is in
    /// that node's `description`); absent when the node is gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<Pointer>,
    /// The keyword (or `strict`, `root`, ... for whole-schema fallbacks). A JSON Schema keyword is
    /// kept without a copy, as [`Change::detail`]'s fixed words are.
    pub keyword: Cow<'static, str>,
    /// How it was lost.
    pub kind: LossKind,
    /// The value and why, in words.
    pub detail: String,
    /// The rule that made it ([`crate::adapt::rules::Rule::name`]), or the engine's step:
    /// `fail-open` (strict refused), `fallback` (the per-tool fallback), `strict-budget` (a
    /// provider's per-request strict limits).
    pub rule: &'static str,
    /// How many branch moves had been logged when it was recorded (its pointer is in the
    /// coordinates after those moves).
    #[serde(skip)]
    pub(crate) epoch: usize,
}

/// A rewrite that keeps what the schema enforces (reordering, renaming, equivalent forms), or
/// changes what the model sends back without loosening the schema (an optional property made
/// required and nullable).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Change {
    /// JSON Pointer of the node in the input schema.
    pub pointer: Pointer,
    /// JSON Pointer of the node in the output; absent when the node is gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<Pointer>,
    /// The rule that made it ([`crate::adapt::rules::Rule::name`]).
    pub rule: &'static str,
    /// What it did (most rules' words are fixed text, kept without a copy).
    pub detail: Cow<'static, str>,
    /// How many branch moves had been logged when it was recorded (as for [`Loss`]).
    #[serde(skip)]
    pub(crate) epoch: usize,
}

/// Why a schema cannot be represented for a target (strict mode fails open on this).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Unrepresentable {
    /// Where.
    pub pointer: String,
    /// Why, and what the provider would need.
    pub reason: String,
}

impl fmt::Display for Unrepresentable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "the root"
        } else {
            &self.pointer
        };
        write!(f, "at {at}: {}", self.reason)
    }
}

/// The log one rule (or a whole pipeline) keeps.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RuleReport {
    /// What was lost.
    pub losses: Vec<Loss>,
    /// What was changed without loss.
    pub changes: Vec<Change>,
    /// Set when the schema cannot be represented for the target.
    pub failure: Option<Unrepresentable>,
    /// The rule running, named in every loss it records.
    pub(crate) rule: &'static str,
    /// Union branches removed or reordered, in order: how to take a later position back to the
    /// input's branch indices.
    pub(crate) moves: Vec<BranchMove>,
    /// Moves logged by the rules before this report's (set by the engine).
    pub(crate) moves_before: usize,
}

/// Schemas that changed places, logged by the rules that move them, so that a position recorded
/// afterwards can be taken back to where it was before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum BranchMove {
    /// A union's branches were removed or reordered: the branch now at index `k` of
    /// `at/keyword` was at `from[k]` before.
    Reordered {
        at: Pointer,
        keyword: &'static str,
        from: Vec<usize>,
    },
    /// Unions that were branches of the union `at/anyOf` had their branches spliced into it: the
    /// branch now at index `k` was `from[k].0` before, or branch `from[k].1` of the union that
    /// was there.
    Spliced {
        at: Pointer,
        from: Vec<(usize, Option<usize>)>,
    },
    /// The keywords `keys` of the schema at `from` (a union's branch, a `$ref`'s target) were
    /// merged into the node at `at`: `at/K/...` was `from/K/...` before, for `K` in `keys`.
    /// When `gone`, the schema at `from` was removed with it (a branch merged into its node):
    /// all of it, its description joined into the node's, now stands at `at`.
    Lifted {
        at: Pointer,
        from: Pointer,
        keys: Vec<String>,
        gone: bool,
    },
    /// The definition at `from` was inlined where it is first used, the node at `at` (a `$ref`
    /// there, in the coordinates of the rule's input; where that node is itself in a definition,
    /// a later `Inlined` of that definition takes it on). `from` and everything below it is at
    /// `at` after; a position below `at` came from `from` unless it is under one of `kept`, the
    /// keywords the referring node had itself (its own win where both have one).
    Inlined {
        at: Pointer,
        from: Pointer,
        kept: Vec<String>,
    },
    /// The type list of the node at `at` was split into an `anyOf` of one branch per type, of
    /// the types `types` (in order): each keyword but `type` and `description` went to the
    /// branches whose type keeps it.
    Split {
        at: Pointer,
        types: Vec<Cow<'static, str>>,
    },
    /// The node at `at` was wrapped in a union with null (an optional property made required
    /// and nullable): its keywords but `description` are in `at/anyOf/0` after; `at/anyOf/1` is
    /// the null branch.
    Wrapped { at: Pointer },
    /// The schema at `from` was removed and what it said in words (its descriptions) was
    /// written into the description of the node at `at`: everything recorded in it is placed
    /// at that node.
    Folded { at: Pointer, from: Pointer },
    /// The tuple at `at` was sent as one `items` schema: position `k` of its `prefixItems` is
    /// branch `to[k]` of `at/items/anyOf` (or `at/items` itself when `single`), and its `items`
    /// past the positions, where kept, is branch `rest`.
    Tuple {
        at: Pointer,
        to: Vec<usize>,
        rest: Option<usize>,
        single: bool,
    },
}

impl RuleReport {
    /// An empty report for what `rule` records.
    pub fn for_rule(rule: &'static str) -> Self {
        RuleReport {
            rule,
            ..RuleReport::default()
        }
    }

    /// Records a loss.
    pub fn loss(
        &mut self,
        pointer: impl Into<Pointer>,
        keyword: &str,
        kind: LossKind,
        detail: impl Into<String>,
    ) {
        self.losses.push(Loss {
            pointer: pointer.into(),
            at: None,
            keyword: super::holds::keyword_name(keyword),
            kind,
            detail: detail.into(),
            rule: self.rule,
            epoch: self.moves_before + self.moves.len(),
        });
    }

    /// Records a change, named after the rule running ([`RuleReport::for_rule`]).
    pub fn change(&mut self, pointer: impl Into<Pointer>, detail: impl Into<Cow<'static, str>>) {
        self.changes.push(Change {
            pointer: pointer.into(),
            at: None,
            rule: self.rule,
            detail: detail.into(),
            epoch: self.moves_before + self.moves.len(),
        });
    }

    /// Logs that the branches of `at/keyword` moved: the one now at `k` was at `from[k]`.
    pub(crate) fn moved(&mut self, at: Pointer, keyword: &'static str, from: Vec<usize>) {
        self.moves.push(BranchMove::Reordered { at, keyword, from });
    }

    /// Logs that the `anyOf` branches of `at` that were unions were spliced into it: the branch
    /// now at `k` was `from[k]` (its index before, and its index in the union it was in).
    pub(crate) fn spliced(&mut self, at: Pointer, from: Vec<(usize, Option<usize>)>) {
        self.moves.push(BranchMove::Spliced { at, from });
    }

    /// Logs that the keywords `keys` of the schema at `from` were merged into the node at `at`
    /// (and, when `gone`, that the schema at `from` was removed).
    pub(crate) fn lifted(
        &mut self,
        at: impl Into<Pointer>,
        from: impl Into<Pointer>,
        keys: Vec<String>,
        gone: bool,
    ) {
        if gone || !keys.is_empty() {
            self.moves.push(BranchMove::Lifted {
                at: at.into(),
                from: from.into(),
                keys,
                gone,
            });
        }
    }

    /// Logs that the definition at `from` was inlined at `at`, whose own keywords `kept` stay.
    pub(crate) fn inlined(
        &mut self,
        at: impl Into<Pointer>,
        from: impl Into<Pointer>,
        kept: Vec<String>,
    ) {
        self.moves.push(BranchMove::Inlined {
            at: at.into(),
            from: from.into(),
            kept,
        });
    }

    /// Logs that the type list at `at` was split into `anyOf` branches of `types`.
    pub(crate) fn split(&mut self, at: Pointer, types: Vec<Cow<'static, str>>) {
        self.moves.push(BranchMove::Split { at, types });
    }

    /// Logs that the node at `at` was wrapped as `{anyOf: [node, null], description}`.
    pub(crate) fn wrapped(&mut self, at: Pointer) {
        self.moves.push(BranchMove::Wrapped { at });
    }

    /// Logs that the schema at `from` was removed, its descriptions written into `at`'s.
    pub(crate) fn folded(&mut self, at: impl Into<Pointer>, from: impl Into<Pointer>) {
        self.moves.push(BranchMove::Folded {
            at: at.into(),
            from: from.into(),
        });
    }

    /// Logs that the tuple at `at` was sent as `items`: position `k` is its branch `to[k]`, the
    /// schema past the positions branch `rest` (the schema itself when `single`).
    pub(crate) fn tupled(
        &mut self,
        at: Pointer,
        to: Vec<usize>,
        rest: Option<usize>,
        single: bool,
    ) {
        self.moves.push(BranchMove::Tuple {
            at,
            to,
            rest,
            single,
        });
    }

    /// Records the first reason the schema cannot be represented.
    pub fn fail(&mut self, pointer: impl Into<Pointer>, reason: impl Into<String>) {
        if self.failure.is_none() {
            self.failure = Some(Unrepresentable {
                pointer: pointer.into().as_str().to_owned(),
                reason: reason.into(),
            });
        }
    }

    /// Moves another report's entries into this one.
    pub fn absorb(&mut self, other: RuleReport) {
        // Most rules record nothing, and the first that records makes the list: both cost no
        // copy and no iterator.
        fn append<T>(into: &mut Vec<T>, from: Vec<T>) {
            if into.is_empty() {
                if !from.is_empty() {
                    *into = from;
                }
            } else if !from.is_empty() {
                into.extend(from);
            }
        }
        append(&mut self.moves, other.moves);
        append(&mut self.losses, other.losses);
        append(&mut self.changes, other.changes);
        if self.failure.is_none() {
            self.failure = other.failure;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loss names a keyword of the vocabulary without a copy of it; any other name is kept
    /// whole: a property's, a keyword with a letter more, or a name of a long keyword's length
    /// that shares its first and last eight bytes (the look-up's sketch of it).
    #[test]
    fn loss_keywords_are_borrowed_only_when_they_are_keywords() {
        let mut report = RuleReport::for_rule("test");
        for keyword in [
            "maxLength",
            "$defs",
            "maxLengthX",
            "a property",
            "additionalProperties",
            "additionXXXXoperties",
        ] {
            report.loss(Pointer::root(), keyword, LossKind::Dropped, "d");
        }
        let kept: Vec<(&str, bool)> = report
            .losses
            .iter()
            .map(|l| (&*l.keyword, matches!(l.keyword, Cow::Borrowed(_))))
            .collect();
        assert_eq!(
            kept,
            [
                ("maxLength", true),
                ("$defs", true),
                ("maxLengthX", false),
                ("a property", false),
                ("additionalProperties", true),
                // Past 16 bytes a name may share a keyword's sketch: it is compared whole.
                ("additionXXXXoperties", false),
            ]
        );
    }
}
