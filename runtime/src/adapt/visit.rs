//! A mutable walk over the schema positions of a document, with each node's JSON Pointer.
//!
//! Only schema positions are visited (the same positions as [`crate::walk`]): the keys of a
//! `properties` map are names, never keywords. Recursion grows the stack on the heap when it
//! runs low (`stacker`), so nesting depth is bounded by memory, not by the thread's stack.

use serde_json::Value;

use super::pointer::Pointer;

use crate::walk::{Holds, holds, is_schema};

/// The position of the node being visited: its tokens kept rendered as the walk goes down (a
/// step appends its escaped token, going back up truncates), and made a [`Pointer`] only when a
/// rule asks, reusing the pointers already made for its ancestors, so that naming every node
/// costs O(1) each.
#[derive(Clone, Debug, Default)]
pub struct Path {
    rendered: String,
    ends: Vec<usize>,
    /// The pointer made for each level so far (`made[i]` for the level ending at `ends[i]`).
    made: std::cell::RefCell<Vec<Option<Pointer>>>,
}

impl Path {
    /// The JSON Pointer (RFC 6901) of the node.
    pub fn pointer(&self) -> Pointer {
        let mut made = self.made.borrow_mut();
        made.resize(self.ends.len(), None);
        let Some(top) = self.ends.len().checked_sub(1) else {
            return Pointer::root();
        };
        if let Some(p) = &made[top] {
            return p.clone();
        }
        // The nearest level already made, then each level below it.
        let mut start = top;
        while start > 0 && made[start - 1].is_none() {
            start -= 1;
        }
        let mut p = if start == 0 {
            Pointer::root()
        } else {
            made[start - 1].clone().expect("made")
        };
        for level in start..=top {
            let from = self.ends[level] + 1;
            let to = self
                .ends
                .get(level + 1)
                .copied()
                .unwrap_or(self.rendered.len());
            p = p.child_raw(&self.rendered[from..to]);
            made[level] = Some(p.clone());
        }
        p
    }

    /// The JSON Pointer text of the node, as the walk keeps it (no copy): for callers that need
    /// the text itself (branch moves, places built by `format!`).
    pub fn text(&self) -> &str {
        &self.rendered
    }

    /// The pointer of a child keyword of this node.
    pub fn child(&self, keyword: &str) -> Pointer {
        self.pointer().child(keyword)
    }

    fn push(&mut self, s: &str) {
        self.ends.push(self.rendered.len());
        push_token(&mut self.rendered, s);
    }

    fn push_index(&mut self, i: usize) {
        use std::fmt::Write;
        self.ends.push(self.rendered.len());
        let _ = write!(self.rendered, "/{i}");
    }

    fn pop(&mut self) {
        if let Some(end) = self.ends.pop() {
            self.rendered.truncate(end);
            let made = self.made.get_mut();
            made.truncate(self.ends.len());
        }
    }
}

/// Appends `/token`, escaped (RFC 6901).
fn push_token(out: &mut String, token: &str) {
    out.push('/');
    if token.contains(['~', '/']) {
        out.push_str(&crate::walk::escape(token));
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
pub fn visit(root: &mut Value, order: Order, f: &mut dyn FnMut(&mut Value, &Path)) {
    let mut path = Path::default();
    walk(root, &mut path, order, f);
}

fn walk(node: &mut Value, path: &mut Path, order: Order, f: &mut dyn FnMut(&mut Value, &Path)) {
    stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || {
        if order == Order::Pre {
            f(node, path);
        }
        if let Value::Object(map) = node {
            for (key, value) in map.iter_mut() {
                let key = key.as_str();
                match (holds(key), value) {
                    (Some(Holds::Map), Value::Object(entries)) => {
                        for (name, sub) in entries.iter_mut() {
                            if is_schema(sub) {
                                path.push(key);
                                path.push(name);
                                walk(sub, path, order, f);
                                path.pop();
                                path.pop();
                            }
                        }
                    }
                    (Some(Holds::List | Holds::ListOrOne), Value::Array(items)) => {
                        for (i, sub) in items.iter_mut().enumerate() {
                            if is_schema(sub) {
                                path.push(key);
                                path.push_index(i);
                                walk(sub, path, order, f);
                                path.pop();
                                path.pop();
                            }
                        }
                    }
                    (Some(Holds::One | Holds::ListOrOne), sub) if is_schema(sub) => {
                        path.push(key);
                        walk(sub, path, order, f);
                        path.pop();
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
