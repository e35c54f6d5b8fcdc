//! Reading JSON into a [`Tree`] and writing it back: the two ends of an adaptation.

use std::cell::OnceCell;

use serde_json::{Map, Value};

use std::sync::Arc;

use crate::adapt::pointer::{Places, Token as Step};
use crate::adapt::report::Pointer;

use super::{Body, Entry, Holds, Key, Keyword, NodeId, Origin, Slot, Tree, is_schema};

impl Tree {
    /// Reads a schema document, giving every node and entry its place in `input`. A loop over
    /// the document, not recursion.
    pub fn read(input: &Value) -> Tree {
        let mut tree = Tree {
            nodes: Vec::with_capacity(8),
            root: NodeId(0),
            places: Places::with_capacity(16),
        };
        tree.root = build(&mut tree, input, Origin::ROOT, true);
        tree
    }

    fn place(&mut self, parent: Origin, step: Step) -> Origin {
        Origin(self.places.push(parent.0, step))
    }

    /// Writes the document reachable from the root, taking the values out of the tree, and the
    /// output JSON Pointer of each node `wanted` marks (by node index; where it was first
    /// written), with its rank among them in document order.
    pub fn write(mut self, wanted: &[bool]) -> (Value, Written) {
        // Nothing to note where nothing is wanted (the lists stay empty).
        let any = wanted.contains(&true);
        let mut at = Writing {
            at: if any {
                vec![None; self.nodes.len()]
            } else {
                Vec::new()
            },
            count: 0,
            places: Places::with_capacity(if any { 8 } else { 0 }),
        };
        let root = self.root;
        let top = Place::root();
        let value = write_node(&mut self, root, &top, wanted, &mut at);
        let written = Written {
            at: at.at,
            places: Arc::new(at.places),
        };
        (value, written)
    }
}

/// What [`Tree::write`] notes as it writes: where each wanted node went (its rank and output
/// place), and the output places made for them.
struct Writing {
    at: Vec<Option<(usize, u32)>>,
    count: usize,
    places: Places,
}

/// Where [`Tree::write`] wrote the nodes it was asked about.
pub struct Written {
    at: Vec<Option<(usize, u32)>>,
    places: Arc<Places>,
}

impl Written {
    /// Node `id`'s rank among the wanted nodes in document order, and its output pointer.
    pub fn get(&self, id: NodeId) -> Option<(usize, Pointer)> {
        let (rank, place) = (*self.at.get(id.index())?)?;
        Some((rank, Places::pointer(&self.places, place)))
    }
}

/// A place in the output, entered in the output places only when a node there is wanted (then
/// once).
struct Place<'a> {
    parent: Option<&'a Place<'a>>,
    token: Out<'a>,
    index: OnceCell<u32>,
}

#[derive(Clone, Copy)]
enum Out<'a> {
    Root,
    Key(&'a str),
    Index(usize),
}

impl<'a> Place<'a> {
    fn root() -> Place<'static> {
        Place {
            parent: None,
            token: Out::Root,
            index: OnceCell::new(),
        }
    }

    fn below(&'a self, token: Out<'a>) -> Place<'a> {
        Place {
            parent: Some(self),
            token,
            index: OnceCell::new(),
        }
    }

    /// The place's index in `places`, its ancestors' entered first (a loop: any depth).
    fn index(&self, places: &mut Places) -> u32 {
        let mut chain = vec![self];
        while let Some(parent) = chain.last().and_then(|p| p.parent) {
            if parent.index.get().is_some() {
                break;
            }
            chain.push(parent);
        }
        for place in chain.into_iter().rev() {
            let parent = place.parent.and_then(|p| p.index.get().copied());
            let made = match (place.token, parent) {
                (Out::Key(k), Some(parent)) => {
                    let token = match Keyword::parse(k) {
                        Some(k) => Step::Key(k.as_str()),
                        None => Step::Name(k.into()),
                    };
                    places.push(parent, token)
                }
                (Out::Index(i), Some(parent)) => places.push(parent, Step::Index(i as u32)),
                _ => 0,
            };
            let _ = place.index.set(made);
        }
        *self.index.get().expect("made")
    }
}

/// The nodes of `value` added to `tree` with their places below `origin` (`fresh`), or all with
/// `origin` itself (a schema a rule made).
fn build(tree: &mut Tree, value: &Value, origin: Origin, fresh: bool) -> NodeId {
    let root = tree.add(origin, Body::Bool(true));
    let mut stack = vec![(root, value)];
    while let Some((id, value)) = stack.pop() {
        let Value::Object(map) = value else {
            tree.node_mut(id).body = match value {
                Value::Bool(b) => Body::Bool(*b),
                other => Body::NotSchema(other.clone()),
            };
            continue;
        };
        let node_origin = tree.node(id).origin;
        let mut entries = Vec::with_capacity(map.len());
        for (k, v) in map {
            let key = Key::of(k);
            let origin = if fresh {
                let step = match &key {
                    Key::Kw(k) => Step::Key(k.as_str()),
                    Key::Other(name) => Step::Name(name.clone()),
                };
                tree.place(node_origin, step)
            } else {
                node_origin
            };
            let mut child = |tree: &mut Tree, step: Step, v| {
                let origin = if fresh && !matches!(step, Step::Root) {
                    tree.place(origin, step)
                } else {
                    origin
                };
                let id = tree.add(origin, Body::Bool(true));
                stack.push((id, v));
                id
            };
            let value = match (key.holds(), v) {
                (Holds::One | Holds::OneOrList, v) if is_schema(v) => {
                    Slot::Schema(child(tree, Step::Root, v))
                }
                (Holds::List | Holds::OneOrList, Value::Array(items)) => {
                    let ids = (items.iter().enumerate())
                        .map(|(k, v)| child(tree, Step::Index(k as u32), v))
                        .collect();
                    Slot::Schemas(ids)
                }
                (Holds::Map, Value::Object(members)) => {
                    let members = (members.iter())
                        .map(|(name, v)| {
                            let step = Step::Name(name.as_str().into());
                            (name.clone(), child(tree, step, v))
                        })
                        .collect();
                    Slot::Map(members)
                }
                _ => Slot::Value(v.clone()),
            };
            entries.push(Entry { key, value, origin });
        }
        tree.node_mut(id).body = Body::Object(entries);
    }
    root
}

impl Tree {
    /// A JSON value made into an entry's slot as the input is read: its subschemas placed below
    /// `origin` (the entry's own place), as if they had stood there in the input.
    pub fn slot_from_json(&mut self, key: &Key, value: &Value, origin: Origin) -> Slot {
        match (key.holds(), value) {
            (Holds::One | Holds::OneOrList, v) if is_schema(v) => {
                Slot::Schema(build(self, v, origin, true))
            }
            (Holds::List | Holds::OneOrList, Value::Array(items)) => {
                let ids = (items.iter().enumerate())
                    .map(|(k, v)| {
                        let place = self.place(origin, Step::Index(k as u32));
                        build(self, v, place, true)
                    })
                    .collect();
                Slot::Schemas(ids)
            }
            (Holds::Map, Value::Object(members)) => {
                let members = (members.iter())
                    .map(|(name, v)| {
                        let place = self.place(origin, Step::Name(name.as_str().into()));
                        (name.clone(), build(self, v, place, true))
                    })
                    .collect();
                Slot::Map(members)
            }
            (_, v) => Slot::Value(v.clone()),
        }
    }

    /// A schema made from JSON, read as the input is, every part of it with origin `origin` (a
    /// node a rule makes for the place it stands in).
    pub fn node_from_json(&mut self, value: &Value, origin: Origin) -> NodeId {
        build(self, value, origin, false)
    }

    /// An entry `key: value` read from JSON, every node made with `origin` (see
    /// [`Tree::node_from_json`]).
    pub fn entry_from_json(&mut self, key: super::Keyword, value: Value, origin: Origin) -> Entry {
        let mut wrapper = Map::new();
        wrapper.insert(key.as_str().to_owned(), value);
        let id = build(self, &Value::Object(wrapper), origin, false);
        let mut entries = self.entries_mut(id).map(std::mem::take).unwrap_or_default();
        entries.pop().expect("one entry")
    }
}

/// Node `id` as JSON, its values taken out of the tree; `here` is where it is written.
fn write_node(
    tree: &mut Tree,
    id: NodeId,
    here: &Place<'_>,
    wanted: &[bool],
    at: &mut Writing,
) -> Value {
    if wanted.get(id.index()) == Some(&true) && at.at[id.index()].is_none() {
        at.at[id.index()] = Some((at.count, here.index(&mut at.places)));
        at.count += 1;
    }
    let entries = match &mut tree.node_mut(id).body {
        Body::Bool(b) => return Value::Bool(*b),
        Body::NotSchema(v) => return std::mem::take(v),
        Body::Object(entries) => std::mem::take(entries),
    };
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
        let mut map = Map::with_capacity(entries.len());
        for entry in entries {
            let key = entry.key.as_str();
            let place = here.below(Out::Key(key));
            let value = match entry.value {
                Slot::Value(v) => v,
                Slot::Schema(child) => write_node(tree, child, &place, wanted, at),
                Slot::Schemas(ids) => Value::Array(
                    (ids.into_iter().enumerate())
                        .map(|(k, child)| {
                            write_node(tree, child, &place.below(Out::Index(k)), wanted, at)
                        })
                        .collect(),
                ),
                Slot::Map(members) => {
                    let mut out = Map::with_capacity(members.len());
                    for (name, child) in members {
                        let v = write_node(tree, child, &place.below(Out::Key(&name)), wanted, at);
                        out.insert(name, v);
                    }
                    Value::Object(out)
                }
            };
            map.insert(key.to_owned(), value);
        }
        Value::Object(map)
    })
}

/// The subtree at `id` as JSON, the tree left as it is.
pub(super) fn to_value(tree: &Tree, id: NodeId) -> Value {
    let entries = match &tree.node(id).body {
        Body::Bool(b) => return Value::Bool(*b),
        Body::NotSchema(v) => return v.clone(),
        Body::Object(entries) => entries,
    };
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
        let mut map = Map::with_capacity(entries.len());
        for entry in entries {
            let value = match &entry.value {
                Slot::Value(v) => v.clone(),
                Slot::Schema(child) => to_value(tree, *child),
                Slot::Schemas(ids) => {
                    Value::Array(ids.iter().map(|c| to_value(tree, *c)).collect())
                }
                Slot::Map(members) => Value::Object(
                    members
                        .iter()
                        .map(|(name, c)| (name.clone(), to_value(tree, *c)))
                        .collect(),
                ),
            };
            map.insert(entry.key.as_str().to_owned(), value);
        }
        Value::Object(map)
    })
}
