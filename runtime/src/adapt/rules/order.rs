//! The one structured branch of a union goes first.

use serde_json::Value;

use super::{Held, Rule, RuleReport};
use crate::adapt::visit::visit_ref;
use crate::contract::{BranchKind, direct_branch_kind, flatten_branches};
use crate::keys::Keys;

/// In an `anyOf`/`oneOf` with exactly one structured (object- or array-typed) branch, moves that
/// branch first. What validates does not change; clients that keep only the first non-null
/// branch (Langflow's converter, Cloud Code Assist's mixed-type collapse) then keep the
/// structured form instead of losing it. A change, not a loss.
#[derive(Clone, Copy, Debug, Default)]
pub struct StructuredFirst;

fn is_structured(kind: &BranchKind) -> bool {
    matches!(kind, BranchKind::Structured(_))
}

/// `{"type": "null"}` and nothing else: never structured, whatever a `$ref` or keyword beside
/// it would say.
pub(crate) fn is_bare_null(branch: &Value) -> bool {
    branch
        .as_object()
        .is_some_and(|m| m.len() == 1 && m.key("type").is_some_and(|t| t == "null"))
}

/// The one structured branch's index, when there is exactly one.
fn only_structured(mut structured: impl Iterator<Item = usize>) -> Option<usize> {
    match (structured.next(), structured.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

impl Rule for StructuredFirst {
    fn name(&self) -> &'static str {
        "structured-first"
    }

    /// A union of `[T, {"type": "null"}]` has its only structured branch first.
    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold(crate::adapt::holds::UNION_PAST_NULL)
    }

    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(&[], add)
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        // Plan on the immutable document (branches are judged through `$ref`s), then apply.
        let mut moves: Vec<(usize, String, &'static str, usize)> = Vec::new();
        visit_ref(schema, &mut |node, path| {
            for keyword in ["anyOf", "oneOf"] {
                let Some(Value::Array(branches)) = node.key(keyword) else {
                    continue;
                };
                // `[T, {"type": "null"}]` (how strict modes make a property nullable): only the
                // first branch can be structured, and it is first already.
                if branches.iter().skip(1).all(is_bare_null) {
                    continue;
                }
                // Most unions are of plain branches (`T` or null): their kinds are read directly,
                // one at a time (nothing collected).
                let direct = (|| {
                    let mut structured = None;
                    let mut count = 0;
                    for (i, branch) in branches.iter().enumerate() {
                        if is_structured(&direct_branch_kind(branch)?) {
                            structured = Some(i);
                            count += 1;
                        }
                    }
                    Some(structured.filter(|_| count == 1))
                })();
                let only = match direct {
                    Some(only) => only,
                    None => only_structured(
                        flatten_branches(schema, node, keyword, branches)
                            .iter()
                            .filter(|b| is_structured(&b.kind))
                            .map(|b| b.origin),
                    ),
                };
                if let Some(only) = only.filter(|&only| only != 0) {
                    moves.push((path.depth(), path.text(), keyword, only));
                }
            }
        });
        // Level by level (parents' levels first), then deepest pointer first: moving an outer
        // union's branch moves the unions inside it, so their planned positions must be used
        // before that.
        moves.sort_by_key(|(depth, _, _, _)| *depth);
        moves.sort_by_key(|(_, at, _, _)| std::cmp::Reverse(at.matches('/').count()));
        for (_, at, keyword, from) in moves {
            let Some(Value::Array(branches)) =
                schema.pointer_mut(&at).and_then(|n| n.get_mut(keyword))
            else {
                continue;
            };
            if from >= branches.len() {
                continue;
            }
            let count = branches.len();
            let branch = branches.remove(from);
            branches.insert(0, branch);
            report.change(
                &at,
                format!("`{keyword}[{from}]`, the only structured branch, moved first"),
            );
            // The branch now at `k` was at `before[k]`: positions below the union recorded
            // later are taken back through this, not guessed from what each branch holds.
            let before = std::iter::once(from)
                .chain((0..count).filter(|&k| k != from))
                .collect();
            report.moved(&at, keyword, before);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn moves_the_only_structured_branch_first() {
        let mut v = json!({"type": "object", "properties": {
            "a": {"anyOf": [{"const": "all"}, {"type": "null"}, {"type": "array", "items": {"type": "string"}}]},
            "b": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/O"}]},
            "c": {"anyOf": [{"type": "object"}, {"type": "string"}]},
            "d": {"anyOf": [{"type": "string"}, {"type": "object"}, {"type": "array"}]}
        }, "$defs": {"O": {"type": "object"}}});
        let mut r = RuleReport::default();
        StructuredFirst.apply(&mut v, &mut r);
        assert_eq!(v["properties"]["a"]["anyOf"][0]["type"], "array");
        assert_eq!(v["properties"]["a"]["anyOf"][1]["const"], "all");
        assert_eq!(v["properties"]["b"]["anyOf"][0]["$ref"], "#/$defs/O");
        assert_eq!(v["properties"]["c"]["anyOf"][0]["type"], "object");
        // Two structured branches: a structural union, left alone.
        assert_eq!(v["properties"]["d"]["anyOf"][0]["type"], "string");
        assert_eq!(r.changes.len(), 2);
    }

    /// Found by the fuzz suite: an outer and an inner union both reordered; the outer move used
    /// to shift the inner union before its own move ran (index out of bounds).
    #[test]
    fn nested_unions_are_reordered_inside_out() {
        let mut v = json!({"anyOf": [
            {"anyOf": [{"type": "string"}]},
            {"anyOf": [{"type": "string"}, {"type": ["object", "null"]}, {}]}
        ]});
        let mut r = RuleReport::default();
        StructuredFirst.apply(&mut v, &mut r);
        assert_eq!(v["anyOf"][0]["anyOf"][0]["type"], json!(["object", "null"]));
        assert_eq!(v["anyOf"][1], json!({"anyOf": [{"type": "string"}]}));
    }
}
