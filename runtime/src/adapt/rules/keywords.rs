//! Keywords a provider does not take: spilled into the description (a model can read them) or
//! dropped, each with a loss; `default` written into the description for strict modes.

use serde_json::Value;

use super::{append_description, json_text, words};
use crate::adapt::report::LossKind;
use crate::adapt::tree::{Entry, Key, KeySet, Keyword, NodeId, Report, Rule, Tree};

/// Removes a provider's unsupported keywords: the human-readable ones (`spill`) are appended to
/// the node's description in words ("At least 0; at most 8 characters.", a `spilled` loss), the
/// others removed (a `dropped` loss), and so is a `format` that only restates the node's type
/// and bounds (schemars' `uint64` beside `minimum: 0`). `keep` and `also_keep` exempt what the
/// provider (or the caller) keeps.
#[derive(Clone, Debug)]
pub struct StripKeywords {
    /// The rule's name in reports.
    pub name: &'static str,
    /// The keywords removed (`KeySet::of(&[..])` in a `const`).
    pub keywords: KeySet,
    /// Of those, the ones written into the description.
    pub spill: &'static [&'static str],
    /// Why, in the losses' words.
    pub why: &'static str,
    /// Whether the provider keeps this keyword with this value after all.
    pub keep: fn(&str, &Value) -> bool,
    /// Keywords the caller keeps (`AdaptSettings::keep_keyword`).
    pub also_keep: Vec<String>,
}

impl Rule for StripKeywords {
    fn name(&self) -> &'static str {
        self.name
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let table = self.keywords;
        if !tree.any_entry(|e: &Entry| table.contains(&e.key)) {
            return;
        }
        let strip = Strip {
            removed: &|k| table.contains(k),
            spill: self.spill,
            why: self.why,
            keep: self.keep,
            also_keep: &self.also_keep,
        };
        tree.walk(|tree, id| strip.node(tree, id, report));
    }
}

/// What stripping one node needs: which keys go, which of those are written into the
/// description, why, and what the provider (or the caller) keeps after all.
pub(crate) struct Strip<'a> {
    /// Whether a key is removed.
    pub removed: &'a dyn Fn(&Key) -> bool,
    /// Of those, the ones written into the description.
    pub spill: &'a [&'a str],
    /// Why, in the losses' words.
    pub why: &'a str,
    /// Whether the provider keeps this keyword with this value after all.
    pub keep: fn(&str, &Value) -> bool,
    /// Keywords the caller keeps.
    pub also_keep: &'a [String],
}

impl Strip<'_> {
    /// Strips node `id`: each removed keyword spilled (a `spilled` loss) or dropped (a
    /// `dropped` loss), a `format` that only restates the type and bounds dropped.
    pub(crate) fn node(&self, tree: &mut Tree, id: NodeId, report: &mut Report) {
        let table = self.removed;
        if !tree.entries(id).iter().any(|e| table(&e.key)) {
            return;
        }
        let entries = tree.entries_mut(id).map(std::mem::take).unwrap_or_default();
        let number = |k: Keyword| {
            let e = entries.iter().find(|e| e.key == k)?;
            e.value.as_value().and_then(Value::as_f64)
        };
        let ty = (entries.iter().find(|e| e.key == Keyword::Type))
            .and_then(|e| e.value.as_value())
            .and_then(Value::as_str);
        let restated = |format: &Value| {
            format.as_str().is_some_and(|f| {
                words::restates_type(f, ty, number(Keyword::Minimum), number(Keyword::Maximum))
            })
        };
        let mut spilled: Vec<(String, Value)> = Vec::new();
        let mut losses = Vec::new();
        for entry in &entries {
            let key = entry.key.as_str();
            if !table(&entry.key) || self.also_keep.iter().any(|k| k == key) {
                continue;
            }
            let value = tree.slot_value(&entry.value);
            if (self.keep)(key, &value) {
                continue;
            }
            let shown = json_text(&value);
            if key == "format" && self.spill.contains(&key) && restated(&value) {
                let detail = format!(
                    "`format: {shown}` removed ({}); it only restates the node's type and bounds",
                    self.why
                );
                losses.push((entry.origin, key.to_owned(), LossKind::Dropped, detail));
            } else if self.spill.contains(&key) {
                // Its detail ends with the sentence, once it is written.
                let detail = format!(
                    "`{key}: {shown}` is not enforced by the provider ({})",
                    self.why
                );
                losses.push((entry.origin, key.to_owned(), LossKind::Spilled, detail));
                spilled.push((key.to_owned(), value));
            } else {
                let detail = format!("`{key}: {}` removed ({})", super::shown(&value), self.why);
                losses.push((entry.origin, key.to_owned(), LossKind::Dropped, detail));
            }
        }
        let kept = (entries.into_iter())
            .filter(|e| !losses.iter().any(|l| l.1 == e.key.as_str()))
            .collect();
        *tree.entries_mut(id).expect("an object") = kept;
        let said = if spilled.is_empty() {
            String::new()
        } else {
            words::said_as(&words::spill(tree, id, &spilled))
        };
        for (origin, key, kind, mut detail) in losses {
            if kind == LossKind::Spilled {
                detail.push_str(&said);
            }
            removed(report, origin, id, key, kind, detail);
        }
    }
}

/// Keywords that annotate and constrain no value (JSON Schema 2020-12 Validation, 9: "Basic
/// Meta-Data Annotations"; `$comment`, Core 8.3): a provider that does not take one loses no
/// enforcement with it.
pub(crate) const ANNOTATIONS: &[&str] = &[
    "title",
    "$comment",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// Reports keyword `key` of node `id` removed (or moved into the description): a loss, but for
/// an annotation ([`ANNOTATIONS`]), which constrains nothing and so loses no enforcement: a
/// change.
pub(crate) fn removed(
    report: &mut Report,
    origin: crate::adapt::tree::Origin,
    id: NodeId,
    key: String,
    kind: LossKind,
    detail: String,
) {
    if let Some(annotation) = ANNOTATIONS.iter().find(|a| **a == key) {
        report.annotation(origin, Some(id), annotation, detail);
    } else {
        report.loss(origin, Some(id), key, kind, detail);
    }
}

/// Moves `default` into the description (`(default: …)`), which strict modes do not accept: a
/// `spilled` loss.
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultToDescription;

impl Rule for DefaultToDescription {
    fn name(&self) -> &'static str {
        "default-to-description"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds(Keyword::Default) {
            return;
        }
        tree.walk(|tree, id| {
            let Some(entry) = tree.take(id, Keyword::Default) else {
                return;
            };
            let default = tree.slot_value(&entry.value);
            let text = match &default {
                Value::String(s) => s.clone(),
                other => json_text(other),
            };
            // The author may have written the default in the description already: then that text
            // is what the description says.
            let written =
                (tree.value(id, Keyword::Description).and_then(Value::as_str)).and_then(|d| {
                    let start = d.find("(default:")?;
                    let end = d[start..].find(')').map_or(d.len(), |e| start + e + 1);
                    Some(d[start..end].to_owned())
                });
            let phrase = written.unwrap_or_else(|| {
                let phrase = format!("(default: {text})");
                append_description(tree, id, &phrase, " ");
                phrase
            });
            let detail = format!(
                "`default: {}` is not accepted in strict mode{}",
                json_text(&default),
                words::said_as(&phrase)
            );
            report.loss(entry.origin, Some(id), "default", LossKind::Spilled, detail);
        });
    }
}

/// Keeps nothing: every listed keyword goes.
pub fn keep_none(_: &str, _: &Value) -> bool {
    false
}

/// The keywords a person reading a description wants to know: constraints and formats.
pub const HUMAN_READABLE: &[&str] = &[
    "pattern",
    "format",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "examples",
    "contentEncoding",
    "contentMediaType",
    "minContains",
    "maxContains",
    "default",
];
