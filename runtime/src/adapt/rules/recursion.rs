//! References a target takes except where it refuses them (Gemini's `parametersJsonSchema`:
//! "Cyclic references are unrolled to a limited degree and, as such, may only be used within
//! non-required properties. (Nullable properties are not sufficient.)"; a reference to an
//! undefined schema is a 400, "reference to undefined schema at ...").

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::InlineRefs;
use crate::adapt::tree::{Keyword, NodeId, Report, Rule, Slot, Tree};

/// References are kept, unless the provider would refuse one: a cycle of them through a required
/// property, or a reference to a schema the document does not define. Then every reference is
/// inlined as [`InlineRefs`] does (recursion unrolled two levels, then cut and reported; a
/// dangling reference reported). A cycle through optional properties only is left to the
/// provider.
#[derive(Clone, Copy, Debug, Default)]
pub struct InlineRefusedRefs;

impl Rule for InlineRefusedRefs {
    fn name(&self) -> &'static str {
        "inline-refused-refs"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds(Keyword::Ref) || !(dangling(tree) || required_cycle(tree)) {
            return;
        }
        InlineRefs::default().apply(tree, report);
    }
}

/// Whether a reachable `$ref` names nothing in the document (or another document).
fn dangling(tree: &Tree) -> bool {
    tree.breadth_first()
        .iter()
        .any(|r| match tree.value(r.id, Keyword::Ref) {
            Some(Value::String(reference)) => tree.resolve(reference).is_none(),
            Some(_) => true,
            None => false,
        })
}

/// Where a reference points: the root or one of the root's definitions, by name.
fn target_of(reference: &str) -> Option<String> {
    if reference == "#" {
        return Some("#".to_owned());
    }
    let name = reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"))?;
    Some(name.replace("~1", "/").replace("~0", "~"))
}

/// Whether a reference cycle passes through a required property: an edge from a definition
/// (or the root) to a reference reached through a required property, whose target reaches back.
fn required_cycle(tree: &Tree) -> bool {
    cycle(tree, true)
}

/// Whether the document's references form a cycle (recursion).
pub(crate) fn has_cycle(tree: &Tree) -> bool {
    cycle(tree, false)
}

/// Whether a reference cycle exists (`required_only`: one through a required property).
fn cycle(tree: &Tree, required_only: bool) -> bool {
    let root = tree.root;
    let mut sources: Vec<(String, NodeId)> = vec![("#".to_owned(), root)];
    for keyword in [Keyword::Defs, Keyword::Definitions] {
        if let Some(Slot::Map(members)) = tree.get(root, keyword).map(|e| &e.value) {
            sources.extend(members.iter().map(|(n, id)| (n.clone(), *id)));
        }
    }
    // Edges: source → target, and whether the reference is reached through a required property.
    let mut edges: HashMap<String, Vec<(String, bool)>> = HashMap::new();
    for (name, start) in &sources {
        let mut stack = vec![(*start, false)];
        while let Some((id, required)) = stack.pop() {
            if let Some(Value::String(reference)) = tree.value(id, Keyword::Ref) {
                if let Some(target) = target_of(reference) {
                    edges
                        .entry(name.clone())
                        .or_default()
                        .push((target, required));
                }
            }
            let listed: HashSet<&str> = match tree.value(id, Keyword::Required) {
                Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
                _ => HashSet::new(),
            };
            for entry in tree.entries(id) {
                // The root's definitions are sources of their own.
                if id == root
                    && matches!(
                        entry.key,
                        crate::adapt::tree::Key::Kw(Keyword::Defs | Keyword::Definitions)
                    )
                {
                    continue;
                }
                match &entry.value {
                    Slot::Map(members) if entry.key == Keyword::Properties => {
                        for (property, child) in members {
                            stack.push((*child, required || listed.contains(property.as_str())));
                        }
                    }
                    slot => stack.extend(slot.nodes().map(|child| (child, required))),
                }
            }
        }
    }
    let reaches = |from: &str, to: &str| {
        let mut seen: HashSet<&str> = HashSet::new();
        let mut queue = vec![from];
        while let Some(at) = queue.pop() {
            if at == to {
                return true;
            }
            if !seen.insert(at) {
                continue;
            }
            if let Some(next) = edges.get(at) {
                queue.extend(next.iter().map(|(t, _)| t.as_str()));
            }
        }
        false
    };
    edges.iter().any(|(source, targets)| {
        targets
            .iter()
            .any(|(target, required)| (*required || !required_only) && reaches(target, source))
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::InlineRefusedRefs;
    use crate::adapt::rules::{Rule, apply};

    fn run(input: &serde_json::Value) -> serde_json::Value {
        let mut rules: Vec<Box<dyn Rule>> = vec![Box::new(InlineRefusedRefs)];
        apply(&mut rules, input).schema
    }

    /// Recursion through an optional property is kept as references; through a required one
    /// (nullable or not) it is inlined.
    #[test]
    fn only_recursion_through_a_required_property_is_inlined() {
        let optional = json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
            }, "required": ["name"]}}});
        assert_eq!(run(&optional), optional);
        let mut required = optional.clone();
        required["$defs"]["Node"]["required"] = json!(["name", "children"]);
        let out = run(&required);
        assert!(out.get("$defs").is_none(), "{out:#}");
        assert!(!out.to_string().contains("$ref"), "{out:#}");
        // A chain of two definitions through a required property is a cycle too.
        let chain = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}, "required": ["b"]},
            "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}
        }});
        assert!(!run(&chain).to_string().contains("$ref"));
        // A reference to nothing is inlined (reported), not sent.
        let dangling =
            json!({"type": "object", "properties": {"a": {"anyOf": [{"$ref": "#/$defs/D0"}]}}});
        assert!(!run(&dangling).to_string().contains("$ref"));
        // No cycle: references kept even through required properties.
        let flat = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}},
            "required": ["a"], "$defs": {"A": {"type": "string"}}});
        assert_eq!(run(&flat), flat);
    }
}
