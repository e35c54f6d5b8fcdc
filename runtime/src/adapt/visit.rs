//! A mutable walk over the schema positions of a document, with each node's JSON Pointer.
//!
//! Only schema positions are visited (the same positions as [`crate::walk`]): the keys of a
//! `properties` map are names, never keywords. Recursion grows the stack on the heap when it
//! runs low (`stacker`), so nesting depth is bounded by memory, not by the thread's stack.

use serde_json::Value;

use super::pointer::Pointer;

use crate::walk::{Holds, holds, is_schema};

/// One step from a node to a child schema, borrowed from the document being walked.
#[derive(Clone, Copy, Debug)]
enum Step<'p> {
    /// `items`, `not`, ...
    Key(&'p str),
    /// `anyOf/1`.
    Index(&'p str, usize),
    /// `properties/name` (the name unescaped, as the key reads).
    Name(&'p str, &'p str),
}

/// What one walk has rendered so far, per level (depth − 1), each entry tagged with the serial
/// of the [`Path`] it was made for: an entry is good for a path only while that path is on the
/// walk's current branch, and every entry above a good one is good too.
#[derive(Debug, Default)]
struct Rendered {
    /// The text of the levels rendered: `(serial, end of the level's text)`.
    ends: Vec<(usize, usize)>,
    text: String,
    /// The pointers made: `(serial, pointer)`.
    made: Vec<(usize, Pointer)>,
    /// Per level, the last map or list of schemas made below a node (`…/properties`,
    /// `…/anyOf`), tagged with that node's serial: siblings share it, so that the positions of
    /// one object's properties share their parent link.
    containers: Vec<(usize, Pointer)>,
}

/// The state one walk shares between its levels.
#[derive(Debug, Default)]
struct Shared {
    serials: std::cell::Cell<usize>,
    rendered: std::cell::RefCell<Rendered>,
}

/// The position of the node being visited: a link to its parent's position and the step from
/// it, kept on the walk's stack (borrowed keys: a step down costs nothing). The JSON Pointer
/// text and [`Pointer`]s are made only when a rule asks, reusing what was made for the
/// ancestors on the same branch, so that naming every node costs O(1) each and naming none
/// costs nothing.
#[derive(Debug)]
pub struct Path<'p> {
    up: Option<&'p Path<'p>>,
    step: Option<Step<'p>>,
    depth: usize,
    /// How many JSON Pointer tokens name the node (`properties/x` is two).
    tokens: usize,
    serial: usize,
    shared: &'p Shared,
}

/// Paths from a node up, deepest first: a few (the usual case: the node and a parent or two
/// whose pointers were not made yet) kept on the stack, more on the heap.
type Chain<'a> = smallvec::SmallVec<[&'a Path<'a>; 8]>;

/// `v[i]`, growing `v` with `fill` as needed.
fn slot<T>(v: &mut Vec<T>, i: usize, fill: impl Fn() -> T) -> &mut T {
    if v.len() <= i {
        v.resize_with(i + 1, fill);
    }
    &mut v[i]
}

impl<'p> Path<'p> {
    fn root(shared: &'p Shared) -> Self {
        Path {
            up: None,
            step: None,
            depth: 0,
            tokens: 0,
            serial: 0,
            shared,
        }
    }

    fn down<'c>(&'c self, step: Step<'c>) -> Path<'c> {
        let serial = self.shared.serials.get() + 1;
        self.shared.serials.set(serial);
        Path {
            up: Some(self),
            step: Some(step),
            depth: self.depth + 1,
            tokens: self.tokens + if matches!(step, Step::Key(_)) { 1 } else { 2 },
            serial,
            shared: self.shared,
        }
    }

    /// This path and its ancestors up to (not including) the nearest one for which `good`
    /// holds or the root, deepest first.
    fn unmade(&self, good: impl Fn(&Path<'_>) -> bool) -> Chain<'_> {
        let mut chain = Chain::new();
        let mut at: &Path<'_> = self;
        while at.depth > 0 && !good(at) {
            chain.push(at);
            at = at.up.expect("a path below the root has a parent");
        }
        chain
    }

    /// The JSON Pointer (RFC 6901) of the node.
    pub fn pointer(&self) -> Pointer {
        let mut r = self.shared.rendered.borrow_mut();
        let Rendered {
            made, containers, ..
        } = &mut *r;
        let good = |p: &Path<'_>| made.get(p.depth - 1).is_some_and(|(s, _)| *s == p.serial);
        let chain = self.unmade(good);
        let mut pointer = match chain.last() {
            Some(top) if top.depth > 1 => made[top.depth - 2].1.clone(),
            Some(_) => Pointer::root(),
            None if self.depth == 0 => return Pointer::root(),
            None => return made[self.depth - 1].1.clone(),
        };
        for p in chain.iter().rev() {
            let mut container = |k: &str| {
                let parent = p.up.map_or(0, |up| up.serial);
                let kept = slot(containers, p.depth - 1, || (usize::MAX, Pointer::root()));
                if kept.0 != parent || kept.1.last_escaped() != Some(k) {
                    *kept = (parent, pointer.child(k));
                }
                kept.1.clone()
            };
            pointer = match p.step.expect("a path below the root has a step") {
                Step::Key(k) => pointer.child(k),
                Step::Index(k, i) => container(k).index(i),
                Step::Name(k, n) => container(k).child(n),
            };
            *slot(made, p.depth - 1, || (0, Pointer::root())) = (p.serial, pointer.clone());
        }
        pointer
    }

    /// The JSON Pointer text of the node: for callers that need the text itself (branch moves,
    /// places built by `format!`). Each level is rendered once while the walk is below it.
    pub fn text(&self) -> String {
        let end = {
            let mut r = self.shared.rendered.borrow_mut();
            let r = &mut *r;
            let ends = &r.ends;
            let good = |p: &Path<'_>| ends.get(p.depth - 1).is_some_and(|(s, _)| *s == p.serial);
            let chain = self.unmade(good);
            match chain.last() {
                None if self.depth == 0 => 0,
                None => r.ends[self.depth - 1].1,
                Some(top) => {
                    let start = if top.depth > 1 {
                        r.ends[top.depth - 2].1
                    } else {
                        0
                    };
                    r.text.truncate(start);
                    for p in chain.iter().rev() {
                        match p.step.expect("a path below the root has a step") {
                            Step::Key(k) => push_token(&mut r.text, k),
                            Step::Index(k, i) => {
                                use std::fmt::Write;
                                push_token(&mut r.text, k);
                                let _ = write!(r.text, "/{i}");
                            }
                            Step::Name(k, n) => {
                                push_token(&mut r.text, k);
                                push_token(&mut r.text, n);
                            }
                        }
                        let end = r.text.len();
                        *slot(&mut r.ends, p.depth - 1, || (0, 0)) = (p.serial, end);
                    }
                    r.text.len()
                }
            }
        };
        self.shared.rendered.borrow().text[..end].to_owned()
    }

    /// How many schema steps below the root the node is.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// How many tokens the node's JSON Pointer has.
    pub(crate) fn tokens(&self) -> usize {
        self.tokens
    }

    /// The node's place in the walk's order, parents before children (the root is 0): the same
    /// node has the same number in [`visit`] and [`visit_ref`] of one document, whatever the
    /// order the callback runs in, as long as no callback changes what is still to be visited.
    pub(crate) fn serial(&self) -> usize {
        self.serial
    }

    /// The step from the parent to this node, as [`crate::walk`] names it (`None` at the root).
    pub(crate) fn step(&self) -> Option<crate::walk::Step<'_>> {
        self.step.map(|step| match step {
            Step::Key(k) => crate::walk::Step::Keyword(k),
            Step::Index(k, i) => crate::walk::Step::Index(k, i),
            Step::Name(k, n) => crate::walk::Step::Name(k, n),
        })
    }

    /// The pointer of a child keyword of this node.
    pub fn child(&self, keyword: &str) -> Pointer {
        self.pointer().child(keyword)
    }
}

/// Appends `/token`, escaped (RFC 6901).
fn push_token(out: &mut String, token: &str) {
    out.push('/');
    if token.contains(['~', '/']) {
        out.push_str(&crate::walk::escaped(token));
    } else {
        out.push_str(token);
    }
}

/// When the callback runs relative to the node's children.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Before: the callback may replace the node, and the children of the new node are visited.
    Pre,
    /// After: the children are already processed.
    Post,
}

/// Visits every schema node under `root` (the root included).
pub fn visit(root: &mut Value, order: Order, f: &mut dyn FnMut(&mut Value, &Path<'_>)) {
    let shared = Shared::default();
    walk(root, &Path::root(&shared), order, f);
}

/// Calls `f` on the root alone, with the root's position (what [`visit`] does at the root, and
/// nothing below it).
pub fn at_root(root: &mut Value, f: &mut dyn FnMut(&mut Value, &Path<'_>)) {
    let shared = Shared::default();
    f(root, &Path::root(&shared));
}

/// Runs `f`, on a new stack segment when the thread's runs low. Asked every
/// [`STACK_CHECK_EVERY`] levels (reading the stack's bounds costs about as much as visiting a
/// node); the red zone covers the levels in between and the callbacks they run.
fn on_enough_stack<R>(path: &Path<'_>, f: impl FnOnce() -> R) -> R {
    if path.depth % STACK_CHECK_EVERY == 0 {
        crate::stack::maybe_grow(256 * 1024, 2 * 1024 * 1024, f)
    } else {
        f()
    }
}

/// How many levels a walk goes down between two looks at the stack.
const STACK_CHECK_EVERY: usize = 16;

/// Visits every schema node under `root` (the root included) without changing it, parents
/// before children, in the same order as [`visit`] (the children of [`crate::walk::each_child`]).
pub fn visit_ref<'v>(root: &'v Value, f: &mut dyn FnMut(&'v Value, &Path<'_>)) {
    let shared = Shared::default();
    walk_ref(root, &Path::root(&shared), f);
}

fn walk_ref<'v>(node: &'v Value, path: &Path<'_>, f: &mut dyn FnMut(&'v Value, &Path<'_>)) {
    on_enough_stack(path, || {
        f(node, path);
        crate::walk::each_child(node, |step, sub| {
            let step = match step {
                crate::walk::Step::Keyword(k) => Step::Key(k),
                crate::walk::Step::Index(k, i) => Step::Index(k, i),
                crate::walk::Step::Name(k, n) => Step::Name(k, n),
            };
            walk_ref(sub, &path.down(step), f);
        });
    })
}

fn walk(node: &mut Value, path: &Path<'_>, order: Order, f: &mut dyn FnMut(&mut Value, &Path<'_>)) {
    on_enough_stack(path, || {
        if order == Order::Pre {
            f(node, path);
        }
        if let Value::Object(map) = &mut *node {
            for (key, value) in map.iter_mut() {
                let key = key.as_str();
                match (holds(key), value) {
                    (Some(Holds::Map), Value::Object(entries)) => {
                        for (name, sub) in entries.iter_mut() {
                            if is_schema(sub) {
                                walk(sub, &path.down(Step::Name(key, name)), order, f);
                            }
                        }
                    }
                    (Some(Holds::List | Holds::ListOrOne), Value::Array(items)) => {
                        for (i, sub) in items.iter_mut().enumerate() {
                            if is_schema(sub) {
                                walk(sub, &path.down(Step::Index(key, i)), order, f);
                            }
                        }
                    }
                    (Some(Holds::One | Holds::ListOrOne), sub) if is_schema(sub) => {
                        walk(sub, &path.down(Step::Key(key)), order, f);
                    }
                    _ => {}
                }
            }
        }
        if order == Order::Post {
            f(node, path);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn visits_schema_positions_with_pointers() {
        let mut schema = json!({
            "type": "object",
            "properties": {"a/b": {"type": "array", "items": {"type": "string"}}, "enum": {"const": 1}},
            "$defs": {"X": {"anyOf": [{"type": "null"}]}},
            "enum": [{"type": "object"}]
        });
        let mut seen = Vec::new();
        visit(&mut schema, Order::Pre, &mut |_, p| seen.push(p.pointer()));
        assert_eq!(
            seen,
            vec![
                "",
                "/properties/a~1b",
                "/properties/a~1b/items",
                "/properties/enum",
                "/$defs/X",
                "/$defs/X/anyOf/0",
            ]
        );
    }

    /// The positions of one object's properties (and of one union's branches) share their
    /// parent link, `…/properties` (`…/anyOf`), as they share their parent's: report placing
    /// works a position out from its parent's once, by the link's identity, and a link made
    /// anew per property made every entry of a wide object miss.
    #[test]
    fn siblings_share_their_parent_link() {
        let mut schema = json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"anyOf": [{"type": "null"}, true]}, "c": {}},
            "$defs": {"d": {}}
        });
        let mut seen = Vec::new();
        visit(&mut schema, Order::Post, &mut |_, p| seen.push(p.pointer()));
        let parent = |text: &str| {
            let p = seen.iter().find(|p| p.as_str() == text).expect(text);
            p.parent().expect("not the root").id()
        };
        assert_eq!(parent("/properties/a"), parent("/properties/b"));
        assert_eq!(parent("/properties/a"), parent("/properties/c"));
        assert_eq!(
            parent("/properties/b/anyOf/0"),
            parent("/properties/b/anyOf/1")
        );
        assert_ne!(parent("/properties/a"), parent("/$defs/d"));
    }

    /// A node has one place (`serial`) and one token count in every walk of a document:
    /// `StructuredFirst` plans on the read-only walk and moves branches in a children-first
    /// walk by those places. Every keyword that holds schemas, as a map, a list and one schema,
    /// with names that look like keywords.
    #[test]
    fn every_walk_gives_a_node_the_same_place_and_token_count() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "properties": {"anyOf": [{"type": "null"}, {"items": [{"not": {}}, {"$ref": "#"}]}]},
                "a/b": {"prefixItems": [true, {"type": "string"}], "items": false},
                "anyOf": {"oneOf": [{"additionalProperties": {"type": "integer"}}]}
            },
            "$defs": {"X": {"allOf": [{"if": {}, "then": {}, "else": {}}]}},
            "dependentSchemas": {"k": {"contains": {}}},
            "enum": [{"type": "object"}]
        });
        let mut read = Vec::new();
        visit_ref(&schema, &mut |_, p| {
            read.push((p.serial(), p.pointer().to_string(), p.tokens()))
        });
        for order in [Order::Pre, Order::Post] {
            let mut walked = Vec::new();
            visit(&mut schema, order, &mut |_, p| {
                walked.push((p.serial(), p.pointer().to_string(), p.tokens()))
            });
            walked.sort();
            assert_eq!(walked, read);
        }
        for (_, pointer, tokens) in &read {
            assert_eq!(*tokens, pointer.matches('/').count(), "{pointer}");
        }
        assert!(read.len() > 15, "{read:?}");
    }

    /// Positions asked at some nodes and not others, text before or after the pointer, in both
    /// orders: each is the node's own (as the read-only walk names it), whatever was asked for
    /// its ancestors and earlier siblings.
    #[test]
    fn positions_are_right_whatever_was_asked_before() {
        let mut schema = json!({
            "properties": {
                "a/b": {"items": {"anyOf": [{"type": "string"}, {"properties": {"~": {}}}]}},
                "properties": {"$ref": "#/$defs/x", "not": {"type": "null"}},
                "c": {"prefixItems": [{}, {"items": true}]}
            },
            "$defs": {"x": {"oneOf": [{"properties": {"type": {}}}]}},
            "items": [{"type": "integer"}]
        });
        let expected: std::collections::BTreeSet<String> = {
            let walk = crate::walk::Walk::new(&schema);
            (0..walk.nodes.len())
                .map(|i| crate::walk::pointer(&walk.steps(i)))
                .collect()
        };
        for order in [Order::Pre, Order::Post] {
            for pattern in 0..6usize {
                let (mut n, mut seen) = (0usize, std::collections::BTreeSet::new());
                visit(&mut schema, order, &mut |_, path| {
                    n += 1;
                    let (text, pointer) = match (n + pattern) % 4 {
                        0 => (None, None),
                        1 => (Some(path.text()), None),
                        2 => (None, Some(path.pointer())),
                        _ => {
                            let p = path.pointer();
                            (Some(path.text()), Some(p))
                        }
                    };
                    if let (Some(t), Some(p)) = (&text, &pointer) {
                        assert_eq!(t.as_str(), p.as_str());
                    }
                    let named = text.or(pointer.map(|p| p.to_string()));
                    if let Some(t) = named {
                        assert!(expected.contains(&t), "{t} is not a node of the document");
                        assert!(seen.insert(t.clone()), "{t} named twice");
                    }
                    // Asked again, the same.
                    if n % 3 == 0 {
                        assert_eq!(path.text(), path.pointer().as_str());
                    }
                });
                assert_eq!(n, expected.len());
            }
            // Asked everywhere: every node, once each.
            let mut all = std::collections::BTreeSet::new();
            visit(&mut schema, order, &mut |_, path| {
                assert!(all.insert(path.text()));
            });
            assert_eq!(all, expected);
        }
    }

    /// A pointer asked for first many levels down (more unnamed ancestors than the chain keeps
    /// inline), then at every fifth level, and once at a sibling: each is the node's own.
    #[test]
    fn pointers_asked_far_below_the_last_one_named() {
        let mut schema = json!({"type": "string"});
        for i in 0..40 {
            let key = if i % 2 == 0 { "items" } else { "not" };
            schema = json!({ key: schema, "anyOf": [{"type": "null"}] });
        }
        for every in [40, 9, 5] {
            let mut named = 0;
            visit(&mut schema, Order::Pre, &mut |_, path| {
                if path.depth() % every == 0 && path.depth() > 0 || path.depth() == 41 {
                    let expected = path.text();
                    assert_eq!(path.pointer().as_str(), expected);
                    named += 1;
                }
            });
            assert!(named > 0);
        }
    }

    #[test]
    fn very_deep_documents_do_not_overflow() {
        let mut schema = json!({"type": "string"});
        for _ in 0..50_000 {
            let mut node = serde_json::Map::new();
            node.insert("items".into(), schema);
            schema = Value::Object(node);
        }
        let mut count = 0;
        visit(&mut schema, Order::Post, &mut |_, _| count += 1);
        assert_eq!(count, 50_001);
        std::mem::forget(schema);
    }
}
