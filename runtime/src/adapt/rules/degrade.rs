//! A structural union the output keeps, reported on the targets whose clients may degrade it.

use crate::adapt::report::LossKind;
use crate::adapt::tree::{Keyword, Report, Rule, Tree};

/// Reports each structural union the output keeps (an `anyOf`/`oneOf` with more than one
/// object- or array-typed branch, judged as the contract checker judges it) as a `collapsed`
/// loss, on a target whose clients may flatten unions or keep one branch: the union is sent,
/// but nothing guarantees that a call fits one branch. Changes nothing; an allowed union
/// (`#[tool_schema(allow_union = …)]`) is reported too, so that whoever allowed it sees what
/// it costs on each provider.
#[derive(Clone, Copy, Debug)]
pub struct StructuralUnionKept {
    /// Who may degrade the union, and how, in words (`Gemini's function calling may flatten
    /// it`).
    pub client: &'static str,
}

impl StructuralUnionKept {
    /// Gemini (`parametersJsonSchema` and the legacy `parameters`).
    pub const GEMINI: StructuralUnionKept = StructuralUnionKept {
        client: "Gemini's function calling may flatten it without an error",
    };
    /// MCP clients.
    pub const MCP: StructuralUnionKept = StructuralUnionKept {
        client: "an MCP client may keep its first branch alone (Langflow) or flatten it (Gemini) without an error",
    };
    /// Claude through Cloud Code Assist (its unions are merged first: one that survives is
    /// reported).
    pub const CCA: StructuralUnionKept = StructuralUnionKept {
        client: "Cloud Code Assist may flatten it without an error",
    };
}

impl Rule for StructuralUnionKept {
    fn name(&self) -> &'static str {
        "structural-union-kept"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds_any(&[Keyword::AnyOf, Keyword::OneOf]) {
            return;
        }
        // The contract checker reads JSON: the document is written once.
        let found = crate::contract::structural_unions(&tree.to_value(tree.root));
        if found.is_empty() {
            return;
        }
        // The checker's walk and the tree's breadth-first list visit the same nodes in the same
        // order (children in key order, non-schemas passed over).
        let list = tree.breadth_first();
        let mut losses = Vec::new();
        for (index, keyword, count) in found {
            let Some(id) = list.get(index).map(|r| r.id) else {
                continue;
            };
            let Some(entry) = Keyword::parse(keyword).and_then(|k| tree.get(id, k)) else {
                debug_assert!(false, "the walks disagree at node {index}");
                continue;
            };
            let detail = format!(
                "structural union of {count} object or array branches kept: {}, and a call mixing branches then reaches the server (a unit enum for the kind plus optional fields avoids it)",
                self.client
            );
            losses.push((entry.origin, id, keyword, detail));
        }
        for (origin, id, keyword, detail) in losses {
            report.loss(origin, Some(id), keyword, LossKind::Collapsed, detail);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::adapt::rules::apply;

    #[test]
    fn a_kept_union_of_two_objects_is_one_loss_at_its_place() {
        let input = json!({
            "type": "object",
            "properties": {
                "change": {"anyOf": [
                    {"type": "object", "properties": {"a": {"type": "string"}}},
                    {"type": "object", "properties": {"b": {"type": "string"}}},
                    {"type": "null"}
                ]},
                "plain": {"anyOf": [{"type": "object"}, {"type": "string"}]}
            }
        });
        let mut rules: Vec<Box<dyn Rule>> = vec![Box::new(StructuralUnionKept::GEMINI)];
        let applied = apply(&mut rules, &input);
        assert_eq!(applied.schema, input, "the union is kept as it is");
        assert_eq!(applied.losses.len(), 1, "{:?}", applied.losses);
        let loss = &applied.losses[0];
        assert_eq!(loss.pointer, "/properties/change/anyOf");
        assert_eq!(
            loss.at.as_ref().map(|p| p.as_str()),
            Some("/properties/change")
        );
        assert_eq!(loss.kind, LossKind::Collapsed);
        assert_eq!(loss.rule, "structural-union-kept");
        assert!(
            loss.detail.contains("2 object or array branches"),
            "{}",
            loss.detail
        );
        assert!(loss.detail.contains("Gemini"), "{}", loss.detail);
    }

    #[test]
    fn a_union_split_by_references_is_judged_through_them() {
        let input = json!({
            "type": "object",
            "properties": {"shape": {"oneOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]}},
            "$defs": {
                "A": {"type": "object", "properties": {"a": {"type": "integer"}}},
                "B": {"type": "array", "items": {"type": "integer"}}
            }
        });
        let mut rules: Vec<Box<dyn Rule>> = vec![Box::new(StructuralUnionKept::MCP)];
        let applied = apply(&mut rules, &input);
        assert_eq!(applied.losses.len(), 1, "{:?}", applied.losses);
        assert_eq!(applied.losses[0].pointer, "/properties/shape/oneOf");
        assert_eq!(applied.losses[0].keyword, "oneOf");
    }

    #[test]
    fn one_structured_branch_is_no_loss() {
        let input = json!({
            "type": "object",
            "properties": {"x": {"anyOf": [{"type": "object"}, {"type": "null"}, {"type": "string"}]}}
        });
        let mut rules: Vec<Box<dyn Rule>> = vec![Box::new(StructuralUnionKept::MCP)];
        assert!(apply(&mut rules, &input).losses.is_empty());
    }
}
