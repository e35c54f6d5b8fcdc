//! The root every provider requires: an object, without combinators at the top level, and no
//! `$schema` anywhere.

use serde_json::Value;

use super::{absorb, merge::merge_objects, object_shaped, str_of, type_names};
use crate::adapt::report::LossKind;
use crate::adapt::tree::{Body, Entry, Keyword, Refused, Report, Rule, Slot, Tree};

/// Removes `$schema` (rmcp publishes it; VS Code tried to fetch an unreachable one, and some
/// validators cannot resolve the 2020-12 URI). It declares the dialect, which the target fixes
/// anyway: a change, not a loss.
#[derive(Clone, Copy, Debug, Default)]
pub struct RemoveSchemaUri;

impl Rule for RemoveSchemaUri {
    fn name(&self) -> &'static str {
        "remove-schema-uri"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds(Keyword::Schema) {
            return;
        }
        tree.walk(|tree, id| {
            if let Some(Entry {
                value: Slot::Value(uri),
                ..
            }) = tree.take(id, Keyword::Schema)
            {
                report.change(
                    tree.node(id).origin,
                    Some(id),
                    format!("`$schema: {uri}` removed"),
                );
            }
        });
    }
}

/// Removes the root `title`: schemars writes the Rust type's name there (`CreateEvent`), which
/// says nothing to a model beside the tool's own name, and rmcp removes it from what an MCP
/// server publishes. An annotation, not a constraint: a change, not a loss. Runs after
/// [`ObjectRoot`], which may have replaced a root `$ref` by a definition with a title of its own.
#[derive(Clone, Copy, Debug, Default)]
pub struct RemoveRootTitle;

impl Rule for RemoveRootTitle {
    fn name(&self) -> &'static str {
        "remove-root-title"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let root = tree.root;
        if let Some(entry) = tree.take(root, Keyword::Title) {
            let title = tree.slot_value(&entry.value);
            let detail = format!(
                "the root `title: {title}` removed (the type's name; the tool's name says it)"
            );
            report.annotation(entry.origin, Some(root), "title", detail);
        }
    }
}

/// Makes the root `type: "object"`: `true`/`{}` become the empty object, a root that is only a
/// local `$ref` (schemars' `#[serde(transparent)]`) is replaced by its target, a root that is
/// only a union of objects is merged into one, an untyped root with `properties` gets its
/// `type`. Anything else is unrepresentable (the per-tool fallback).
#[derive(Clone, Copy, Debug, Default)]
pub struct ObjectRoot;

/// What may stand beside a root `$ref` for the root to be replaced by its target.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "$schema",
    "$defs",
    "$id",
    "$comment",
];

impl Rule for ObjectRoot {
    fn name(&self) -> &'static str {
        "object-root"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let root = tree.root;
        if str_of(tree, root, Keyword::Type) == Some("object") && !tree.has(root, Keyword::Ref) {
            return;
        }
        match &tree.node(root).body {
            Body::Bool(true) => {}
            Body::Object(entries) if entries.is_empty() => {}
            Body::Bool(false) | Body::NotSchema(_) => {
                report.fail(
                    Refused::root(),
                    "the root is `false`: no arguments are valid",
                );
                return;
            }
            Body::Object(_) => {
                self.object(tree, report);
                return;
            }
        }
        let origin = tree.node(root).origin;
        tree.node_mut(root).body = Body::Object(vec![
            Entry {
                key: Keyword::Type.into(),
                value: Slot::Value("object".into()),
                origin,
            },
            Entry {
                key: Keyword::Properties.into(),
                value: Slot::Map(Vec::new()),
                origin,
            },
        ]);
        report.change(
            origin,
            Some(root),
            "the permissive root became the empty object",
        );
    }
}

impl ObjectRoot {
    fn object(&self, tree: &mut Tree, report: &mut Report) {
        let root = tree.root;
        let root_origin = tree.node(root).origin;
        if let Some(r) = str_of(tree, root, Keyword::Ref).map(str::to_owned) {
            let only_ref = (tree.entries(root).iter())
                .all(|e| e.key == Keyword::Ref || ANNOTATIONS.contains(&e.key.as_str()));
            let target = tree
                .resolve(&r)
                .filter(|&t| only_ref && r != "#" && tree.is_object(t));
            if let Some(target) = target {
                let copy = tree.copy(target);
                tree.take(root, Keyword::Ref);
                absorb(tree, root, copy, report);
                report.change(
                    root_origin,
                    Some(root),
                    format!("the root `$ref: {r}` was replaced by its target"),
                );
            }
        }
        // A root that is only a union of objects (a flattened enum, a zod discriminated union):
        // merged into one object, so the tool keeps its parameters (the choice itself is lost).
        if type_names(tree, root).is_empty() && !tree.has(root, Keyword::Properties) {
            for key in [Keyword::AnyOf, Keyword::OneOf] {
                let Some(Slot::Schemas(branches)) = tree.get(root, key).map(|e| &e.value) else {
                    continue;
                };
                // Each branch, or the target of its local `$ref`.
                let sources: Vec<(bool, _)> = (branches.iter())
                    .map(
                        |&b| match str_of(tree, b, Keyword::Ref).and_then(|r| tree.resolve(r)) {
                            Some(target) => (true, target),
                            None => (false, b),
                        },
                    )
                    .collect();
                if sources.is_empty() || !sources.iter().all(|(_, s)| object_shaped(tree, *s)) {
                    continue;
                }
                // A referenced definition stays where it is: its copy is merged.
                let merged = (sources.into_iter())
                    .map(|(referenced, s)| if referenced { tree.copy(s) } else { s })
                    .collect::<Vec<_>>();
                let n = merged.len();
                let origin = tree.take(root, key).expect("present").origin;
                merge_objects(tree, root, merged, false, key.as_str(), report);
                report.loss(origin, Some(root), key.as_str(), LossKind::Collapsed, format!("the root `{}` of {n} objects was merged into one object (providers need an object root): a value mixing their fields is now accepted, and only properties every branch requires stay required", key.as_str()));
                break;
            }
        }
        let types: Vec<String> = type_names(tree, root)
            .into_iter()
            .map(str::to_owned)
            .collect();
        if types.is_empty()
            && (tree.has(root, Keyword::Properties) || tree.has(root, Keyword::Required))
        {
            tree.set_value(root, Keyword::Type, "object".into());
            report.change(
                root_origin,
                Some(root),
                "`type: \"object\"` added to the root",
            );
        } else if types.len() > 1 && types.iter().any(|t| t == "object") {
            let others: Vec<&str> = types
                .iter()
                .map(String::as_str)
                .filter(|t| *t != "object")
                .collect();
            let origin = tree.get(root, Keyword::Type).expect("typed").origin;
            tree.set_value(root, Keyword::Type, "object".into());
            report.loss(
                origin,
                Some(root),
                "type",
                LossKind::Collapsed,
                format!(
                    "the root also accepted {}; providers take only an object",
                    others.join(", ")
                ),
            );
        }
        match tree.get(root, Keyword::Type).map(|e| &e.value) {
            Some(Slot::Value(Value::String(t))) if t == "object" => {}
            other => {
                let what = match other {
                    None => "no `type`".to_owned(),
                    Some(slot) => format!("`type: {}`", tree.slot_value(slot)),
                };
                report.fail(
                    Refused::root(),
                    format!("the root has {what}; a tool's parameters must be an object"),
                );
            }
        }
    }
}

/// Removes combinators and `enum`/`not` at the root, which OpenAI (any mode) and Anthropic
/// reject; each removal is a loss (the choice is no longer enforced).
#[derive(Clone, Copy, Debug)]
pub struct RootCombinators {
    /// The keywords this provider refuses at the top level.
    pub keywords: &'static [Keyword],
}

impl RootCombinators {
    /// OpenAI: "must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level".
    pub const OPENAI: RootCombinators = RootCombinators {
        keywords: &[
            Keyword::AnyOf,
            Keyword::OneOf,
            Keyword::AllOf,
            Keyword::Enum,
            Keyword::Not,
        ],
    };
    /// Anthropic: "input_schema does not support oneOf, allOf, or anyOf at the top level".
    pub const ANTHROPIC: RootCombinators = RootCombinators {
        keywords: &[Keyword::AnyOf, Keyword::OneOf, Keyword::AllOf],
    };
}

impl Rule for RootCombinators {
    fn name(&self) -> &'static str {
        "root-combinators"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let root = tree.root;
        for keyword in self.keywords {
            if let Some(entry) = tree.take(root, *keyword) {
                let n = match &entry.value {
                    Slot::Schemas(ids) => ids.len(),
                    Slot::Value(Value::Array(items)) => items.len(),
                    _ => 1,
                };
                let k = keyword.as_str();
                report.loss(
                    entry.origin,
                    Some(root),
                    k,
                    LossKind::Dropped,
                    format!("`{k}` ({n} entries) at the root is rejected by the provider; the server must check what it expressed"),
                );
            }
        }
    }
}
