//! The schema tree the rules work on: every node and every keyword entry carries its origin
//! (where it stood in the input), so that a report entry's `pointer` is read from the origin
//! and its `at` from where the node is written. Rules move nodes and entries; nothing is logged.
//!
//! - A [`Tree`] is an arena of [`Node`]s; a node is a schema object (a list of [`Entry`]s, in
//!   the input's key order) or `true`/`false`.
//! - An entry's value is a [`Slot`]: a subschema, a list or map of subschemas, or a plain JSON
//!   value. Which keywords hold subschemas is decided once, when the input is read.
//! - A node no longer reachable from the root is simply not written.

#[cfg(test)]
pub(crate) mod corpus;
mod io;
mod keyword;
mod ops;
pub(crate) mod report;

use serde_json::Value;

use crate::adapt::pointer::{Places, Token};
use crate::adapt::report::Pointer;
pub use crate::walk::Step as WalkStep;

pub(crate) use keyword::{Holds, is_schema};
pub use keyword::{Key, KeySet, Keyword};

pub use report::{Fix, Report};

/// One provider rule: `apply` rewrites the whole tree (the root, with its `$defs`) and records
/// what it changed or lost. The shape of schemars' `Transform`, with a report.
pub trait Rule {
    /// A short kebab-case name, used in reports.
    fn name(&self) -> &'static str;
    /// Applies the rule.
    fn apply(&mut self, tree: &mut Tree, report: &mut Report);
    /// Whether the rule only reads the tree and records nothing but a refusal (a check): a
    /// strict attempt refused before any other rule ran goes on to the relaxed form with the
    /// tree as the shared rules left it, instead of reading the input again. The default: no.
    fn reads_only(&self) -> bool {
        false
    }
}

/// A node as [`Tree::breadth_first`] reaches it.
#[derive(Clone, Copy, Debug)]
pub struct Reached<'a> {
    /// The node.
    pub id: NodeId,
    /// Its parent's index in the list (`usize::MAX` for the root).
    pub parent: usize,
    /// The step from the parent (`None` for the root).
    pub step: Option<WalkStep<'a>>,
}

/// Where a rule refuses a schema: the place in the document as the rule reads it (the refusal's
/// text names it: it may be a node an earlier rule made), and where that node stood in the input
/// (the fallback's `pointer`).
#[derive(Clone, Debug)]
pub struct Refused {
    /// A JSON Pointer in the document the rule reads.
    pub at: String,
    /// The refused node's origin.
    pub origin: Origin,
}

impl Refused {
    /// The root.
    pub fn root() -> Refused {
        Refused {
            at: String::new(),
            origin: Origin::ROOT,
        }
    }
}

/// A node of a [`Tree`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(u32);

impl NodeId {
    fn index(self) -> usize {
        self.0 as usize
    }
}

/// Where something stood in the input: an index into the tree's table of input places.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Origin(u32);

impl Origin {
    /// The input's root.
    pub const ROOT: Origin = Origin(0);
}

/// A schema: an object's entries, or a boolean schema.
#[derive(Clone, Debug)]
pub struct Node {
    /// Where it stood in the input (for a node a rule made: the node it was made for).
    pub origin: Origin,
    /// What it is.
    pub body: Body,
    /// The node this one was merged into (its entries moved there, the node itself removed):
    /// what a report says of it is then at that node in the output.
    pub merged_into: Option<NodeId>,
    /// The node this one is a copy of ([`Tree::copy`]): what a report says of a node that is
    /// not written is where its first written copy is (an inlined definition's node at its
    /// first use).
    pub copy_of: Option<NodeId>,
}

/// A node's content.
#[derive(Clone, Debug)]
pub enum Body {
    /// `true` or `false`.
    Bool(bool),
    /// A schema object's entries, in order.
    Object(Vec<Entry>),
    /// A value that is not a schema (an array, a string, ...) where a schema should stand: a
    /// document's root, a list or map keyword's member (`dependencies: {"a": ["b"]}`). Kept as
    /// it is; the walks pass over it.
    NotSchema(Value),
}

/// One key of a schema object, with its value and origin.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The key.
    pub key: Key,
    /// The value.
    pub value: Slot,
    /// Where the entry stood in the input (it keeps it when a rule moves it to another node).
    pub origin: Origin,
}

/// An entry's value.
#[derive(Clone, Debug)]
pub enum Slot {
    /// One subschema (`items`, `not`, ...).
    Schema(NodeId),
    /// A list of subschemas (`anyOf`, `prefixItems`, ...).
    Schemas(Vec<NodeId>),
    /// Names to subschemas (`properties`, `$defs`, ...), in order.
    Map(Vec<(String, NodeId)>),
    /// Any other value, as JSON (also a subschema keyword whose value has the wrong shape, such
    /// as `anyOf: "text"`: kept whole; a list or map keyword's member that is not a schema is a
    /// [`Body::NotSchema`] node).
    Value(Value),
}

impl Slot {
    /// The JSON value, when the slot holds no subschema.
    pub fn as_value(&self) -> Option<&Value> {
        match self {
            Slot::Value(v) => Some(v),
            _ => None,
        }
    }

    /// The subschemas, in order.
    pub fn nodes(&self) -> impl DoubleEndedIterator<Item = NodeId> + '_ {
        let (one, list, map): (Option<NodeId>, &[NodeId], &[(String, NodeId)]) = match self {
            Slot::Schema(id) => (Some(*id), &[], &[]),
            Slot::Schemas(ids) => (None, ids, &[]),
            Slot::Map(members) => (None, &[], members),
            Slot::Value(_) => (None, &[], &[]),
        };
        one.into_iter()
            .chain(list.iter().copied())
            .chain(map.iter().map(|(_, id)| *id))
    }
}

/// One adaptation's schema.
#[derive(Clone, Debug)]
pub struct Tree {
    pub(crate) nodes: Vec<Node>,
    /// The root node.
    pub root: NodeId,
    /// The input places: each a parent place and a step.
    places: Places,
}

impl Tree {
    /// The node `id`.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// The node `id`, to change.
    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id.index()]
    }

    /// A new node (reachable once a rule puts it somewhere).
    pub fn add(&mut self, origin: Origin, body: Body) -> NodeId {
        let id = NodeId(u32::try_from(self.nodes.len()).expect("fewer than 2^32 nodes"));
        self.nodes.push(Node {
            origin,
            body,
            merged_into: None,
            copy_of: None,
        });
        id
    }

    /// The entries of node `id` (none for a boolean schema).
    pub fn entries(&self, id: NodeId) -> &[Entry] {
        match &self.node(id).body {
            Body::Object(entries) => entries,
            Body::Bool(_) | Body::NotSchema(_) => &[],
        }
    }

    /// The entries of node `id`, to change (`None` for a boolean schema).
    pub fn entries_mut(&mut self, id: NodeId) -> Option<&mut Vec<Entry>> {
        match &mut self.node_mut(id).body {
            Body::Object(entries) => Some(entries),
            Body::Bool(_) | Body::NotSchema(_) => None,
        }
    }

    /// Whether node `id` is a schema object.
    pub fn is_object(&self, id: NodeId) -> bool {
        matches!(self.node(id).body, Body::Object(_))
    }

    /// The entry `key` of node `id`.
    pub fn get(&self, id: NodeId, key: Keyword) -> Option<&Entry> {
        self.entries(id).iter().find(|e| e.key == key)
    }

    /// Whether node `id` has the keyword `key`.
    pub fn has(&self, id: NodeId, key: Keyword) -> bool {
        self.get(id, key).is_some()
    }

    /// The plain value of `key` at node `id`.
    pub fn value(&self, id: NodeId, key: Keyword) -> Option<&Value> {
        self.get(id, key).and_then(|e| e.value.as_value())
    }

    /// The plain value of `key` at node `id`, to change.
    pub fn value_mut(&mut self, id: NodeId, key: Keyword) -> Option<&mut Value> {
        self.entries_mut(id)?
            .iter_mut()
            .find(|e| e.key == key)
            .and_then(|e| match &mut e.value {
                Slot::Value(v) => Some(v),
                _ => None,
            })
    }

    /// The value of entry `key` of node `id`, to change.
    pub fn slot_mut(&mut self, id: NodeId, key: Keyword) -> Option<&mut Slot> {
        (self.entries_mut(id)?.iter_mut())
            .find(|e| e.key == key)
            .map(|e| &mut e.value)
    }

    /// Node `id` alone as JSON, its subschemas written as `{}` (a list and a map of them keep
    /// their length and names): for the judgments that read a node's own keywords.
    pub fn shallow(&self, id: NodeId) -> Value {
        let entries = match &self.node(id).body {
            Body::Bool(b) => return Value::Bool(*b),
            Body::NotSchema(v) => return v.clone(),
            Body::Object(entries) => entries,
        };
        let empty = || Value::Object(serde_json::Map::new());
        let map = entries.iter().map(|e| {
            let v = match &e.value {
                Slot::Value(v) => v.clone(),
                Slot::Schema(_) => empty(),
                Slot::Schemas(ids) => Value::Array(ids.iter().map(|_| empty()).collect()),
                Slot::Map(members) => {
                    Value::Object(members.iter().map(|(n, _)| (n.clone(), empty())).collect())
                }
            };
            (e.key.as_str().to_owned(), v)
        });
        Value::Object(map.collect())
    }

    /// Removes the entry `key` of node `id`, keeping the others in order.
    pub fn take(&mut self, id: NodeId, key: Keyword) -> Option<Entry> {
        let entries = self.entries_mut(id)?;
        let at = entries.iter().position(|e| e.key == key)?;
        Some(entries.remove(at))
    }

    /// Sets an entry of node `id` as `serde_json::Map::insert` does: a key it has keeps its
    /// place (and the new value and origin), a new one goes last. A boolean schema is left as it is.
    pub fn set(&mut self, id: NodeId, entry: Entry) {
        let Some(entries) = self.entries_mut(id) else {
            return;
        };
        match entries.iter_mut().find(|e| e.key == entry.key) {
            Some(old) => *old = entry,
            None => entries.push(entry),
        }
    }

    /// Sets `key` to a plain value at node `id` ([`Tree::set`]), with the node's origin when the
    /// key is new and the old entry's when it replaces one.
    pub fn set_value(&mut self, id: NodeId, key: Keyword, value: Value) {
        let origin = self.get(id, key).map_or(self.node(id).origin, |e| e.origin);
        self.set(
            id,
            Entry {
                key: key.into(),
                value: Slot::Value(value),
                origin,
            },
        );
    }

    /// The direct subschemas of node `id`, in order.
    pub fn children(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.entries(id).iter().flat_map(|e| e.value.nodes())
    }

    /// [`Tree::children`] appended to `out` (the walks' loop, without an iterator chain).
    fn push_children(&self, id: NodeId, out: &mut Vec<NodeId>) {
        for e in self.entries(id) {
            match &e.value {
                Slot::Schema(c) => out.push(*c),
                Slot::Schemas(cs) => out.extend_from_slice(cs),
                Slot::Map(members) => out.extend(members.iter().map(|(_, c)| *c)),
                Slot::Value(_) => {}
            }
        }
    }

    /// Whether any node of the arena (reachable or not) has an entry `key`: one flat scan, no
    /// walk. A rule with nothing to do on a document returns after it.
    pub fn holds(&self, key: Keyword) -> bool {
        self.holds_any(&[key])
    }

    /// Whether any node of the arena has an entry `f` says yes to ([`Tree::holds`]).
    pub fn any_entry(&self, f: impl Fn(&Entry) -> bool) -> bool {
        self.nodes.iter().any(|n| match &n.body {
            Body::Object(entries) => entries.iter().any(&f),
            _ => false,
        })
    }

    /// Whether `f` says yes to any node of the arena (reachable or not): one flat scan, no walk
    /// ([`Tree::holds`]).
    pub fn any_node(&self, f: impl Fn(&Tree, NodeId) -> bool) -> bool {
        (0..self.nodes.len()).any(|i| f(self, NodeId(i as u32)))
    }

    /// Whether any node of the arena has an entry of one of `keys` ([`Tree::holds`]).
    pub fn holds_any(&self, keys: &[Keyword]) -> bool {
        self.nodes.iter().any(|n| match &n.body {
            Body::Object(entries) => entries
                .iter()
                .any(|e| matches!(e.key, Key::Kw(k) if keys.contains(&k))),
            _ => false,
        })
    }

    /// Every node reachable from the root, parents first, in document order (depth-first):
    /// `f` may change the node it is given, and the walk goes on into the node's children as
    /// `f` left them. A loop, not recursion: any depth.
    pub fn walk(&mut self, mut f: impl FnMut(&mut Tree, NodeId)) {
        let mut stack = Vec::with_capacity(32);
        stack.push(self.root);
        let mut children = Vec::with_capacity(32);
        while let Some(id) = stack.pop() {
            if let Body::NotSchema(_) = self.node(id).body {
                continue;
            }
            f(self, id);
            self.push_children(id, &mut children);
            stack.extend(children.drain(..).rev());
        }
    }

    /// Every node reachable from the root, children first, in document order (post-order):
    /// `f` may change the node it is given, whose children it has seen already. A loop.
    pub fn walk_children_first(&mut self, mut f: impl FnMut(&mut Tree, NodeId)) {
        let mut stack = Vec::with_capacity(32);
        stack.push((self.root, false));
        let mut children = Vec::with_capacity(32);
        while let Some((id, expanded)) = stack.pop() {
            if expanded {
                f(self, id);
                continue;
            }
            if let Body::NotSchema(_) = self.node(id).body {
                continue;
            }
            stack.push((id, true));
            self.push_children(id, &mut children);
            stack.extend(children.drain(..).rev().map(|c| (c, false)));
        }
    }

    /// Every node reachable from the root, parents first in document order, with how many
    /// schema steps below the root each is and how many tokens its JSON Pointer has.
    pub fn placed(&self) -> Vec<(NodeId, usize, usize)> {
        let mut out = Vec::new();
        let mut stack = vec![(self.root, 0, 0)];
        while let Some((id, depth, tokens)) = stack.pop() {
            if let Body::NotSchema(_) = self.node(id).body {
                continue;
            }
            out.push((id, depth, tokens));
            let at = stack.len();
            for e in self.entries(id) {
                let step = if matches!(e.value, Slot::Schema(_)) {
                    1
                } else {
                    2
                };
                stack.extend(e.value.nodes().map(|c| (c, depth + 1, tokens + step)));
            }
            stack[at..].reverse();
        }
        out
    }

    /// Every node reachable from the root, breadth-first (the order in which a check reports
    /// its first refusal: the shallowest), each with its parent's index in the list and the
    /// step from it (the root: `usize::MAX`, no step).
    pub fn breadth_first<'a>(&'a self) -> Vec<Reached<'a>> {
        let mut out = Vec::with_capacity(self.nodes.len());
        out.push(Reached {
            id: self.root,
            parent: usize::MAX,
            step: None,
        });
        let mut next = 0;
        while next < out.len() {
            let id = out[next].id;
            for e in self.entries(id) {
                let key = e.key.as_str();
                let mut push = |child: NodeId, step: WalkStep<'a>| {
                    if !matches!(self.node(child).body, Body::NotSchema(_)) {
                        out.push(Reached {
                            id: child,
                            parent: next,
                            step: Some(step),
                        });
                    }
                };
                match &e.value {
                    Slot::Schema(c) => push(*c, WalkStep::Keyword(key)),
                    Slot::Schemas(cs) => {
                        (cs.iter().enumerate()).for_each(|(i, c)| push(*c, WalkStep::Index(key, i)))
                    }
                    Slot::Map(members) => {
                        (members.iter()).for_each(|(name, c)| push(*c, WalkStep::Name(key, name)))
                    }
                    Slot::Value(_) => {}
                }
            }
            next += 1;
        }
        out
    }

    /// Where node `index` of a [`Tree::breadth_first`] list stands now, as a JSON Pointer.
    pub fn pointer_of(list: &[Reached<'_>], index: usize) -> String {
        let mut steps = Vec::new();
        let mut at = index;
        while at != usize::MAX {
            steps.extend(list[at].step);
            at = list[at].parent;
        }
        steps.reverse();
        crate::walk::pointer(&steps)
    }

    /// Where node `index` of a [`Tree::breadth_first`] list is refused.
    pub fn refused(&self, list: &[Reached<'_>], index: usize) -> Refused {
        Refused {
            at: Tree::pointer_of(list, index),
            origin: self.node(list[index].id).origin,
        }
    }

    /// Where node `id` is refused (found by a walk: a refusal happens once).
    pub fn refused_node(&self, id: NodeId) -> Refused {
        let list = self.breadth_first();
        match list.iter().position(|r| r.id == id) {
            Some(index) => self.refused(&list, index),
            None => Refused::root(),
        }
    }

    /// The keyword `origin` names in the input, when it is a keyword's place (a rule that
    /// renames a keyword reports it as the input spelled it).
    pub fn keyword_at(&self, origin: Origin) -> Option<Keyword> {
        match self.places.token(origin.0) {
            Token::Key(k) => Keyword::parse(k),
            _ => None,
        }
    }

    /// The input place `origin` as a JSON Pointer (made now; [`Tree::take_places`] shares
    /// them without rendering).
    pub(crate) fn pointer(&self, origin: Origin) -> Pointer {
        Pointer::parse(&self.places.render(origin.0))
    }

    /// The input places, shared by the pointers made of them (the tree keeps none).
    pub(crate) fn take_places(&mut self) -> std::sync::Arc<Places> {
        std::sync::Arc::new(std::mem::replace(
            &mut self.places,
            Places::with_capacity(0),
        ))
    }

    /// The subtree at `id` as JSON (for a rule that needs to compare or print a subschema).
    pub fn to_value(&self, id: NodeId) -> Value {
        io::to_value(self, id)
    }
}

#[cfg(test)]
mod tests;
