//! What strict modes cannot represent, one check each. A refusal makes the strict attempt fail
//! open: the tool is sent non-strict, never half-strict. Each check walks the tree
//! breadth-first and refuses at the first node in that order (the shallowest), named where it
//! stands in the document the check reads.

use std::collections::HashMap;

use serde_json::Value;

use super::TYPING;
use crate::adapt::fixes;

use crate::adapt::tree::{
    Body, Entry, Key, Keyword, NodeId, Reached, Refused, Report, Rule, Slot, Tree, WalkStep,
};

/// What the checks read of one node's own entries, found in one pass over them.
#[derive(Clone, Copy, Default)]
struct Own<'a> {
    type_value: Option<&'a Value>,
    any_of: bool,
    all_of: bool,
    reference: Option<&'a Value>,
    enum_value: Option<&'a Value>,
    /// An open map: `additionalProperties` true or a schema object.
    open: bool,
    /// A `patternProperties` with at least one pattern.
    patterns: bool,
    /// A `properties` entry, and an `additionalProperties` one (of any value).
    properties: bool,
    additional: bool,
    /// `oneOf` (with `any_of`, `all_of` and `reference`: the node's form is decided elsewhere).
    one_of: bool,
    /// A key other than the annotations `description`, `title`, `default`, `examples`,
    /// `$comment`.
    not_annotation: bool,
}

impl<'a> Own<'a> {
    fn of(tree: &'a Tree, id: NodeId) -> Option<Self> {
        let Body::Object(entries) = &tree.node(id).body else {
            return None;
        };
        let mut own = Own::default();
        for Entry { key, value, .. } in entries {
            match key {
                Key::Kw(Keyword::Type) => own.type_value = value.as_value(),
                Key::Kw(Keyword::AnyOf) => own.any_of = true,
                Key::Kw(Keyword::AllOf) => own.all_of = true,
                Key::Kw(Keyword::Ref) => own.reference = value.as_value(),
                Key::Kw(Keyword::Enum) => own.enum_value = value.as_value(),
                Key::Kw(Keyword::Properties) => own.properties = true,
                Key::Kw(Keyword::OneOf) => own.one_of = true,
                Key::Kw(Keyword::AdditionalProperties) => {
                    own.additional = true;
                    own.open = match value {
                        Slot::Schema(c) => !matches!(tree.node(*c).body, Body::Bool(false)),
                        _ => false,
                    }
                }
                Key::Kw(Keyword::PatternProperties) => {
                    own.patterns = match value {
                        Slot::Map(m) => !m.is_empty(),
                        Slot::Value(Value::Object(m)) => !m.is_empty(),
                        _ => false,
                    }
                }
                Key::Kw(
                    Keyword::Description
                    | Keyword::Title
                    | Keyword::Default
                    | Keyword::Examples
                    | Keyword::Comment,
                ) => continue,
                _ => {}
            }
            own.not_annotation = true;
        }
        Some(own)
    }

    /// An object that declares nothing of its members (`{"type": "object"}`): it takes any
    /// object, and closed it would take only `{}`.
    fn any_object(&self) -> bool {
        self.is_object()
            && !self.properties
            && !self.additional
            && !self.patterns
            && !self.any_of
            && !self.one_of
            && !self.all_of
            && self.reference.is_none()
    }

    /// `type` is `"object"` or a list holding it.
    fn is_object(&self) -> bool {
        match self.type_value {
            Some(Value::String(t)) => t == "object",
            Some(Value::Array(ts)) => ts.iter().any(|t| t.as_str() == Some("object")),
            _ => false,
        }
    }
}

/// `false` where it closes something (`additionalProperties: false`, `items: false` after
/// `prefixItems`): a keyword value, not a subschema to type.
fn closing(tree: &Tree, id: NodeId, step: Option<WalkStep<'_>>) -> bool {
    matches!(tree.node(id).body, Body::Bool(false))
        && matches!(
            step,
            Some(WalkStep::Keyword(
                "additionalProperties" | "unevaluatedProperties" | "items" | "unevaluatedItems"
            ))
        )
}

/// OpenAI strict cannot close an open map (`additionalProperties` true or a schema, even `{}`),
/// `patternProperties`, or an untyped subschema (`true`, `{}`) in a property, item, branch or
/// definition; nor a document already past the nesting or property limits (the rewrite only
/// adds to both). Runs first, before anything is stripped.
#[derive(Clone, Copy, Debug, Default)]
pub struct StrictPrecheck;

impl Rule for StrictPrecheck {
    fn name(&self) -> &'static str {
        "strict-precheck"
    }

    fn reads_only(&self) -> bool {
        true
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let list = tree.breadth_first();
        let mut limits = Limits::new(false, list.len());
        let mut refused = None;
        for (index, r) in list.iter().enumerate() {
            let own = Own::of(tree, r.id);
            limits.node(index, r, own.as_ref());
            if refused.is_none() {
                refused = precheck_refusal(r, own.as_ref()).map(|why| (index, why));
            }
        }
        // Limits the input already exceeds fail whatever the rewrite does: named first.
        if let Some((index, reason, fix)) = limits.exceeded() {
            report.fail(place(tree, &list, index), reason).fix(fix);
        } else if let Some((index, (why, fix))) = refused {
            report.fail(tree.refused(&list, index), why).fix(fix);
        }
    }
}

/// What [`StrictPrecheck`] refuses at one node, apart from the limits, and what to change.
fn precheck_refusal(
    r: &Reached<'_>,
    own: Option<&Own<'_>>,
) -> Option<(&'static str, &'static str)> {
    let slot = matches!(
        r.step,
        Some(
            WalkStep::Name("properties" | "$defs", _)
                | WalkStep::Keyword("items")
                | WalkStep::Index(..)
        )
    );
    if slot && own.is_none_or(|own| !own.not_annotation) {
        return Some((
            "an untyped subschema (`true` or `{}`) has no strict form: strict mode needs a type on every node",
            fixes::ANY_VALUE,
        ));
    }
    let own = own?;
    if own.patterns {
        return Some((
            "`patternProperties` has no strict form (objects must be closed)",
            fixes::PATTERN_MAP,
        ));
    }
    // Not the root: a tool without parameters says `{"type": "object"}` there.
    if r.parent != usize::MAX && own.any_object() {
        return Some((
            "an object that declares no properties takes any object, and strict mode would close it to `{}`",
            fixes::ANY_OBJECT,
        ));
    }
    own.open.then_some((
        "an open map (`additionalProperties` true or a schema) has no strict form: strict objects are closed",
        fixes::OPEN_MAP,
    ))
}

/// A whole-document refusal names the root; one at a node names the node.
fn place(tree: &Tree, list: &[Reached<'_>], index: Option<usize>) -> Refused {
    index.map_or_else(Refused::root, |i| tree.refused(list, i))
}

/// After OpenAI's strict rewrite: every node has a `type`, an `anyOf` or a local `$ref` that
/// resolves, no `allOf`, enum values of the node's type; then OpenAI's documented limits (5,000
/// object properties, 10 levels of object nesting, 1,000 enum values, 120,000 characters of
/// property names, definition names and enum values, and 15,000 for a string enum of more than
/// 250 values).
#[derive(Clone, Copy, Debug, Default)]
pub struct TypedWithinLimits;

impl Rule for TypedWithinLimits {
    fn name(&self) -> &'static str {
        "typed, openai-limits"
    }

    fn reads_only(&self) -> bool {
        true
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let list = tree.breadth_first();
        let mut limits = Limits::new(true, list.len());
        for (index, r) in list.iter().enumerate() {
            let own = Own::of(tree, r.id);
            if let Some((why, fix)) = untyped_refusal(tree, r, own.as_ref()) {
                report.fail(tree.refused(&list, index), why).fix(fix);
                return;
            }
            limits.node(index, r, own.as_ref());
        }
        if let Some((index, reason, fix)) = limits.exceeded() {
            report.fail(place(tree, &list, index), reason).fix(fix);
        }
    }
}

/// What [`TypedWithinLimits`] refuses in one node, apart from the limits, and what to change.
fn untyped_refusal(
    tree: &Tree,
    r: &Reached<'_>,
    own: Option<&Own<'_>>,
) -> Option<(String, &'static str)> {
    if closing(tree, r.id, r.step) {
        return None;
    }
    let Some(own) = own else {
        return Some((
            "a boolean subschema has no strict form".into(),
            fixes::BOOLEAN,
        ));
    };
    if own.all_of {
        return Some((
            "`allOf` with several schemas is not supported in strict mode".into(),
            fixes::ALL_OF,
        ));
    }
    if let Some(Value::String(reference)) = own.reference {
        if tree.resolve(reference).is_none() {
            return Some((
                format!(
                    "`$ref: {reference}` does not resolve in this schema (external references are never fetched)"
                ),
                fixes::UNRESOLVED_REF,
            ));
        }
    }
    if !(own.type_value.is_some() || own.any_of || own.reference.is_some()) {
        return Some((
            "a node with no type, combinator or `$ref` cannot be enforced in strict mode".into(),
            fixes::ANY_VALUE,
        ));
    }
    // An enum value of another type than the node's: OpenAI rejects the whole tool.
    if let (Some(Value::String(t)), Some(Value::Array(values))) = (own.type_value, own.enum_value) {
        let fits = |v: &Value| {
            let vt = crate::adapt::rules::value_type(v);
            vt == t || (t == "number" && vt == "integer")
        };
        if let Some(bad) = values.iter().find(|v| !fits(v)) {
            return Some((
                format!("the enum value {bad} is not of the node's type `{t}`"),
                fixes::MIXED_ENUM,
            ));
        }
    }
    None
}

/// OpenAI's strict limits, counted node by node over a breadth-first list. `all: false`
/// counts only the object nesting and the property count, which the strict rewrite can only
/// grow.
struct Limits {
    all: bool,
    properties: usize,
    enum_values: usize,
    bytes: usize,
    chars: usize,
    /// Each listed node's object nesting.
    depth: Vec<usize>,
    deepest: (usize, usize),
    /// A string enum over the limit for long enums: where, and why.
    long_enum: Option<(usize, String)>,
}

impl Limits {
    fn new(all: bool, nodes: usize) -> Self {
        Limits {
            all,
            properties: 0,
            enum_values: 0,
            bytes: 0,
            chars: 0,
            depth: Vec::with_capacity(nodes),
            deepest: (0, 0),
            long_enum: None,
        }
    }

    /// Counts node `index` of the list (nodes in list order).
    fn node(&mut self, index: usize, r: &Reached<'_>, own: Option<&Own<'_>>) {
        let parent = self.depth.get(r.parent).copied().unwrap_or(0);
        self.depth
            .push(parent + usize::from(own.is_some_and(Own::is_object)));
        if self.depth[index] > self.deepest.0 {
            self.deepest = (self.depth[index], index);
        }
        if let Some(WalkStep::Name(kw @ ("properties" | "$defs"), name)) = r.step {
            self.bytes += name.len();
            self.chars += name.chars().count();
            self.properties += usize::from(kw == "properties");
        }
        let Some(Value::Array(values)) = own.and_then(|o| o.enum_value).filter(|_| self.all) else {
            return;
        };
        self.enum_values += values.len();
        let strings = || values.iter().filter_map(Value::as_str);
        self.bytes += strings().map(str::len).sum::<usize>();
        let len: usize = strings().map(|s| s.chars().count()).sum();
        self.chars += len;
        if self.long_enum.is_none()
            && values.len() > 250
            && values.iter().all(Value::is_string)
            && len > 15_000
        {
            let why = format!(
                "a string enum of {} values totals {len} characters; OpenAI allows 15,000 for enums over 250 values",
                values.len()
            );
            self.long_enum = Some((index, why));
        }
    }

    /// The first limit exceeded: the node to name (none for a whole-document count) and why.
    fn exceeded(self) -> Option<(Option<usize>, String, &'static str)> {
        if let Some((index, why)) = self.long_enum {
            return Some((Some(index), why, fixes::LONG_ENUM));
        }
        if self.properties > 5_000 {
            let why = format!(
                "{} object properties; OpenAI strict allows 5,000",
                self.properties
            );
            return Some((None, why, fixes::TOO_BIG));
        }
        if self.deepest.0 > 10 {
            let (levels, index) = self.deepest;
            let why = format!("{levels} levels of object nesting; OpenAI strict allows 10");
            return Some((Some(index), why, fixes::TOO_DEEP));
        }
        if self.all && self.enum_values > 1_000 {
            let why = format!(
                "{} enum values; OpenAI strict allows 1,000",
                self.enum_values
            );
            return Some((None, why, fixes::LONG_ENUM));
        }
        if self.all && self.bytes > 120_000 && self.chars > 120_000 {
            let why = format!(
                "{} characters of names and enum values; OpenAI strict allows 120,000",
                self.chars
            );
            return Some((None, why, fixes::TOO_BIG));
        }
        None
    }
}

/// Anthropic strict tool use cannot represent recursion, an external or unresolved `$ref`, an
/// open map, `patternProperties`, an enum of objects or arrays, or an untyped node.
#[derive(Clone, Copy, Debug, Default)]
pub struct AnthropicStrictCheck;

impl Rule for AnthropicStrictCheck {
    fn name(&self) -> &'static str {
        "anthropic-strict-check"
    }

    fn reads_only(&self) -> bool {
        true
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let list = tree.breadth_first();
        // Which definition (or the root, `#`) refers to which.
        let mut edges: HashMap<String, Vec<String>> = HashMap::new();
        // Per node, its ancestor just below the root (itself at that depth; the root: none).
        let mut tops: Vec<usize> = Vec::with_capacity(list.len());
        for (index, r) in list.iter().enumerate() {
            tops.push(match r.parent {
                usize::MAX => usize::MAX,
                0 => index,
                parent => tops[parent],
            });
            if closing(tree, r.id, r.step) {
                continue;
            }
            let at = || tree.refused(&list, index);
            let Some(own) = Own::of(tree, r.id) else {
                report
                    .fail(at(), "a boolean subschema has no strict form")
                    .fix(fixes::BOOLEAN);
                return;
            };
            if let Some(Value::String(reference)) = own.reference {
                if !reference.starts_with('#') {
                    let why =
                        format!("external `$ref: {reference}` is not supported in strict mode");
                    report.fail(at(), why).fix(fixes::UNRESOLVED_REF);
                    return;
                }
                if tree.resolve(reference).is_none() {
                    report
                        .fail(at(), format!("`$ref: {reference}` does not resolve"))
                        .fix(fixes::UNRESOLVED_REF);
                    return;
                }
                let owner = match list.get(tops[index]).and_then(|t| t.step) {
                    Some(WalkStep::Name(kw @ ("$defs" | "definitions"), name)) => {
                        format!("#/{kw}/{}", crate::walk::escape(name))
                    }
                    _ => "#".to_owned(),
                };
                edges.entry(owner).or_default().push(reference.clone());
            }
            if let Some((why, fix)) = anthropic_refusal(tree, r, &own) {
                report.fail(at(), why).fix(fix);
                return;
            }
        }
        if let Some(cycle) = find_cycle(&edges) {
            report
                .fail(
                    Refused::root(),
                    format!("recursive schemas are not supported in strict mode (`{cycle}` refers back to itself)"),
                )
                .fix(fixes::RECURSION);
        }
    }
}

/// What [`AnthropicStrictCheck`] refuses in one object node, apart from its `$ref`, and what
/// to change.
fn anthropic_refusal(
    tree: &Tree,
    r: &Reached<'_>,
    own: &Own<'_>,
) -> Option<(&'static str, &'static str)> {
    if own.patterns {
        return Some((
            "`patternProperties` is not supported in strict mode",
            fixes::PATTERN_MAP,
        ));
    }
    if r.parent != usize::MAX && own.any_object() {
        return Some((
            "an object that declares no properties takes any object, and strict mode would close it to `{}`",
            fixes::ANY_OBJECT,
        ));
    }
    if own.open {
        return Some((
            "`additionalProperties` other than false is not supported in strict mode",
            fixes::OPEN_MAP,
        ));
    }
    // Closed one by one, the members of an `allOf` refuse each other's properties.
    let several =
        |e: &crate::adapt::tree::Entry| matches!(&e.value, Slot::Schemas(m) if m.len() > 1);
    if tree.get(r.id, Keyword::AllOf).is_some_and(several) {
        return Some((
            "`allOf` of several schemas has no strict form: strict mode closes each member, and closed members refuse each other's properties",
            fixes::ALL_OF,
        ));
    }
    if let Some(Value::Array(values)) = own.enum_value {
        if values.iter().any(|v| v.is_object() || v.is_array()) {
            return Some((
                "an enum of objects or arrays is not supported in strict mode",
                fixes::STRUCTURED_ENUM,
            ));
        }
    }
    // A node whose type infer-type reads from its keywords (`properties`, `items`,
    // `prefixItems`, a string `pattern`) is typed in the strict rewrite.
    let id = r.id;
    let typed = TYPING.iter().any(|k| tree.has(id, *k))
        || matches!(
            tree.get(id, Keyword::Properties).map(|e| &e.value),
            Some(Slot::Map(_))
        )
        || tree.has(id, Keyword::Items)
        || tree.has(id, Keyword::PrefixItems)
        || matches!(tree.value(id, Keyword::Pattern), Some(Value::String(_)));
    let slot = r
        .step
        .is_some_and(|s| !matches!(s, WalkStep::Keyword("not")));
    (!typed && slot).then_some(("an untyped node has no strict form", fixes::ANY_VALUE))
}

pub(crate) fn find_cycle(edges: &HashMap<String, Vec<String>>) -> Option<String> {
    // Iterative depth-first search with colours.
    let mut state: HashMap<&str, u8> = HashMap::new();
    let mut keys: Vec<&String> = edges.keys().collect();
    keys.sort();
    for start in keys {
        if state.contains_key(start.as_str()) {
            continue;
        }
        let mut stack: Vec<(&str, usize)> = vec![(start.as_str(), 0)];
        state.insert(start, 1);
        while let Some((node, i)) = stack.pop() {
            let next = edges.get(node).and_then(|e| e.get(i));
            match next {
                Some(n) => {
                    stack.push((node, i + 1));
                    match state.get(n.as_str()) {
                        Some(1) => return Some(n.clone()),
                        Some(_) => {}
                        None => {
                            state.insert(n, 1);
                            stack.push((n.as_str(), 0));
                        }
                    }
                }
                None => {
                    state.insert(node, 2);
                }
            }
        }
    }
    None
}
