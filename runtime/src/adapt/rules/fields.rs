//! A provider that keeps only the fields of its own request types: every other keyword is lost
//! there without a word (Ollama decodes a tool's parameters into fixed structs).

use super::keywords::Strip;
use super::{HUMAN_READABLE, keep_none};
use crate::adapt::tree::{Key, KeySet, Keyword, Report, Rule, Tree};

/// Keeps at the root only `root`'s keywords and on every other node only `node`'s: any other
/// keyword is written into the description in words where the node keeps a description (the
/// human-readable ones, a `spilled` loss) or removed (a `dropped` loss), with `why`. `$ref` and
/// `$defs` stay for the inlining that follows (run this first, so that each loss is reported at
/// its place in the input, once).
#[derive(Clone, Copy, Debug)]
pub struct OnlyFields {
    /// The rule's name in reports.
    pub name: &'static str,
    /// The root's fields.
    pub root: KeySet,
    /// Every other node's fields.
    pub node: KeySet,
    /// Why, in the losses' words.
    pub why: &'static str,
}

impl Rule for OnlyFields {
    fn name(&self) -> &'static str {
        self.name
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let root = tree.root;
        let strip = |fields: KeySet| {
            let spill: &[&str] = if fields.contains(&Keyword::Description.into()) {
                HUMAN_READABLE
            } else {
                &[]
            };
            (fields, spill)
        };
        let (root_fields, root_spill) = strip(self.root);
        let (node_fields, node_spill) = strip(self.node);
        let inlined_later = |k: &Key| *k == Keyword::Ref || *k == Keyword::Defs;
        tree.walk(|tree, id| {
            let (fields, spill) = if id == root {
                (root_fields, root_spill)
            } else {
                (node_fields, node_spill)
            };
            Strip {
                removed: &|k| !fields.contains(k) && !inlined_later(k),
                spill,
                why: self.why,
                keep: keep_none,
                also_keep: &[],
            }
            .node(tree, id, report);
        });
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::OnlyFields;
    use crate::adapt::report::LossKind;
    use crate::adapt::rules::{Rule, apply};
    use crate::adapt::tree::KeySet;

    #[test]
    fn only_the_listed_fields_stay() {
        let rule = OnlyFields {
            name: "only-test-fields",
            root: KeySet::of(&["type", "properties"]),
            node: KeySet::of(&["type", "description"]),
            why: "the test's types drop it",
        };
        let input = json!({"type": "object", "title": "T", "properties": {
            "n": {"type": "integer", "minimum": 1, "x-hint": 3},
            "r": {"$ref": "#/$defs/R"}
        }, "$defs": {"R": {"type": "string"}}});
        let mut rules: Vec<Box<dyn Rule>> = vec![Box::new(rule)];
        let applied = apply(&mut rules, &input);
        assert_eq!(
            applied.schema,
            json!({"type": "object", "properties": {
                "n": {"type": "integer", "description": "At least 1."},
                "r": {"$ref": "#/$defs/R"}
            }, "$defs": {"R": {"type": "string"}}})
        );
        let losses: Vec<(&str, LossKind)> = (applied.losses.iter())
            .map(|l| (&*l.keyword, l.kind))
            .collect();
        assert_eq!(
            losses,
            [
                ("minimum", LossKind::Spilled),
                ("x-hint", LossKind::Dropped)
            ]
        );
        // The title is an annotation: its removal is a change.
        assert!(
            (applied.changes.iter()).any(|c| c.pointer.as_str() == "/title"),
            "{:#?}",
            applied.changes
        );
    }
}
