//! Keywords a provider does not take: spilled into the description (a model can read them) or
//! dropped, each with a loss; `default` written into the description for strict modes.

use serde_json::Value;

use super::{append_description, json_text};
use crate::adapt::report::LossKind;
use crate::adapt::rules::write_json_text;
use crate::adapt::tree::{Entry, KeySet, Keyword, NodeId, Report, Rule, Tree};

/// Removes a provider's unsupported keywords: the human-readable ones (`spill`) are appended to
/// the node's description as `{key: value, ...}` (a `spilled` loss), the others removed (a
/// `dropped` loss). `keep` and `also_keep` exempt what the provider (or the caller) keeps.
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
        tree.walk(|tree, id| self.node(tree, id, &table, report));
    }
}

impl StripKeywords {
    fn node(&self, tree: &mut Tree, id: NodeId, table: &KeySet, report: &mut Report) {
        if !tree.entries(id).iter().any(|e| table.contains(&e.key)) {
            return;
        }
        let entries = tree.entries_mut(id).map(std::mem::take).unwrap_or_default();
        let mut kept = Vec::with_capacity(entries.len());
        let mut spilled: Vec<(String, Value)> = Vec::new();
        for entry in entries {
            let key = entry.key.as_str();
            if !table.contains(&entry.key) || self.also_keep.iter().any(|k| k == key) {
                kept.push(entry);
                continue;
            }
            let value = tree.slot_value(&entry.value);
            if (self.keep)(key, &value) {
                kept.push(entry);
                continue;
            }
            let key = key.to_owned();
            if self.spill.contains(&key.as_str()) {
                let mut detail = format!("`{key}: ");
                write_json_text(&mut detail, &value);
                detail.push_str("` is not enforced by the provider (");
                detail.push_str(self.why);
                detail.push_str("); it is in the description");
                report.loss(
                    entry.origin,
                    Some(id),
                    key.clone(),
                    LossKind::Spilled,
                    detail,
                );
                spilled.push((key, value));
            } else {
                let detail = format!("`{key}: {}` removed ({})", super::shown(&value), self.why);
                report.loss(entry.origin, Some(id), key, LossKind::Dropped, detail);
            }
        }
        *tree.entries_mut(id).expect("an object") = kept;
        if !spilled.is_empty() {
            spill(tree, id, &spilled);
        }
    }
}

/// Appends `{k1: v1, k2: v2}` (values as JSON) to the node's description, after a blank line,
/// or makes it the description: the reference implementation's spill format.
pub(crate) fn spill(tree: &mut Tree, id: NodeId, entries: &[(String, Value)]) {
    let mut block = String::from("{");
    for (i, (k, v)) in entries.iter().enumerate() {
        if i > 0 {
            block.push_str(", ");
        }
        block.push_str(k);
        block.push_str(": ");
        write_json_text(&mut block, v);
    }
    block.push('}');
    append_description(tree, id, &block, "\n\n");
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
            let already = (tree.value(id, Keyword::Description).and_then(Value::as_str))
                .is_some_and(|d| d.contains("(default:"));
            if !already {
                append_description(tree, id, &format!("(default: {text})"), " ");
            }
            let detail = format!(
                "`default: {}` is not accepted in strict mode; it is in the description",
                json_text(&default)
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
];
