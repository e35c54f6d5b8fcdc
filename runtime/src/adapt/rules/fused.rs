//! Rules that run in one walk of the document instead of one walk each.

use serde_json::Value;

use super::{Rule, RuleReport};
use crate::adapt::visit::{Order, Path, visit};

/// A rule whose work is done one node at a time, parents before children (its [`Rule::apply`]
/// is a pre-order walk calling [`NodeRule::node`]), that never fails and logs no branch moves.
///
/// Rules run one after the other give the same document and report as the same rules fused in
/// one walk ([`Fused`]) when every rule but the first reads and changes only its node's own
/// keywords that are not schemas: then each rule sees every node as the rules before it left
/// it, and nothing a later rule does changes what an earlier one finds below (the earlier rules
/// have not been there yet in the fused walk, and had been in the sequential one).
pub(crate) trait NodeRule {
    /// The rule's name, as its [`Rule::name`].
    fn name(&self) -> &'static str;
    /// The rule's work at one node.
    fn node(&mut self, node: &mut Value, path: &Path<'_>, report: &mut RuleReport);
}

/// [`NodeRule`]s run in one walk, each recording in a report of its own, absorbed in their
/// order: the entries, their rule names and their order are those of the rules run one by one.
pub(crate) struct Fused {
    name: &'static str,
    rules: Vec<Box<dyn NodeRule>>,
}

impl Fused {
    /// `rules` in one walk, listed as `name` (the rules' names joined, for the rule lists).
    pub(crate) fn new(name: &'static str, rules: Vec<Box<dyn NodeRule>>) -> Self {
        Fused { name, rules }
    }
}

impl Rule for Fused {
    fn name(&self) -> &'static str {
        self.name
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        let mut reports: Vec<RuleReport> = self
            .rules
            .iter()
            .map(|r| RuleReport {
                moves_before: report.moves_before + report.moves.len(),
                ..RuleReport::for_rule(r.name())
            })
            .collect();
        visit(schema, Order::Pre, &mut |node, path| {
            for (rule, one) in self.rules.iter_mut().zip(reports.iter_mut()) {
                rule.node(node, path, one);
            }
        });
        for one in reports {
            debug_assert!(
                one.moves.is_empty() && one.failure.is_none(),
                "a node rule logged a move or failed: it cannot run fused"
            );
            report.absorb(one);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapt::rules::{RemoveSchemaUri, UpgradeDraft07};
    use serde_json::json;

    /// The draft-07 upgrade and the `$schema` removal, fused, give what they give one after the
    /// other: the document, and every entry with its rule, position, detail and order. The
    /// document has the forms the upgrade moves or wraps (`definitions`, tuple `items`,
    /// `dependencies`, `nullable`) with `$schema` keys inside them.
    #[test]
    fn fused_rules_give_what_they_give_one_after_the_other() {
        let doc = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "a": {"$schema": "x", "nullable": true, "properties": {"b": {"$schema": "y"}}},
                "t": {"items": [{"$schema": "z"}, {"type": "string"}], "additionalItems": {"$schema": "w"}},
                "$schema": {"$schema": "name, not keyword"}
            },
            "dependencies": {"a": ["t"], "t": {"$schema": "v", "definitions": {"D": {"$schema": "u"}}}},
            "definitions": {"D": {"$ref": "#/definitions/D", "$schema": "s"}}
        });
        let mut one_by_one = doc.clone();
        let mut sequential = RuleReport::default();
        for mut rule in [
            Box::new(UpgradeDraft07) as Box<dyn Rule>,
            Box::new(RemoveSchemaUri),
        ] {
            let mut one = RuleReport::for_rule(rule.name());
            rule.apply(&mut one_by_one, &mut one);
            sequential.absorb(one);
        }
        let mut fused_doc = doc;
        let mut fused = RuleReport::default();
        Fused::new(
            "upgrade-draft-07, remove-schema-uri",
            vec![Box::new(UpgradeDraft07), Box::new(RemoveSchemaUri)],
        )
        .apply(&mut fused_doc, &mut fused);
        assert_eq!(fused_doc, one_by_one);
        assert_eq!(fused, sequential);
        assert!(sequential.changes.len() > 8, "{:?}", sequential.changes);
    }
}
