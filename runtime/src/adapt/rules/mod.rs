//! The rules, one small transform per provider rule, on a [`Tree`] whose nodes know where they
//! stood in the input. A target is an ordered list of them ([`crate::adapt::AdaptSettings`]);
//! [`apply`] runs a list on a schema, [`Logged`] makes one a `schemars` `Transform`, and
//! [`crate::adapt::AdaptSettings::with_rule`] adds a caller's own.

mod arrays;
mod bounds;
mod cca;
mod degrade;
mod draft;
mod empty;
mod encode;
mod enums;
mod fields;
mod google;
mod google_values;
mod grammar;
mod inline;
mod keywords;
mod maps;
pub(crate) mod merge;
mod objects;
mod open;
mod openapi;
mod order;
mod patterns;
mod recursion;
mod refs;
mod regex_engine;
mod responses;
mod root;
mod strict;
mod types;
mod unions;
mod valid;
mod values;
pub(crate) mod words;
mod xgrammar;

// The built-in rules are public for the workspace's own tests and for a caller who composes
// a target from them, but hidden from the docs: a server author never names one, and a
// report names the rule behind each loss and change (`rule`).
#[doc(hidden)]
pub use arrays::TupleItems;
#[doc(hidden)]
pub use bounds::Draft04Bounds;
#[doc(hidden)]
pub use cca::{NullablePropertiesOptional, ResidualGate};
#[doc(hidden)]
pub use degrade::StructuralUnionKept;
#[doc(hidden)]
pub use draft::UpgradeDraft07;
#[doc(hidden)]
pub use empty::EmptyChoices;
#[doc(hidden)]
pub use encode::{EncodeAny, EncodeMaps, UnrollRecursion};
#[doc(hidden)]
pub use enums::{AllConstToEnum, ConstToEnum, InferType};
#[doc(hidden)]
pub use fields::OnlyFields;
#[doc(hidden)]
pub use google::{BoolItems, BoolSchemas, EnsureProperties, PropertyOrdering, SnakeCaseKeywords};
#[doc(hidden)]
pub use google_values::{GoogleNullable, OneBranchUnions, RequiredAreProperties, StringEnumsOnly};
#[doc(hidden)]
pub use grammar::{
    LLAMA_CPP_ITEMS, LLAMA_CPP_REPETITIONS, LlamaCppPatterns, LlamaCppReads, SiblingsIntoBranches,
};
#[doc(hidden)]
pub use inline::{InlineRefs, InlineRefsNotUnder, OrphanedDefinitions, UnreferencedDefinitions};
#[doc(hidden)]
pub use keywords::DefaultToDescription;
pub use keywords::StripKeywords;
pub(crate) use keywords::{HUMAN_READABLE, keep_none};
#[doc(hidden)]
pub use maps::OpenMaps;
#[doc(hidden)]
pub use merge::CollapseCombiners;
#[doc(hidden)]
pub use objects::{CloseObjects, Optional};
#[doc(hidden)]
pub use open::OpenSubschemas;
#[doc(hidden)]
pub use openapi::OpenApiSchemaFields;
#[doc(hidden)]
pub use order::StructuredFirst;
#[doc(hidden)]
pub use patterns::PatternsCompile;
pub(crate) use patterns::pattern_refusal;
#[doc(hidden)]
pub use recursion::InlineRefusedRefs;
#[doc(hidden)]
pub use refs::{MergeSingleAllOf, ResolveRefSiblings, WrapRefSiblings};
#[doc(hidden)]
pub use regex_engine::{RegexEnginePatterns, UnsatisfiableRoot};
#[doc(hidden)]
pub use responses::ResponsesPrepass;
pub(crate) use responses::has_lookaround;
#[doc(hidden)]
pub use root::{ObjectRoot, RemoveRootTitle, RemoveSchemaUri, RootCombinators};
#[doc(hidden)]
pub use strict::{AnthropicStrictCheck, StrictPrecheck, TypedWithinLimits};
#[doc(hidden)]
pub use types::SplitTypeArrays;
#[doc(hidden)]
pub use unions::{OneOfToAnyOf, SpliceNestedAnyOf};
pub use valid::ValidKeywords;
#[doc(hidden)]
pub use xgrammar::{XGRAMMAR_FORMATS, XgrammarPatterns, XgrammarReads, XgrammarRefs};

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::Value;

pub use super::tree::{
    Body, Entry, Fix, Key, KeySet, Keyword, NodeId, Origin, Reached, Refused, Report, Rule, Slot,
    Tree, WalkStep,
};
use crate::adapt::report::{Change, Loss, LossKind, Unrepresentable};
pub(crate) use values::{
    HeldStrings, homogeneous_type, joined_description, json_text, push_each_once, value_type,
};

/// `type` of node `id` as a list of names (empty when absent).
pub(crate) fn type_names(tree: &Tree, id: NodeId) -> Vec<&str> {
    match tree.value(id, Keyword::Type) {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether node `id`'s `type` is `name` or a list holding it.
pub(crate) fn has_type(tree: &Tree, id: NodeId, name: &str) -> bool {
    match tree.value(id, Keyword::Type) {
        Some(Value::String(t)) => t == name,
        Some(Value::Array(ts)) => ts.iter().any(|t| t.as_str() == Some(name)),
        _ => false,
    }
}

/// The keywords that say what a node accepts: without any of them it accepts any value.
pub(crate) const TYPING: [Keyword; 7] = [
    Keyword::Type,
    Keyword::AnyOf,
    Keyword::OneOf,
    Keyword::AllOf,
    Keyword::Ref,
    Keyword::Enum,
    Keyword::Const,
];

/// The string value of `key` at node `id`.
pub(crate) fn str_of(tree: &Tree, id: NodeId, key: Keyword) -> Option<&str> {
    tree.value(id, key).and_then(Value::as_str)
}

/// Appends text to the node's description (after `separator`), or makes it the description.
pub(crate) fn append_description(tree: &mut Tree, id: NodeId, text: &str, separator: &str) {
    match tree.value_mut(id, Keyword::Description) {
        Some(Value::String(d)) if !d.is_empty() => {
            d.push_str(separator);
            d.push_str(text);
        }
        _ => tree.set_value(id, Keyword::Description, Value::String(text.to_owned())),
    }
}

/// Joins a `description` entry of another node after node `node`'s own description (each text
/// once); the joined entry keeps the node's place when it had one.
pub(crate) fn join_description(tree: &mut Tree, node: NodeId, description: &Entry) {
    let own = tree.value(node, Keyword::Description);
    // An empty text of the node's own is replaced, not joined: the text is then the other's,
    // and so is its place.
    let replaced = own.and_then(Value::as_str).is_some_and(str::is_empty);
    if let Some(joined) = joined_description(own, description.value.as_value()) {
        let origin = match tree.get(node, Keyword::Description) {
            Some(e) if !(replaced && Some(&joined) == description.value.as_value()) => e.origin,
            _ => description.origin,
        };
        tree.set(
            node,
            Entry {
                key: description.key.clone(),
                value: Slot::Value(joined),
                origin,
            },
        );
    }
}

/// A value's JSON text for a report, cut after 80 characters (with `…`).
pub(crate) fn shown(value: &Value) -> String {
    let text = json_text(value);
    match text.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

/// Takes a branch's (or a reference target's) entries into a node that keeps its own: the
/// node's entries win, and the two descriptions are joined (the node's first), so that nothing
/// a rule spilled into the branch's description is lost. A branch entry the node's own value
/// replaces is reported dropped. Moved entries keep their origins; the branch is left empty,
/// merged into the node.
pub(crate) fn absorb(tree: &mut Tree, node: NodeId, branch: NodeId, report: &mut Report) {
    let entries = tree
        .entries_mut(branch)
        .map(std::mem::take)
        .unwrap_or_default();
    tree.node_mut(branch).merged_into = Some(node);
    for entry in entries {
        if entry.key == Keyword::Description {
            join_description(tree, node, &entry);
            continue;
        }
        let Some(own) = tree.entries(node).iter().find(|e| e.key == entry.key) else {
            tree.set(node, entry);
            continue;
        };
        if tree.same_slot(&own.value, &entry.value) {
            continue;
        }
        let k = entry.key.as_str().to_owned();
        let detail = format!(
            "`{k}: {}` of a merged branch is replaced by the node's own `{k}: {}`",
            json_text(&tree.slot_value(&entry.value)),
            json_text(&tree.slot_value(&own.value))
        );
        report.loss(entry.origin, Some(node), k, LossKind::Dropped, detail);
    }
}

/// The strings of a plain list value (`required`), in order.
pub(crate) fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Object-shaped: `type: "object"`, or no type with `properties`/`required`.
pub(crate) fn object_shaped(tree: &Tree, id: NodeId) -> bool {
    tree.is_object(id)
        && match tree.value(id, Keyword::Type) {
            Some(Value::String(t)) => t == "object",
            None => {
                !tree.has(id, Keyword::Type)
                    && (tree.has(id, Keyword::Properties) || tree.has(id, Keyword::Required))
            }
            _ => false,
        }
}

/// What [`apply`] gives: the rewritten schema and what the rules reported.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Applied {
    /// The schema the rules leave.
    pub schema: Value,
    /// What was lost, each at its place in the input (`pointer`) and in `schema` (`at`).
    pub losses: Vec<Loss>,
    /// What was changed without loss.
    pub changes: Vec<Change>,
    /// Why a rule refused the schema; the rules after it did not run.
    pub failure: Option<Unrepresentable>,
}

/// Runs `rules` in order on `schema`, as a target runs its lists (stopping at the first rule
/// that refuses it), without the target's strict attempt, fail-open or fallback.
///
/// ```
/// use serde_json::json;
/// use toolschema::adapt::rules::{self, OneOfToAnyOf, Rule};
///
/// let schema = json!({"type": "object", "properties": {"v": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}});
/// let applied = rules::apply(&mut [Box::new(OneOfToAnyOf) as Box<dyn Rule>], &schema);
/// assert!(applied.schema["properties"]["v"]["anyOf"].is_array());
/// assert_eq!(applied.changes[0].pointer.as_str(), "/properties/v");
/// ```
pub fn apply(rules: &mut [Box<dyn Rule>], schema: &Value) -> Applied {
    let mut tree = Tree::read(schema);
    let mut report = Report::default();
    crate::adapt::engine::run(rules, &mut tree, &mut report);
    let failure = report.take_failure(&tree).map(|(why, _)| why);
    let (schema, losses, changes) = crate::adapt::tree::report::finish(tree, report);
    Applied {
        schema,
        losses,
        changes,
        failure,
    }
}

/// A [`Rule`] as a `schemars` [`Transform`] (for `SchemaSettings::with_transform`), keeping
/// what it reported.
#[derive(Clone, Debug, Default)]
pub struct Logged<R> {
    /// The rule.
    pub rule: R,
    /// What it lost so far, over every schema it transformed.
    pub losses: Vec<Loss>,
    /// What it changed so far.
    pub changes: Vec<Change>,
    /// Why it refused a schema (the schema is then left as it was).
    pub failures: Vec<Unrepresentable>,
}

impl<R> Logged<R> {
    /// Wraps a rule.
    pub fn new(rule: R) -> Self {
        Logged {
            rule,
            losses: Vec::new(),
            changes: Vec::new(),
            failures: Vec::new(),
        }
    }
}

impl<R: Rule + Clone + 'static> Transform for Logged<R> {
    fn transform(&mut self, schema: &mut Schema) {
        let mut rules: [Box<dyn Rule>; 1] = [Box::new(self.rule.clone())];
        let applied = apply(&mut rules, schema.as_value());
        self.losses.extend(applied.losses);
        self.changes.extend(applied.changes);
        match applied.failure {
            Some(why) => self.failures.push(why),
            None => {
                if let Ok(out) = Schema::try_from(applied.schema) {
                    *schema = out;
                }
            }
        }
    }
}

/// Applies one rule to a document, for the rules' tests: the output and the report's entries.
#[cfg(test)]
pub(crate) fn run(
    rule: &mut dyn Rule,
    input: Value,
) -> (
    Value,
    Vec<crate::adapt::Loss>,
    Vec<crate::adapt::Change>,
    Option<String>,
) {
    let mut tree = Tree::read(&input);
    let mut report = Report::default();
    report.rule = rule.name();
    rule.apply(&mut tree, &mut report);
    let failure = report.take_failure(&tree).map(|(f, _)| f.to_string());
    let (out, losses, changes) = crate::adapt::tree::report::finish(tree, report);
    (out, losses, changes, failure)
}

/// The rule of docs/adapt-engine.md's walkthrough "add a rule that moves subschemas", as it is
/// written there: the walkthrough must compile and do what it says.
#[cfg(test)]
mod walkthrough {
    use super::*;

    struct OneBranchAnyOf;

    #[rustfmt::skip]
    impl Rule for OneBranchAnyOf {
        fn name(&self) -> &'static str { "one-branch-any-of" }
        fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
            if !tree.holds(Keyword::AnyOf) { return; }
            tree.walk_children_first(|tree, id| {
                let Some(Slot::Schemas(branches)) = tree.slot_mut(id, Keyword::AnyOf) else { return };
                if branches.len() != 1 { return; }
                let branch = branches[0];
                let entry = tree.take(id, Keyword::AnyOf).expect("held");
                absorb(tree, id, branch, report); // the branch's entries move into the node
                report.change(entry.origin, Some(id), "`anyOf` of one branch → the branch");
            });
        }
    }

    /// The branch's keywords keep their input places through the move: a later rule's loss on
    /// one points where it stood, and is at the node.
    #[test]
    fn moved_entries_point_where_they_stood() {
        let doc = serde_json::json!({"type": "object", "properties": {
            "a": {"description": "A", "anyOf": [{"type": "string", "format": "date"}]}
        }});
        let mut rules: Vec<Box<dyn Rule>> = vec![
            Box::new(OneBranchAnyOf),
            Box::new(StripKeywords {
                name: "strip",
                keywords: KeySet::of(&["format"]),
                spill: &[],
                why: "test",
                keep: keep_none,
                also_keep: Vec::new(),
            }),
        ];
        let applied = apply(&mut rules, &doc);
        assert_eq!(
            applied.schema["properties"]["a"],
            serde_json::json!({"description": "A", "type": "string"})
        );
        assert_eq!(applied.changes[0].pointer, "/properties/a/anyOf");
        assert_eq!(applied.changes[0].at.as_deref(), Some("/properties/a"));
        let loss = &applied.losses[0];
        assert_eq!(loss.pointer, "/properties/a/anyOf/0/format");
        assert_eq!(loss.at.as_deref(), Some("/properties/a"));
    }
}

/// [`Logged`] as schemars runs it: the rule rewrites the generated schema and keeps its report.
#[cfg(test)]
mod logged {
    use super::*;

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Search {
        /// What to find.
        query: String,
        mode: Mode,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    enum Mode {
        /// Quick.
        Fast,
        /// Thorough.
        Deep,
    }

    #[test]
    fn a_rule_runs_as_a_schemars_transform() {
        let mut logged = Logged::new(OneOfToAnyOf);
        let mut schema = schemars::SchemaGenerator::default().into_root_schema_for::<Search>();
        let before = schema.as_value().to_string();
        assert!(before.contains("oneOf"), "{before}");
        logged.transform(&mut schema);
        let after = schema.as_value().to_string();
        assert!(
            !after.contains("oneOf") && after.contains("anyOf"),
            "{after}"
        );
        assert!(logged.failures.is_empty());
        assert_eq!(
            logged.changes.len() + logged.losses.len(),
            1,
            "{:?}",
            logged.changes
        );
        let entry = logged
            .changes
            .first()
            .map(|c| &c.pointer)
            .or(logged.losses.first().map(|l| &l.pointer));
        assert_eq!(entry.map(|p| p.as_str()), Some("/$defs/Mode"));
    }
}
