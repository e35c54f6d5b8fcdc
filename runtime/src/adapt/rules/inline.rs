//! Local `$ref`s replaced by their targets, for wire forms without references (Google's), and
//! the definitions nothing references removed before anything else runs.

use std::collections::HashSet;

use serde_json::Value;

use super::refs::merge_sibling;
use crate::adapt::report::LossKind;
use crate::adapt::tree::{Body, Entry, Key, Keyword, NodeId, Report, Rule, Slot, Tree};

/// The root's definitions keywords.
const DEFINITIONS: [Keyword; 2] = [Keyword::Defs, Keyword::Definitions];

/// The root's definitions that no reference reaches from the rest of the document (directly or
/// through other definitions) are removed, with one change naming them: every target runs it
/// first (no rule then works on them, and a model never pays for them in tokens), and OpenAI
/// strict again after inlining. Nothing in them constrained a value, so nothing is lost.
#[derive(Clone, Copy, Debug, Default)]
pub struct UnreferencedDefinitions;

impl Rule for UnreferencedDefinitions {
    fn name(&self) -> &'static str {
        "unreferenced-definitions"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let removed = remove_unreferenced(tree);
        if !removed.is_empty() {
            let names: Vec<String> = removed
                .iter()
                .map(|(_, name, _)| format!("`{name}`"))
                .collect();
            let detail = format!(
                "{} definition{} nothing references removed: {}",
                names.len(),
                if names.len() == 1 { "" } else { "s" },
                names.join(", ")
            );
            report.change(tree.node(tree.root).origin, Some(tree.root), detail);
        }
    }
}

/// The root's definitions the rules left unreferenced are removed: one whose every use was
/// inlined lives on in its copies (one change names those); one whose last use was dropped
/// with what held it (the root's union merged, say) is reported dropped, so that what an
/// earlier rule spilled into it is reported as gone with it.
#[derive(Clone, Copy, Debug, Default)]
pub struct OrphanedDefinitions;

impl Rule for OrphanedDefinitions {
    fn name(&self) -> &'static str {
        "orphaned-definitions"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let removed = remove_unreferenced(tree);
        if removed.is_empty() {
            return;
        }
        let copied: HashSet<NodeId> = tree.nodes.iter().filter_map(|n| n.copy_of).collect();
        let mut inlined = Vec::new();
        for (key, name, id) in removed {
            if copied.contains(&id) {
                inlined.push(format!("`{name}`"));
                continue;
            }
            report.loss(
                tree.node(id).origin,
                None,
                key.as_str(),
                LossKind::Dropped,
                format!("definition `{name}` is referenced nowhere once its last use was dropped; not sent"),
            );
        }
        if !inlined.is_empty() {
            let detail = format!("every use inlined, so not sent: {}", inlined.join(", "));
            report.change(tree.node(tree.root).origin, Some(tree.root), detail);
        }
    }
}

/// Removes the root's definitions no reference reaches: each one's keyword, name and node.
fn remove_unreferenced(tree: &mut Tree) -> Vec<(Keyword, String, NodeId)> {
    let root = tree.root;
    if !DEFINITIONS.iter().any(|k| tree.has(root, *k)) {
        return Vec::new();
    }
    let reached = reached_definitions(tree);
    let mut removed = Vec::new();
    for key in DEFINITIONS {
        let Some(Slot::Map(members)) = tree.slot_mut(root, key) else {
            continue;
        };
        let mut gone = Vec::new();
        members.retain(|(name, id)| {
            let kept = reached.contains(&(key, name.clone()));
            if !kept {
                gone.push((name.clone(), *id));
            }
            kept
        });
        if members.is_empty() {
            tree.take(root, key);
        }
        removed.extend(gone.into_iter().map(|(name, id)| (key, name, id)));
    }
    removed
}

/// The root's definitions a reference reaches from the document outside them, following the
/// references in what they reach. `#/$defs` itself reaches them all.
fn reached_definitions(tree: &Tree) -> HashSet<(Keyword, String)> {
    let root = tree.root;
    let definition = |key: Keyword, name: &str| match tree.get(root, key).map(|e| &e.value) {
        Some(Slot::Map(members)) => members.iter().find(|(n, _)| n == name).map(|(_, id)| *id),
        _ => None,
    };
    let mut reached = HashSet::new();
    let mut work: Vec<NodeId> = (tree.entries(root).iter())
        .filter(|e| !DEFINITIONS.iter().any(|k| e.key == *k))
        .flat_map(|e| e.value.nodes())
        .collect();
    // The root's own `$ref` is read without going into its definitions.
    work.push(root);
    let mut seen = HashSet::new();
    while let Some(id) = work.pop() {
        if !seen.insert(id) {
            continue;
        }
        if id != root {
            work.extend(tree.children(id));
        }
        let Some(Value::String(reference)) = tree.value(id, Keyword::Ref) else {
            continue;
        };
        let Some(tokens) = reference_tokens(reference) else {
            continue;
        };
        let mut tokens = tokens.into_iter();
        let Some(key) = tokens.next().and_then(|t| Keyword::parse(&t)) else {
            continue;
        };
        if !DEFINITIONS.contains(&key) {
            continue;
        }
        let names: Vec<String> = match tokens.next() {
            Some(name) => vec![name],
            // The definitions map itself: every definition.
            None => match tree.get(root, key).map(|e| &e.value) {
                Some(Slot::Map(members)) => members.iter().map(|(n, _)| n.clone()).collect(),
                _ => Vec::new(),
            },
        };
        for name in names {
            if let Some(id) = definition(key, &name) {
                if reached.insert((key, name)) {
                    work.push(id);
                }
            }
        }
    }
    reached
}

/// The JSON Pointer tokens of a local reference (`#/$defs/A` → `$defs`, `A`), decoded.
fn reference_tokens(reference: &str) -> Option<Vec<String>> {
    let fragment = reference.strip_prefix('#')?;
    let decoded = crate::walk::percent_decoded(fragment)?;
    let rest = decoded.strip_prefix('/')?;
    Some(
        rest.split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect(),
    )
}

/// [`InlineRefs`] when some `$ref` does not start with `prefix` (Moonshot takes references
/// under `#/$defs/` only, and refuses the request otherwise); when every one does, the
/// references and definitions stay as they are.
#[derive(Clone, Copy, Debug)]
pub struct InlineRefsNotUnder {
    /// The one prefix the provider takes.
    pub prefix: &'static str,
}

impl Rule for InlineRefsNotUnder {
    fn name(&self) -> &'static str {
        "inline-refs-not-under-defs"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let prefix = self.prefix;
        let elsewhere = |e: &Entry| {
            e.key == Keyword::Ref
                && (e.value.as_value().and_then(Value::as_str))
                    .is_some_and(|r| !r.starts_with(prefix))
        };
        if tree.any_entry(elsewhere) {
            InlineRefs::default().apply(tree, report);
        }
    }
}

/// Every local `$ref` replaced by a copy of its target (the reference's siblings merged over
/// it), the definitions removed. Recursion is unrolled `unroll` levels, then cut (an `inlined`
/// loss); a reference that does not resolve is dropped (a `dropped` loss); a definition no
/// reference used is reported removed.
#[derive(Clone, Copy, Debug)]
pub struct InlineRefs {
    /// How many times one reference is expanded inside itself before it is cut.
    pub unroll: usize,
    /// Where recursion is cut, the node becomes a string of JSON text (an encoded place,
    /// decoded by `restore`) instead of a node that no longer describes its values.
    pub cut_as_text: bool,
}

impl Default for InlineRefs {
    fn default() -> Self {
        InlineRefs {
            unroll: 2,
            cut_as_text: false,
        }
    }
}

impl Rule for InlineRefs {
    fn name(&self) -> &'static str {
        "inline-refs"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let root = tree.root;
        let has_defs = DEFINITIONS.iter().any(|k| tree.has(root, *k));
        let has_refs = tree
            .breadth_first()
            .iter()
            .any(|r| tree.has(r.id, Keyword::Ref));
        if !has_refs && !has_defs {
            return;
        }
        // References resolve against the document as it was (a copy: the root is expanded in
        // place).
        let pristine = tree.copy(root);
        let definitions: Vec<Entry> = DEFINITIONS
            .iter()
            .filter_map(|k| tree.take(root, *k))
            .collect();
        // The references being expanded, innermost last: (reference, the one it is inside).
        // The root counts as `#` once.
        let mut chain: Vec<(String, usize)> = vec![("#".to_owned(), usize::MAX)];
        let mut used: HashSet<String> = HashSet::new();
        let mut work = vec![(root, 0usize)];
        while let Some((id, mut at)) = work.pop() {
            // A node whose reference is expanded is looked at again: its target may be a
            // reference too.
            while let Some(Value::String(reference)) = tree.value(id, Keyword::Ref) {
                let reference = reference.clone();
                let ref_entry = tree.take(id, Keyword::Ref).expect("there");
                let target = (reference.starts_with('#'))
                    .then(|| tree.resolve_in(pristine, &reference))
                    .flatten();
                let Some(target) = target else {
                    let why = if reference.starts_with('#') {
                        "does not resolve"
                    } else {
                        "points to another document, which is never fetched"
                    };
                    let detail = format!(
                        "`$ref: {reference}` {why}; the node accepts any value of its other keywords"
                    );
                    report.loss(
                        ref_entry.origin,
                        Some(id),
                        "$ref",
                        LossKind::Dropped,
                        detail,
                    );
                    break;
                };
                let depth = chain_count(&chain, at, &reference);
                if depth >= self.unroll && self.cut_as_text {
                    super::encode::cut_as_text(tree, id, &reference, report);
                    at = usize::MAX;
                    break;
                }
                if depth >= self.unroll {
                    let detail = format!(
                        "recursion through `{reference}` cut after {} levels: deeper values are not described",
                        self.unroll
                    );
                    report.loss(
                        ref_entry.origin,
                        Some(id),
                        "$ref",
                        LossKind::Inlined,
                        detail,
                    );
                    if !tree.has(id, Keyword::Description) {
                        let text = format!("(recursive `{reference}`, not expanded further)");
                        tree.set_value(id, Keyword::Description, Value::String(text));
                    }
                    // Not expanded further: its other keywords stay as they are.
                    at = usize::MAX;
                    break;
                }
                used.insert(reference.clone());
                chain.push((reference, at));
                at = chain.len() - 1;
                let copy = match tree.node(target).body {
                    Body::Object(_) => tree.copy(target),
                    Body::Bool(true) => {
                        tree.add(tree.node(target).origin, Body::Object(Vec::new()))
                    }
                    _ => {
                        let origin = tree.node(target).origin;
                        let empty = tree.add(origin, Body::Object(Vec::new()));
                        let not = Entry {
                            key: Key::Kw(Keyword::Not),
                            value: Slot::Schema(empty),
                            origin,
                        };
                        tree.add(origin, Body::Object(vec![not]))
                    }
                };
                for key in DEFINITIONS {
                    tree.take(copy, key);
                }
                let siblings = tree.entries_mut(id).map(std::mem::take).unwrap_or_default();
                let target_entries = tree
                    .entries_mut(copy)
                    .map(std::mem::take)
                    .unwrap_or_default();
                *tree.entries_mut(id).expect("an object") = target_entries;
                // The copy's entries are the referring node's now.
                tree.node_mut(copy).merged_into = Some(id);
                for sibling in siblings {
                    merge_sibling(tree, id, sibling, report);
                }
            }
            if at == usize::MAX {
                continue;
            }
            // Its subschemas, in order (a nested `$defs` is kept as it is).
            let children: Vec<NodeId> = (tree.entries(id).iter())
                .filter(|e| !DEFINITIONS.iter().any(|k| e.key == *k))
                .flat_map(|e| e.value.nodes())
                .collect();
            work.extend(children.into_iter().rev().map(|c| (c, at)));
        }
        for entry in definitions {
            let Slot::Map(members) = entry.value else {
                continue;
            };
            let key = entry.key.as_str();
            // Named as the input spelled it (`definitions` upgraded to `$defs`).
            let spelled = tree.keyword_at(entry.origin).map_or(key, |k| k.as_str());
            for (name, id) in members {
                let reference = format!(
                    "#/{}/{}",
                    crate::walk::escape(key),
                    crate::walk::escape(&name)
                );
                if !used.contains(&reference) {
                    let detail =
                        format!("definition `{name}` is referenced nowhere; removed with `{key}`");
                    report.loss(
                        tree.node(id).origin,
                        None,
                        spelled.to_owned(),
                        LossKind::Dropped,
                        detail,
                    );
                }
            }
        }
        if has_defs {
            let origin = tree.node(root).origin;
            report.change(
                origin,
                Some(root),
                "local references inlined; `$defs` removed",
            );
        }
    }
}

/// How many times `reference` is being expanded at chain link `at` and the links it is inside.
fn chain_count(chain: &[(String, usize)], mut at: usize, reference: &str) -> usize {
    let mut count = 0;
    while at != usize::MAX {
        count += usize::from(chain[at].0 == reference);
        at = chain[at].1;
    }
    count
}
