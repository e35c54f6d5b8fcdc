//! The one structured branch of a union goes first.

use serde_json::Value;

use super::{Held, Rule, RuleReport};
use crate::adapt::pointer::Pointer;
use crate::adapt::visit::{Order, visit, visit_ref};
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
        // Plan on the immutable document (branches are judged through `$ref`s): per union to
        // reorder, its node's place in the walk, its keyword and the branch to move first.
        let mut plan: Vec<(usize, &'static str, usize)> = Vec::new();
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
                    plan.push((path.serial(), keyword, only));
                }
            }
        });
        if plan.is_empty() {
            return;
        }
        // Applied children first, in one walk: moving an outer union's branch moves the unions
        // inside it, so theirs are moved while the walk's positions are still theirs. The
        // plan is in the walk's order (by place), which a walk children-first still numbers
        // the same.
        struct Done {
            /// Deepest position first, then by level, then as planned: the order the moves are
            /// logged in (a position recorded after them is taken back through each in turn).
            order: (std::cmp::Reverse<usize>, usize, usize),
            at: Pointer,
            keyword: &'static str,
            from: usize,
            count: usize,
        }
        let mut done: Vec<Done> = Vec::with_capacity(plan.len());
        visit(schema, Order::Post, &mut |node, path| {
            let serial = path.serial();
            let first = plan.partition_point(|(s, _, _)| *s < serial);
            for (i, &(_, keyword, from)) in plan
                .iter()
                .enumerate()
                .skip(first)
                .take_while(|(_, (s, _, _))| *s == serial)
            {
                let Some(Value::Array(branches)) = node.key_mut(keyword) else {
                    continue;
                };
                if from >= branches.len() {
                    continue;
                }
                let branch = branches.remove(from);
                branches.insert(0, branch);
                done.push(Done {
                    order: (std::cmp::Reverse(path.tokens()), path.depth(), i),
                    at: path.pointer(),
                    keyword,
                    from,
                    count: branches.len(),
                });
            }
        });
        done.sort_unstable_by_key(|d| d.order);
        for Done {
            at,
            keyword,
            from,
            count,
            ..
        } in done
        {
            report.change(
                at.clone(),
                format!("`{keyword}[{from}]`, the only structured branch, moved first"),
            );
            // The branch now at `k` was at `before[k]`: positions below the union recorded
            // later are taken back through this, not guessed from what each branch holds.
            let before = std::iter::once(from)
                .chain((0..count).filter(|&k| k != from))
                .collect();
            report.moved(at, keyword, before);
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
