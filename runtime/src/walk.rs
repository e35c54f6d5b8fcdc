//! A walker over the *schema positions* of a JSON Schema document.
//!
//! It visits only places where a schema stands (`properties` values, `items`, `anyOf` branches,
//! `$defs` entries, ...), so a property *named* `anyOf`, `$ref` or `type` is a name, never a
//! keyword. It is iterative: nesting depth costs heap, not stack, and each node is visited once.

use serde_json::Value;

use crate::keys::Keys;

/// The three keyword lists and [`holds`], from one table.
macro_rules! schema_keywords {
    (one: [$($one:literal),+ $(,)?], list: [$($list:literal),+ $(,)?], map: [$($map:literal),+ $(,)?] $(,)?) => {
        /// Keywords whose value is one schema.
        pub const SINGLE_SCHEMA_KEYWORDS: &[&str] = &[$($one),+];

        /// Keywords whose value is an array of schemas.
        pub const SCHEMA_ARRAY_KEYWORDS: &[&str] = &[$($list),+];

        /// Keywords whose value is a map from names to schemas.
        pub const SCHEMA_MAP_KEYWORDS: &[&str] = &[$($map),+];

        /// How `key` holds subschemas, if it does (the lists above, matched at once).
        pub(crate) fn holds(key: &str) -> Option<Holds> {
            // One match; a keyword in two lists (`items`) is taken by its first arm.
            #[allow(unreachable_patterns)]
            match key {
                "items" => Some(Holds::ListOrOne),
                $($map)|+ => Some(Holds::Map),
                $($list)|+ => Some(Holds::List),
                $($one)|+ => Some(Holds::One),
                _ => None,
            }
        }
    };
}

schema_keywords! {
    one: [
        "additionalProperties",
        "unevaluatedProperties",
        "propertyNames",
        "items",
        "additionalItems",
        "unevaluatedItems",
        "contains",
        "not",
        "if",
        "then",
        "else",
        "contentSchema",
    ],
    list: ["prefixItems", "allOf", "anyOf", "oneOf", "items"],
    map: [
        "properties",
        "patternProperties",
        "dependentSchemas",
        "$defs",
        "definitions",
        "dependencies",
    ],
}

/// One step from a schema to a subschema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step<'a> {
    /// `items`, `not`, ...: the keyword alone.
    Keyword(&'a str),
    /// `anyOf[1]`, `prefixItems[0]`: a keyword and an index.
    Index(&'a str, usize),
    /// `properties.name`, `$defs.Name`: a keyword and a name.
    Name(&'a str, &'a str),
}

/// A node's place in the document: its parent (an index into the walk's node list) and the step.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Place<'a> {
    /// Index of the parent node in [`Walk::nodes`]; `usize::MAX` for the root.
    pub parent: usize,
    /// How the parent reaches this node; `None` for the root.
    pub step: Option<Step<'a>>,
}

/// Every schema node of a document, in visiting order, with enough to rebuild each one's path.
#[non_exhaustive]
pub struct Walk<'a> {
    /// `(schema, place)` for each node; index 0 is the root.
    pub nodes: Vec<(&'a Value, Place<'a>)>,
}

/// How a keyword holds subschemas ([`holds`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Holds {
    /// One schema ([`SINGLE_SCHEMA_KEYWORDS`]).
    One,
    /// An array of schemas ([`SCHEMA_ARRAY_KEYWORDS`]).
    List,
    /// `items`: an array of schemas (draft-07 tuples) or one schema.
    ListOrOne,
    /// A map of names to schemas ([`SCHEMA_MAP_KEYWORDS`]).
    Map,
}

/// Calls `f` with each direct subschema of `schema` and the step that reaches it, in order.
pub(crate) fn each_child<'a>(schema: &'a Value, mut f: impl FnMut(Step<'a>, &'a Value)) {
    let Value::Object(map) = schema else {
        return;
    };
    for (key, value) in map {
        let key = key.as_str();
        match (holds(key), value) {
            (Some(Holds::Map), Value::Object(entries)) => {
                for (name, sub) in entries {
                    // `dependencies` values may be arrays of property names: not schemas.
                    if is_schema(sub) {
                        f(Step::Name(key, name.as_str()), sub);
                    }
                }
            }
            (Some(Holds::List | Holds::ListOrOne), Value::Array(items)) => {
                for (i, sub) in items.iter().enumerate() {
                    if is_schema(sub) {
                        f(Step::Index(key, i), sub);
                    }
                }
            }
            (Some(Holds::One | Holds::ListOrOne), sub) if is_schema(sub) => {
                f(Step::Keyword(key), sub);
            }
            _ => {}
        }
    }
}

/// Every schema node of `root` once (the nodes [`Walk::new`] lists, depth-first), without
/// building a list: `f` gets each node, the step that reaches it and what `f` gave for its
/// parent (`top` for the root), and gives what the node's children get, or `None` to stop.
/// False when `f` stopped the walk. The stack grows on the heap when it runs low.
pub(crate) fn each_node<'a, S: Copy, F: FnMut(&'a Value, Option<Step<'a>>, S) -> Option<S>>(
    root: &'a Value,
    top: S,
    f: &mut F,
) -> bool {
    each_node_or_skip(root, top, &mut |node, step, up| match f(node, step, up) {
        Some(state) => Flow::Below(state),
        None => Flow::Stop,
    })
}

/// What the visitor of [`each_node_or_skip`] says of a node.
pub(crate) enum Flow<S> {
    /// Stop the walk.
    Stop,
    /// Visit the nodes below it, each given this.
    Below(S),
}

/// [`each_node`] whose visitor may also pass over the nodes below a node ([`Flow::Skip`]).
pub(crate) fn each_node_or_skip<
    'a,
    S: Copy,
    F: FnMut(&'a Value, Option<Step<'a>>, S) -> Flow<S>,
>(
    root: &'a Value,
    top: S,
    f: &mut F,
) -> bool {
    fn go<'a, S: Copy, F: FnMut(&'a Value, Option<Step<'a>>, S) -> Flow<S>>(
        node: &'a Value,
        step: Option<Step<'a>>,
        up: S,
        depth: usize,
        f: &mut F,
    ) -> bool {
        let state = match f(node, step, up) {
            Flow::Stop => return false,
            Flow::Below(state) => state,
        };
        if !matches!(node, Value::Object(m) if !m.is_empty()) {
            return true;
        }
        let mut children = || {
            let mut go_on = true;
            each_child(node, |step, sub| {
                go_on = go_on && go(sub, Some(step), state, depth + 1, f);
            });
            go_on
        };
        // The stack is looked at every few levels (reading its bounds costs about as much as a
        // node); the red zone covers the levels in between.
        if depth % 8 == 0 {
            stacker::maybe_grow(256 * 1024, 1 << 20, children)
        } else {
            children()
        }
    }
    go(root, None, top, 0, f)
}

/// The direct subschemas of `schema`, with the step that reaches each.
pub fn children(schema: &Value) -> Vec<(Step<'_>, &Value)> {
    let mut out = Vec::new();
    each_child(schema, |step, sub| out.push((step, sub)));
    out
}

/// A JSON Schema is an object or a boolean.
pub fn is_schema(value: &Value) -> bool {
    matches!(value, Value::Object(_) | Value::Bool(_))
}

impl<'a> Walk<'a> {
    /// Visits every schema node under `root` once, breadth-first.
    pub fn new(root: &'a Value) -> Self {
        // A real tool's schema has tens of nodes: start there rather than grow from one (16:
        // small enough for the allocator's per-thread cache, which 32 entries were not).
        let mut nodes = Vec::with_capacity(16);
        nodes.push((
            root,
            Place {
                parent: usize::MAX,
                step: None,
            },
        ));
        let mut next = 0;
        while next < nodes.len() {
            let (schema, _) = nodes[next];
            each_child(schema, |step, sub| {
                nodes.push((
                    sub,
                    Place {
                        parent: next,
                        step: Some(step),
                    },
                ))
            });
            next += 1;
        }
        Walk { nodes }
    }

    /// The steps from the root to node `index`.
    pub fn steps(&self, index: usize) -> Vec<Step<'a>> {
        let mut steps = Vec::new();
        let mut at = index;
        while at != usize::MAX {
            let place = self.nodes[at].1;
            if let Some(step) = place.step {
                steps.push(step);
            }
            at = place.parent;
        }
        steps.reverse();
        steps
    }
}

/// The seed's dotted path: `properties.field_values.items`, `anyOf[1]`; the root is `""`.
/// A name that is not a plain identifier is quoted: `properties["a.b"]`.
pub fn dotted(steps: &[Step<'_>]) -> String {
    let mut out = String::new();
    for step in steps {
        match *step {
            Step::Keyword(k) => push_segment(&mut out, k),
            Step::Index(k, i) => {
                push_segment(&mut out, k);
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
            Step::Name(k, name) => {
                push_segment(&mut out, k);
                if is_plain_name(name) {
                    out.push('.');
                    out.push_str(name);
                } else {
                    out.push('[');
                    out.push_str(&Value::String(name.to_owned()).to_string());
                    out.push(']');
                }
            }
        }
    }
    out
}

fn push_segment(out: &mut String, segment: &str) {
    if !out.is_empty() {
        out.push('.');
    }
    out.push_str(segment);
}

fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '$'))
}

/// The JSON Pointer (RFC 6901) of the same steps: `/properties/field_values/items`.
pub fn pointer(steps: &[Step<'_>]) -> String {
    let mut out = String::new();
    for step in steps {
        match *step {
            Step::Keyword(k) => push_token(&mut out, k),
            Step::Index(k, i) => {
                push_token(&mut out, k);
                push_token(&mut out, &i.to_string());
            }
            Step::Name(k, name) => {
                push_token(&mut out, k);
                push_token(&mut out, name);
            }
        }
    }
    out
}

fn push_token(out: &mut String, token: &str) {
    out.push('/');
    out.push_str(&escaped(token));
}

/// One JSON Pointer reference token, escaped (`~` → `~0`, `/` → `~1`).
pub fn escape(token: &str) -> String {
    escaped(token).into_owned()
}

/// [`escape`] without a copy of a token that needs no escaping (most keys and names).
pub(crate) fn escaped(token: &str) -> std::borrow::Cow<'_, str> {
    if token.contains(['~', '/']) {
        token.replace('~', "~0").replace('/', "~1").into()
    } else {
        token.into()
    }
}

pub(crate) fn step<'a>(node: &'a Value, token: &str) -> Option<&'a Value> {
    let token: std::borrow::Cow<'_, str> = if token.contains('~') {
        token.replace("~1", "/").replace("~0", "~").into()
    } else {
        token.into()
    };
    match node {
        Value::Object(map) => map.key(token.as_ref()),
        Value::Array(items) => {
            // RFC 6901: no leading zeros, no sign.
            if token.len() > 1 && token.starts_with('0') || token.starts_with('+') {
                return None;
            }
            items.get(token.parse::<usize>().ok()?)
        }
        _ => None,
    }
}

/// Resolves many pointers in one document, reusing the nodes of the previous pointer's common
/// prefix: a report's positions along one deep branch cost what their new tokens cost, not
/// their whole depth each.
pub struct Cursor<'a> {
    doc: &'a Value,
    /// The resolved prefix of the last pointer asked for.
    last: String,
    /// For each resolved token: where it ends in `last`, and the node it names.
    stack: Vec<(usize, &'a Value)>,
}

impl<'a> Cursor<'a> {
    /// A cursor at the root of `doc`.
    pub fn new(doc: &'a Value) -> Self {
        Cursor {
            doc,
            last: String::new(),
            stack: Vec::new(),
        }
    }

    /// The node `pointer` names, like `Value::pointer`.
    pub fn get(&mut self, pointer: &str) -> Option<&'a Value> {
        let common = self
            .last
            .bytes()
            .zip(pointer.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        let boundary = |end: usize| end == pointer.len() || pointer.as_bytes()[end] == b'/';
        while let Some(&(end, _)) = self.stack.last() {
            if end < common || end == common && boundary(end) {
                break;
            }
            self.stack.pop();
        }
        let (mut end, mut node) = self.stack.last().copied().unwrap_or((0, self.doc));
        self.last.truncate(end);
        if end == pointer.len() {
            return Some(node);
        }
        let rest = pointer[end..].strip_prefix('/')?;
        for token in rest.split('/') {
            node = step(node, token)?;
            self.last.push('/');
            self.last.push_str(token);
            end = self.last.len();
            self.stack.push((end, node));
        }
        Some(node)
    }
}

/// Resolves a local `$ref` (`#`, `#/$defs/X`, any `#/...` pointer, percent-encoded or not)
/// against `root`. `None` when it does not resolve or is not local; nothing is ever fetched.
pub fn resolve_local<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let fragment = reference.strip_prefix('#')?;
    if fragment.is_empty() {
        return Some(root);
    }
    let decoded = percent_decode(fragment)?;
    root.pointer(&decoded)
}

/// A reference's fragment with `%XX` escapes decoded (`None` when one is malformed).
pub(crate) fn percent_decoded(s: &str) -> Option<String> {
    percent_decode(s)
}

fn percent_decode(s: &str) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_owned());
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    use serde_json::json;

    #[test]
    fn keywords_are_classified_by_how_they_hold_schemas() {
        assert_eq!(holds("properties"), Some(Holds::Map));
        assert_eq!(holds("dependencies"), Some(Holds::Map));
        assert_eq!(holds("anyOf"), Some(Holds::List));
        assert_eq!(holds("items"), Some(Holds::ListOrOne));
        assert_eq!(holds("not"), Some(Holds::One));
        for name in [
            "type",
            "$ref",
            "enum",
            "required",
            "Properties",
            "",
            "items ",
        ] {
            assert_eq!(holds(name), None, "{name:?}");
        }
        // Every listed keyword is classified as its lists say.
        for key in SINGLE_SCHEMA_KEYWORDS
            .iter()
            .chain(SCHEMA_ARRAY_KEYWORDS)
            .chain(SCHEMA_MAP_KEYWORDS)
        {
            let (one, list) = (
                SINGLE_SCHEMA_KEYWORDS.contains(key),
                SCHEMA_ARRAY_KEYWORDS.contains(key),
            );
            let expected = if SCHEMA_MAP_KEYWORDS.contains(key) {
                Holds::Map
            } else if one && list {
                Holds::ListOrOne
            } else if list {
                Holds::List
            } else {
                Holds::One
            };
            assert_eq!(holds(key), Some(expected), "{key}");
        }
        // Same first and last bytes and length as a keyword, or a keyword's prefix: not keywords.
        for name in [
            "thee",
            "elsa",
            "tien",
            "eose",
            "type",
            "description",
            "ifs",
            "i",
            "$def",
            "definitionz",
            "x".repeat(70).as_str(),
        ] {
            assert_eq!(holds(name), None, "{name:?}");
        }
    }

    #[test]
    fn cursor_resolves_like_serde_json_in_any_order() {
        let doc = json!({
            "a": {"b": [{"c": 1}, {"d/e": {"f~g": 2}}], "bb": 3},
            "": {"x": 4},
            "a/b": 5
        });
        let pointers = [
            "/a/b/1/d~1e/f~0g",
            "/a/b/1/d~1e",
            "/a/b/0/c",
            "/a/bb",
            "/a/b",
            "/a/b/01",
            "/a/b/+1",
            "/a/b/2",
            "/a/nope/x",
            "/a/b/1/d~1e/f~0g",
            "",
            "//x",
            "/a~1b",
            "/a",
            "/a/b/0/c/z",
            "/a/b/0/c",
            "no-slash",
        ];
        let mut cursor = Cursor::new(&doc);
        for round in 0..2 {
            for p in pointers {
                assert_eq!(cursor.get(p), doc.pointer(p), "{p} (round {round})");
            }
        }
    }

    #[test]
    fn property_names_are_not_keywords() {
        let schema = json!({
            "type": "object",
            "properties": {
                "anyOf": {"type": "string"},
                "$ref": {"type": "integer"},
                "properties": {"type": "object", "properties": {"items": {"type": "boolean"}}}
            }
        });
        let walk = Walk::new(&schema);
        let paths: Vec<String> = (0..walk.nodes.len())
            .map(|i| dotted(&walk.steps(i)))
            .collect();
        assert_eq!(
            paths,
            vec![
                "",
                "properties.anyOf",
                "properties.$ref",
                "properties.properties",
                "properties.properties.properties.items",
            ]
        );
    }

    #[test]
    fn paths_and_pointers() {
        let steps = [
            Step::Name("properties", "a/b~c"),
            Step::Index("anyOf", 1),
            Step::Keyword("items"),
        ];
        assert_eq!(dotted(&steps), "properties[\"a/b~c\"].anyOf[1].items");
        assert_eq!(pointer(&steps), "/properties/a~1b~0c/anyOf/1/items");
        assert_eq!(dotted(&[]), "");
    }

    #[test]
    fn resolves_local_refs_only() {
        let root = json!({"$defs": {"A B": {"type": "string"}}});
        assert!(resolve_local(&root, "#").is_some());
        assert_eq!(
            resolve_local(&root, "#/$defs/A%20B"),
            Some(&json!({"type": "string"}))
        );
        assert_eq!(resolve_local(&root, "#/$defs/Missing"), None);
        assert_eq!(resolve_local(&root, "https://example.com/s.json"), None);
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        // Built by moving values into maps: `json!` would serialize (recursively) a nested value.
        let mut schema = json!({"type": "string"});
        for _ in 0..20_000 {
            let mut node = serde_json::Map::new();
            node.insert("type".into(), json!("array"));
            node.insert("items".into(), schema);
            schema = Value::Object(node);
        }
        let walk = Walk::new(&schema);
        assert_eq!(walk.nodes.len(), 20_001);
        assert_eq!(walk.steps(20_000).len(), 20_000);
        // The depth-first walk too, the stack grown as it goes down (looked at every few levels).
        let (mut nodes, mut deepest) = (0, 0);
        assert!(each_node(&schema, 0usize, &mut |_, _, depth| {
            nodes += 1;
            deepest = deepest.max(depth);
            Some(depth + 1)
        }));
        assert_eq!((nodes, deepest), (20_001, 20_000));
        // serde_json's recursive Drop would overflow here; leak the test value instead.
        std::mem::forget(schema);
    }
}
