//! `allOf` of one schema merged into its node.

use super::joined_description;
use crate::adapt::tree::{Keyword, Report, Rule, Slot, Tree};

/// Merges an `allOf` of exactly one object schema into its node (the branch's keywords set on
/// the node, the descriptions joined, the node's first). A change: the same values validate.
#[derive(Clone, Copy, Debug, Default)]
pub struct MergeSingleAllOf;

impl Rule for MergeSingleAllOf {
    fn name(&self) -> &'static str {
        "merge-single-allof"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds(Keyword::AllOf) {
            return;
        }
        tree.walk(|tree, id| {
            // Bounded: each round takes one `allOf` away (a merged branch may bring another).
            for _ in 0..64 {
                let branch = match tree.get(id, Keyword::AllOf).map(|e| &e.value) {
                    Some(Slot::Schemas(all)) if all.len() == 1 && tree.is_object(all[0]) => all[0],
                    _ => return,
                };
                tree.take(id, Keyword::AllOf);
                let description = joined_description(
                    tree.value(id, Keyword::Description),
                    tree.value(branch, Keyword::Description),
                );
                let entries = tree
                    .entries_mut(branch)
                    .map(std::mem::take)
                    .unwrap_or_default();
                tree.node_mut(branch).merged_into = Some(id);
                for entry in entries {
                    tree.set(id, entry);
                }
                if let Some(d) = description {
                    match tree.value_mut(id, Keyword::Description) {
                        Some(own) => *own = d,
                        None => tree.set_value(id, Keyword::Description, d),
                    }
                }
                let origin = tree.node(id).origin;
                report.change(
                    origin,
                    Some(id),
                    "`allOf` of one schema merged into the node",
                );
            }
        });
    }
}
