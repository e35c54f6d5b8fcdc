//! What the rules record on a [`Tree`]: each entry names a node (where it is written: `at`) and
//! an input place (its origin: `pointer`). Both are read when the output is written.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;

use super::{NodeId, Origin, Tree};
use crate::adapt::report::{Change, Loss, LossKind, Pointer, Unrepresentable};

/// One rule's (or a whole list's) record.
#[derive(Debug, Default)]
pub struct Report {
    losses: Vec<Noted>,
    changes: Vec<Noted>,
    /// Where (a JSON Pointer in the document as the failing rule saw it) and why.
    failure: Option<(String, String)>,
    /// The rule running, named in what it records.
    pub(crate) rule: &'static str,
}

#[derive(Debug)]
struct Noted {
    origin: Origin,
    node: Option<NodeId>,
    keyword: Cow<'static, str>,
    kind: LossKind,
    detail: Cow<'static, str>,
    rule: &'static str,
}

impl Report {
    /// Records a loss of `keyword` from the input place `origin`, now at node `node` (`None`:
    /// gone from the output).
    pub fn loss(
        &mut self,
        origin: Origin,
        node: Option<NodeId>,
        keyword: impl Into<Cow<'static, str>>,
        kind: LossKind,
        detail: impl Into<Cow<'static, str>>,
    ) {
        self.losses.push(Noted {
            origin,
            node,
            keyword: keyword.into(),
            kind,
            detail: detail.into(),
            rule: self.rule,
        });
    }

    /// Records a change at node `node`, which stood at `origin` in the input.
    pub fn change(
        &mut self,
        origin: Origin,
        node: Option<NodeId>,
        detail: impl Into<Cow<'static, str>>,
    ) {
        self.changes.push(Noted {
            origin,
            node,
            keyword: Cow::Borrowed(""),
            kind: LossKind::Dropped,
            detail: detail.into(),
            rule: self.rule,
        });
    }

    /// The schema cannot be represented for the target (the first failure is kept). `at` is
    /// where, in the document as the rule sees it ([`Tree::pointer_of`]): a failure names what
    /// the rule found, which may be a node an earlier rule made.
    pub fn fail(&mut self, at: impl Into<String>, reason: impl Into<String>) {
        if self.failure.is_none() {
            self.failure = Some((at.into(), reason.into()));
        }
    }

    /// How many losses are recorded.
    pub fn loss_count(&self) -> usize {
        self.losses.len()
    }

    /// Whether a rule has failed.
    pub fn failed(&self) -> bool {
        self.failure.is_some()
    }

    /// The failure.
    pub(crate) fn take_failure(&mut self) -> Option<Unrepresentable> {
        let (pointer, reason) = self.failure.take()?;
        Some(Unrepresentable { pointer, reason })
    }

    /// Puts a loss first (the engine's own: fail-open), at the root.
    pub(crate) fn first_loss(
        &mut self,
        root: NodeId,
        keyword: &'static str,
        detail: String,
        rule: &'static str,
    ) {
        self.losses.insert(
            0,
            Noted {
                origin: Origin::ROOT,
                node: Some(root),
                keyword: Cow::Borrowed(keyword),
                kind: LossKind::Fallback,
                detail: detail.into(),
                rule,
            },
        );
    }
}

/// Writes the tree and the report's entries with their pointers and output places.
pub(crate) fn finish(tree: Tree, report: Report) -> (Value, Vec<Loss>, Vec<Change>) {
    let mut memo = HashMap::new();
    let pointers: Vec<Pointer> = (report.losses.iter().chain(&report.changes))
        .map(|n| tree.pointer(n.origin, &mut memo))
        .collect();
    // A node merged into another is where that one is written.
    let written = |mut id: NodeId| {
        while let Some(into) = tree.node(id).merged_into {
            id = into;
        }
        id
    };
    let report_nodes: Vec<Option<NodeId>> = (report.losses.iter().chain(&report.changes))
        .map(|n| n.node.map(written))
        .collect();
    let named: std::collections::HashSet<NodeId> = report_nodes.iter().flatten().copied().collect();
    let (value, at) = tree.write(&|id| named.contains(&id));
    let mut places = pointers.into_iter().zip(report_nodes);
    let mut place = || {
        let (pointer, node) = places.next().expect("one per entry");
        (pointer, node.and_then(|id| at.get(&id)).cloned())
    };
    let losses = (report.losses.into_iter())
        .map(|n| {
            let (pointer, at) = place();
            Loss {
                pointer,
                at,
                keyword: n.keyword,
                kind: n.kind,
                detail: n.detail.into_owned(),
                rule: n.rule,
                epoch: 0,
            }
        })
        .collect();
    let changes = (report.changes.into_iter())
        .map(|n| {
            let (pointer, at) = place();
            Change {
                pointer,
                at,
                rule: n.rule,
                detail: n.detail,
                epoch: 0,
            }
        })
        .collect();
    (value, losses, changes)
}
