//! What rules ask of a tree beyond one node's entries: copies, comparisons and local references.

use serde_json::Value;

use super::{Body, Entry, NodeId, Slot, Tree};

impl Tree {
    /// A deep copy of the subtree at `id`: new nodes, the same origins (an inlined definition's
    /// copy still names the definition).
    pub fn copy(&mut self, id: NodeId) -> NodeId {
        let top = self.add(self.node(id).origin, Body::Bool(true));
        self.node_mut(top).copy_of = Some(id);
        let mut work = vec![(id, top)];
        while let Some((from, to)) = work.pop() {
            let body = self.node(from).body.clone();
            self.node_mut(to).body = body;
            let Some(mut entries) = self.entries_mut(to).map(std::mem::take) else {
                continue;
            };
            for entry in &mut entries {
                let mut fresh = |tree: &mut Tree, old: &mut NodeId| {
                    let new = tree.add(tree.node(*old).origin, Body::Bool(true));
                    tree.node_mut(new).copy_of = Some(*old);
                    work.push((*old, new));
                    *old = new;
                };
                match &mut entry.value {
                    Slot::Schema(child) => fresh(self, child),
                    Slot::Schemas(ids) => ids.iter_mut().for_each(|c| fresh(self, c)),
                    Slot::Map(members) => members.iter_mut().for_each(|(_, c)| fresh(self, c)),
                    Slot::Value(_) => {}
                }
            }
            *self.entries_mut(to).expect("an object") = entries;
        }
        top
    }

    /// Whether two subtrees are the same JSON (serde_json's equality: an object's keys in any
    /// order).
    pub fn same(&self, a: NodeId, b: NodeId) -> bool {
        let mut work = vec![(a, b)];
        while let Some((a, b)) = work.pop() {
            if a == b {
                continue;
            }
            match (&self.node(a).body, &self.node(b).body) {
                (Body::Bool(x), Body::Bool(y)) if x == y => {}
                (Body::NotSchema(x), Body::NotSchema(y)) if x == y => {}
                (Body::Object(x), Body::Object(y)) if x.len() == y.len() => {
                    for ex in x {
                        let Some(ey) = y.iter().find(|e| e.key == ex.key) else {
                            return false;
                        };
                        if !self.pair_slots(&ex.value, &ey.value, &mut work) {
                            return false;
                        }
                    }
                }
                _ => return false,
            }
        }
        true
    }

    /// Whether two entries' values are the same JSON.
    pub fn same_slot(&self, a: &Slot, b: &Slot) -> bool {
        let mut work = Vec::new();
        self.pair_slots(a, b, &mut work) && work.into_iter().all(|(x, y)| self.same(x, y))
    }

    /// Compares what can be compared at once; pushes the pairs of subtrees still to compare.
    fn pair_slots(&self, a: &Slot, b: &Slot, work: &mut Vec<(NodeId, NodeId)>) -> bool {
        match (a, b) {
            (Slot::Value(x), Slot::Value(y)) => x == y,
            (Slot::Schema(x), Slot::Schema(y)) => {
                work.push((*x, *y));
                true
            }
            (Slot::Schemas(x), Slot::Schemas(y)) if x.len() == y.len() => {
                work.extend(x.iter().copied().zip(y.iter().copied()));
                true
            }
            (Slot::Map(x), Slot::Map(y)) if x.len() == y.len() => {
                for (name, xid) in x {
                    match y.iter().find(|(n, _)| n == name) {
                        Some((_, yid)) => work.push((*xid, *yid)),
                        None => return false,
                    }
                }
                true
            }
            // A keyword read as a value in one tree and as schemas in the other (or a rule's
            // own JSON beside subschemas): compared as JSON.
            (Slot::Value(_), _) | (_, Slot::Value(_)) => self.slot_value(a) == self.slot_value(b),
            _ => false,
        }
    }

    /// An entry's value as JSON.
    pub fn slot_value(&self, slot: &Slot) -> Value {
        match slot {
            Slot::Value(v) => v.clone(),
            Slot::Schema(id) => self.to_value(*id),
            Slot::Schemas(ids) => Value::Array(ids.iter().map(|id| self.to_value(*id)).collect()),
            Slot::Map(members) => Value::Object(
                members
                    .iter()
                    .map(|(n, id)| (n.clone(), self.to_value(*id)))
                    .collect(),
            ),
        }
    }

    /// The node a local reference (`#`, `#/$defs/A`, percent-encoded or not) names, when it
    /// names a schema.
    pub fn resolve(&self, reference: &str) -> Option<NodeId> {
        self.resolve_in(self.root, reference)
    }

    /// [`Tree::resolve`] against the subtree at `root` as if it were the document.
    pub fn resolve_in(&self, root: NodeId, reference: &str) -> Option<NodeId> {
        let fragment = reference.strip_prefix('#')?;
        let decoded = crate::walk::percent_decoded(fragment)?;
        if decoded.is_empty() {
            return Some(root);
        }
        let mut tokens = decoded
            .strip_prefix('/')?
            .split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"));
        let mut at = root;
        while let Some(token) = tokens.next() {
            let entry: &Entry = self.entries(at).iter().find(|e| e.key.as_str() == token)?;
            at = match &entry.value {
                Slot::Schema(id) => *id,
                Slot::Schemas(ids) => *ids.get(tokens.next()?.parse::<usize>().ok()?)?,
                Slot::Map(members) => {
                    let name = tokens.next()?;
                    members.iter().find(|(n, _)| *n == name)?.1
                }
                Slot::Value(_) => return None,
            };
        }
        Some(at)
    }
}
