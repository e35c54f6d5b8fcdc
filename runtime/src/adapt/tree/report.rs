//! What the rules record on a [`Tree`]: each entry names a node (where it is written: `at`) and
//! an input place (its origin: `pointer`). Both are read when the output is written.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;

use super::{Keyword, NodeId, Origin, Refused, Tree};
use crate::adapt::pointer::Places;
use crate::adapt::report::{Change, Encoded, Encoding, Loss, LossKind, Pointer, Unrepresentable};

/// One rule's (or a whole list's) record.
#[derive(Debug, Default)]
pub struct Report {
    losses: Vec<Noted>,
    changes: Vec<Noted>,
    /// Places sent in another form (each with the form), the argument decoder's guide.
    encoded: Vec<(Noted, Encoding)>,
    /// Where, why, and what to change (see [`Report::fail`]).
    failure: Option<(Refused, String, Option<String>)>,
    /// The rule running, named in what it records.
    pub(crate) rule: &'static str,
}

/// The failure [`Report::fail`] just recorded, to which a fix can be added (nothing happens
/// when an earlier failure was kept instead).
#[derive(Debug)]
pub struct Fix<'a>(Option<&'a mut Option<String>>);

impl Fix<'_> {
    /// What the user can change for the schema to be represented: one sentence, starting with
    /// what to do ("Turn on encoding ...", "Give the field a type ...").
    pub fn fix(self, what_to_do: impl Into<String>) {
        if let Some(slot) = self.0 {
            *slot = Some(what_to_do.into());
        }
    }
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

    /// Records that the annotation `keyword` of node `node` (from `origin`) is not sent there
    /// (removed, or moved into the description): a change ([`crate::adapt::Change::annotation`]).
    pub fn annotation(
        &mut self,
        origin: Origin,
        node: Option<NodeId>,
        keyword: &'static str,
        detail: impl Into<Cow<'static, str>>,
    ) {
        self.changes.push(Noted {
            origin,
            node,
            keyword: Cow::Borrowed(keyword),
            kind: LossKind::Dropped,
            detail: detail.into(),
            rule: self.rule,
        });
    }
    /// Forgets the encoded places in the subtrees of `dropped`: a union's branch a collapse
    /// removed is sent nowhere, so nothing is encoded there (its nodes may still be marked as
    /// merged into the union's node, for where their descriptions went).
    pub fn forget_encoded_under(&mut self, tree: &Tree, dropped: &[NodeId]) {
        if self.encoded.is_empty() {
            return;
        }
        let mut under = std::collections::HashSet::new();
        let mut work = dropped.to_vec();
        while let Some(id) = work.pop() {
            if under.insert(id) {
                work.extend(tree.children(id));
            }
        }
        (self.encoded).retain(|(n, _)| n.node.is_none_or(|id| !under.contains(&id)));
    }

    /// Records that node `node` (from `origin`) is sent in the form `encoding`: a model's value
    /// there is decoded back by [`crate::restore`].
    pub fn encoded(
        &mut self,
        origin: Origin,
        node: NodeId,
        encoding: Encoding,
        detail: impl Into<Cow<'static, str>>,
    ) {
        let noted = Noted {
            origin,
            node: Some(node),
            keyword: Cow::Borrowed(""),
            kind: LossKind::Dropped,
            detail: detail.into(),
            rule: self.rule,
        };
        self.encoded.push((noted, encoding));
    }

    /// The schema cannot be represented for the target (the first failure is kept), at
    /// `place` ([`Tree::refused`]). What a user can change for it to be represented (in the
    /// Rust type, or a setting to turn on) is added with [`Fix::fix`] on the answer.
    pub fn fail(&mut self, place: Refused, reason: impl Into<String>) -> Fix<'_> {
        let first = self.failure.is_none();
        if first {
            self.failure = Some((place, reason.into(), None));
        }
        Fix(self.failure.as_mut().filter(|_| first).map(|f| &mut f.2))
    }

    /// How many losses are recorded.
    pub fn loss_count(&self) -> usize {
        self.losses.len()
    }

    /// How many losses and changes are recorded (for tests).
    #[cfg(test)]
    pub(crate) fn entries(&self) -> (usize, usize) {
        (self.losses.len(), self.changes.len())
    }

    /// Whether a rule has failed.
    pub fn failed(&self) -> bool {
        self.failure.is_some()
    }

    /// The failure (its place in the document the rule read), and the refused node's place
    /// in the input.
    pub(crate) fn take_failure(&mut self, tree: &Tree) -> Option<(Unrepresentable, Pointer)> {
        let (place, reason, fix) = self.failure.take()?;
        let input = tree.pointer(place.origin);
        Some((
            Unrepresentable {
                pointer: place.at,
                reason,
                fix,
            },
            input,
        ))
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

/// Writes the tree and the report's losses and changes with their pointers and output places.
pub(crate) fn finish(tree: Tree, report: Report) -> (Value, Vec<Loss>, Vec<Change>) {
    let written = finish_all(tree, report);
    (written.schema, written.losses, written.changes)
}

/// What [`finish_all`] writes.
pub(crate) struct Finished {
    pub schema: Value,
    pub losses: Vec<Loss>,
    pub changes: Vec<Change>,
    /// One entry per written place of each encoded node (a node copied by inlining is encoded
    /// at each of its copies).
    pub encoded: Vec<Encoded>,
}

/// Writes the tree and every entry of the report with its pointers and output places.
pub(crate) fn finish_all(mut tree: Tree, report: Report) -> Finished {
    // A loss is named as the input spelled it where its pointer names a keyword a rule renamed
    // (`const` made `enum`, draft-07 `items` made `prefixItems`, an encoded map's
    // `minProperties` made its pairs' `minItems`).
    const RENAMED: [(Keyword, &str); 5] = [
        (Keyword::Const, "enum"),
        (Keyword::Items, "prefixItems"),
        (Keyword::Definitions, "$defs"),
        (Keyword::MinProperties, "minItems"),
        (Keyword::MaxProperties, "maxItems"),
    ];
    let spelled: Vec<Option<&'static str>> = (report.losses.iter())
        .map(|n| {
            let input = tree.keyword_at(n.origin)?;
            (RENAMED.iter())
                .any(|(from, to)| *from == input && *to == n.keyword)
                .then_some(input.as_str())
        })
        .collect();
    let places = tree.take_places();
    let pointers: Vec<Pointer> = (report.losses.iter().chain(&report.changes))
        .map(|n| Places::pointer(&places, n.origin.0))
        .collect();
    let encoded_pointers: Vec<Pointer> = (report.encoded.iter())
        .map(|(n, _)| Places::pointer(&places, n.origin.0))
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
    let encoded_nodes: Vec<NodeId> = (report.encoded.iter())
        .filter_map(|(n, _)| n.node.map(written))
        .collect();
    let mut named: Vec<NodeId> = (report_nodes.iter().flatten().copied())
        .chain(encoded_nodes.iter().copied())
        .collect();
    named.sort_unstable();
    named.dedup();
    // The copies of each node (inlined definitions, split type branches), made from the arena
    // once and only where a named node has copies.
    let mut copies: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
    for (i, node) in tree.nodes.iter().enumerate() {
        if let Some(of) = node.copy_of {
            copies.entry(of).or_default().push(NodeId(i as u32));
        }
    }
    // Every copy (of a copy, ...) of a named node, as written (a merged copy: its node).
    // Which nodes' output places to note (none when no entry names a node).
    let mut wanted = vec![
        false;
        if named.is_empty() {
            0
        } else {
            tree.nodes.len()
        }
    ];
    for n in &named {
        wanted[n.index()] = true;
    }
    let mut copies_of: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
    if !copies.is_empty() {
        for &n in &named {
            let mut found = Vec::new();
            let mut work = copies.get(&n).cloned().unwrap_or_default();
            while let Some(c) = work.pop() {
                found.push(written(c));
                work.extend(copies.get(&c).into_iter().flatten());
            }
            for c in &found {
                wanted[c.index()] = true;
            }
            if !found.is_empty() {
                copies_of.insert(n, found);
            }
        }
    }
    let mut spelled = spelled.into_iter();
    let (value, at) = tree.write(&wanted);
    // Where a node is written, else where its first written copy is; for a spilled keyword, the
    // first copy whose description holds what the loss says (a copy merged into the root may
    // have been treated apart, as Ollama's root keeps no description).
    let at_of = |id: NodeId, said: Option<&str>| -> Option<Pointer> {
        if let Some((_, p)) = at.get(id) {
            return Some(p);
        }
        let mut written: Vec<(usize, Pointer)> = (copies_of.get(&id)?.iter())
            .filter_map(|c| at.get(*c))
            .collect();
        written.sort_by_key(|(rank, _)| *rank);
        let holds = |p: &Pointer| {
            said.is_none_or(|said| {
                (value.pointer(p).and_then(|n| n.get("description")))
                    .and_then(Value::as_str)
                    .is_some_and(|d| d.contains(said))
            })
        };
        let first = written.first().map(|(_, p)| p.clone());
        (written.into_iter().map(|(_, p)| p).find(|p| holds(p))).or(first)
    };
    let mut places = pointers.into_iter().zip(report_nodes);
    let mut place = |said: Option<&str>| {
        let (pointer, node) = places.next().expect("one per entry");
        (pointer, node.and_then(|n| at_of(n, said)))
    };
    let losses: Vec<Loss> = (report.losses.into_iter())
        .map(|n| {
            let said = (n.kind == LossKind::Spilled)
                .then(|| crate::adapt::rules::words::said(&n.detail))
                .flatten();
            let (pointer, at) = place(said);
            let keyword = spelled
                .next()
                .expect("one per loss")
                .map_or(n.keyword, Cow::Borrowed);
            Loss {
                pointer,
                at,
                keyword,
                kind: n.kind,
                detail: n.detail.into_owned(),
                rule: n.rule,
            }
        })
        .collect();
    let mut losses: Vec<Loss> = losses;
    spilled_into_dropped(&mut losses);
    let changes = (report.changes.into_iter())
        .map(|n| {
            let (pointer, at) = place(None);
            Change {
                pointer,
                at,
                rule: n.rule,
                detail: n.detail,
                annotation: !n.keyword.is_empty(),
            }
        })
        .collect();
    let mut encoded = Vec::new();
    for (((n, encoding), pointer), node) in (report.encoded.into_iter())
        .zip(encoded_pointers)
        .zip(encoded_nodes)
    {
        let copies = copies_of.get(&node).into_iter().flatten();
        let mut places: Vec<(usize, Pointer)> = (std::iter::once(&node).chain(copies))
            .filter_map(|c| at.get(*c))
            .collect();
        places.sort_by_key(|(rank, _)| *rank);
        places.dedup_by(|a, b| a.1 == b.1);
        for (_, at) in places {
            encoded.push(Encoded {
                pointer: pointer.clone(),
                at,
                encoding: encoding.clone(),
                detail: n.detail.clone(),
                rule: n.rule,
            });
        }
    }
    Finished {
        schema: value,
        losses,
        changes,
        encoded,
    }
}

/// A keyword spilled into a description that a later rule dropped with the subschema holding
/// it (a `not`, an `additionalProperties` schema, an unreferenced definition) is not in the
/// description after all: the loss says so, as a `dropped` one with no `at`.
fn spilled_into_dropped(losses: &mut [Loss]) {
    // Only a spilled keyword whose node is not written can have gone with its container.
    let unwritten = |l: &Loss| l.kind == LossKind::Spilled && l.at.is_none();
    if !losses.iter().any(unwritten) {
        return;
    }
    // The subschemas dropped whole, by input place.
    let dropped: std::collections::HashSet<String> = (losses.iter())
        .filter(|l| l.kind == LossKind::Dropped)
        .filter(|l| {
            let holds_schemas = crate::walk::holds(&l.keyword).is_some()
                && l.pointer.last_escaped() == Some(&*l.keyword);
            holds_schemas || matches!(&*l.keyword, "$defs" | "definitions")
        })
        .map(|l| l.pointer.as_str().to_owned())
        .collect();
    for loss in losses.iter_mut().filter(|l| unwritten(l)) {
        let Some(parent) = loss.pointer.parent() else {
            continue;
        };
        // A keyword spilled into a copy of a definition that went with a dropped subschema:
        // no place above its pointer (the definition's) was dropped, and no copy is written.
        let in_a_definition = (parent.as_str().strip_prefix("/$defs/"))
            .or_else(|| parent.as_str().strip_prefix("/definitions/"))
            .is_some();
        if in_a_definition
            && !dropped
                .iter()
                .any(|d| parent.as_str().starts_with(d.as_str()))
        {
            loss.kind = LossKind::Dropped;
            loss.detail = format!(
                "{}, but the description was dropped with the subschema its definition was inlined into",
                loss.detail
            );
            continue;
        }
        // The outermost dropped place at or above the spilled keyword's node.
        let text = parent.as_str();
        let ends = (text
            .char_indices()
            .filter(|(_, c)| *c == '/')
            .map(|(i, _)| i)
            .skip(1))
        .chain(std::iter::once(text.len()));
        let Some(gone) = ends.map(|end| &text[..end]).find(|p| dropped.contains(*p)) else {
            continue;
        };
        let gone = Pointer::parse(gone);
        let container = gone.last_escaped().unwrap_or_default();
        let definition = gone.parent().is_some_and(|defs| {
            matches!(defs.last_escaped(), Some("$defs" | "definitions"))
                && defs.parent().is_some_and(|p| p.is_root())
        });
        let container = if definition {
            format!("the unreferenced definition {container}")
        } else {
            format!("`{container}`")
        };
        loss.kind = LossKind::Dropped;
        loss.at = None;
        loss.detail = format!(
            "{}, but that description was dropped with {}",
            loss.detail,
            container.replace("~1", "/").replace("~0", "~")
        );
    }
}
