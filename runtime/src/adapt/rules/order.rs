//! The one structured branch of a union goes first.

use serde_json::Value;

use crate::adapt::tree::{Entry, Key, Keyword, NodeId, Report, Rule, Slot, Tree};
use crate::contract::{BranchKind, direct_branch_kind, flatten_branches};

/// In an `anyOf`/`oneOf` with exactly one structured (object- or array-typed) branch, moves that
/// branch first. What validates does not change; clients that keep only the first non-null
/// branch (Langflow's converter, Cloud Code Assist's mixed-type collapse) then keep the
/// structured form instead of losing it. A change, not a loss.
#[derive(Clone, Copy, Debug, Default)]
pub struct StructuredFirst;

/// `{"type": "null"}` and nothing else.
fn is_bare_null(tree: &Tree, id: NodeId) -> bool {
    let entries = tree.entries(id);
    entries.len() == 1
        && entries[0].key == Keyword::Type
        && entries[0].value.as_value().is_some_and(|t| t == "null")
}

impl Rule for StructuredFirst {
    fn name(&self) -> &'static str {
        "structured-first"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        // Nothing to do unless a union has a branch after its first that is not the null schema
        // (one flat scan of the arena).
        let unions = |e: &Entry| {
            matches!(e.key, Key::Kw(Keyword::AnyOf | Keyword::OneOf))
                && matches!(&e.value, Slot::Schemas(bs) if !bs.iter().skip(1).all(|b| is_bare_null(tree, *b)))
        };
        if !tree.any_entry(unions) {
            return;
        }
        // Per union to reorder: the change's sort key (deepest pointer first, then by level,
        // then in the walk's order), its node, keyword and the branch to move first.
        let mut plan = Vec::new();
        // Unions whose branches must be followed through `$ref`s or nested unions.
        let mut follow = Vec::new();
        for (serial, &(id, depth, tokens)) in tree.placed().iter().enumerate() {
            for (k, keyword) in [Keyword::AnyOf, Keyword::OneOf].into_iter().enumerate() {
                let Some(Slot::Schemas(branches)) = tree.get(id, keyword).map(|e| &e.value) else {
                    continue;
                };
                if branches.iter().skip(1).all(|b| is_bare_null(tree, *b)) {
                    continue;
                }
                let key = (std::cmp::Reverse(tokens), depth, serial, k);
                let direct: Option<Vec<BranchKind>> = branches
                    .iter()
                    .map(|b| direct_branch_kind(&tree.shallow(*b)))
                    .collect();
                match direct {
                    Some(kinds) => {
                        let structured = (kinds.iter().enumerate())
                            .filter(|(_, k)| matches!(k, BranchKind::Structured(_)))
                            .map(|(i, _)| i);
                        plan.extend(only(structured).map(|from| (key, id, keyword, from)));
                    }
                    None => follow.push((key, id, keyword, serial)),
                }
            }
        }
        if !follow.is_empty() {
            // The contract checker's `flatten_branches` reads JSON: the document is written
            // once for all of them.
            let doc = tree.to_value(tree.root);
            let mut nodes: Vec<&Value> = Vec::new();
            crate::walk::each_node(&doc, (), &mut |n: &Value, _, ()| {
                nodes.push(n);
                Some(())
            });
            for (key, id, keyword, serial) in follow {
                let node = nodes[serial];
                let Some(Value::Array(branches)) = node.get(keyword.as_str()) else {
                    continue;
                };
                let flat = flatten_branches(&doc, node, keyword.as_str(), branches);
                let structured = (flat.iter())
                    .filter(|b| matches!(b.kind, BranchKind::Structured(_)))
                    .map(|b| b.origin);
                plan.extend(only(structured).map(|from| (key, id, keyword, from)));
            }
        }
        plan.sort_unstable_by_key(|p| p.0);
        for (_, id, keyword, from) in plan {
            let origin = tree.node(id).origin;
            if let Some(Slot::Schemas(branches)) = tree.slot_mut(id, keyword) {
                let branch = branches.remove(from);
                branches.insert(0, branch);
            }
            report.change(
                origin,
                Some(id),
                format!(
                    "`{}[{from}]`, the only structured branch, moved first",
                    keyword.as_str()
                ),
            );
        }
    }
}

/// The one structured branch's index, when there is exactly one and it is not first already.
fn only(mut structured: impl Iterator<Item = usize>) -> Option<usize> {
    match (structured.next(), structured.next()) {
        (Some(only), None) if only != 0 => Some(only),
        _ => None,
    }
}
