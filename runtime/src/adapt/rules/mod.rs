//! The rules, one small transform per provider rule. Each implements [`Rule`]; wrap one in
//! [`Logged`] to use it as a `schemars::transform::Transform` (for example in
//! `SchemaSettings::with_transform`), with its report kept alongside.

mod arrays;
pub(crate) mod cca;
mod draft;
mod enums;
mod fused;
mod google;
mod inline;
pub(crate) use enums::{homogeneous_type, value_type};
pub mod keywords;
#[cfg(feature = "validate")]
pub(crate) mod meta;
mod objects;
mod order;
mod patterns;
mod refs;
mod responses;
mod root;
mod strict_checks;
pub(super) mod types;
mod unions;

pub use arrays::TupleItems;
pub use cca::{CollapseCombiners, MetaValidate, NullablePropertiesOptional, ResidualGate};
pub use draft::UpgradeDraft07;
pub use enums::{AllConstToEnum, ConstToEnum, InferType};
pub(crate) use fused::{Fused, NodeRule, walk_nodes};
pub use google::{
    BoolSchemas, EnsureProperties, GoogleNullable, OPENAPI_SCHEMA_FIELDS, OneBranchUnions,
    OpenApiSchemaFields, PropertyOrdering, RequiredAreProperties, SnakeCaseKeywords,
    StringEnumsOnly, openapi_format_ok,
};
pub use inline::InlineRefs;
pub use keywords::{DefaultToDescription, StripKeywords};
pub(crate) use objects::CloseObjectsVouching;
pub use objects::{CloseObjects, Optional};
pub use order::StructuredFirst;
pub(crate) use order::is_bare_null;
pub use patterns::{PatternsCompile, pattern_refusal};
pub use refs::{MergeSingleAllOf, ResolveRefSiblings};
pub use responses::ResponsesPrepass;
pub(crate) use responses::has_lookaround as responses_has_lookaround;
pub use root::{ObjectRoot, RemoveSchemaUri, RootCombinators};
pub use strict_checks::{
    AnthropicStrictCheck, OpenAiLimits, StrictPrecheck, Typed, TypedWithinLimits,
};
pub(crate) use strict_checks::{
    AnthropicStrictCheckAtEnd, AnthropicStrictGate, TypedWithinLimitsAfter, Vouch, find_cycle,
};
pub use types::SplitTypeArrays;
pub use unions::{OneOfToAnyOf, SpliceNestedAnyOf};

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value};

pub use super::holds::Held;
use super::pointer::Pointer;
use super::report::RuleReport;
use crate::keys::Keys;

/// One provider rule: rewrites a whole schema document (the root, with its `$defs`) and records
/// what it changed or lost.
pub trait Rule {
    /// A short kebab-case name, used in reports.
    fn name(&self) -> &'static str;
    /// Applies the rule to the document.
    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport);
    /// The rule never changes the document and records nothing but a failure (a check): a strict attempt runs its
    /// leading checks on the shared rules' output before rewriting anything, so that a schema
    /// strict mode refuses costs no copy.
    fn reads_only(&self) -> bool {
        false
    }
    /// Whether [`Rule::wanted`] reads the facts the scan notes of OpenAI's strict limits (an
    /// open map, a subschema of annotations alone, the object nesting, the properties in all):
    /// the engine's first scan of a document notes them only for settings with such a rule.
    fn reads_limits(&self) -> bool {
        false
    }
    /// Whether the rule may have anything to do on a document, given which keywords the
    /// document may hold (`held.may_hold(k)` is false only when no key anywhere in it is `k`).
    /// The engine passes over a rule that answers no, without walking the document for it. The
    /// default: always.
    fn wanted(&self, held: &Held<'_>) -> bool {
        let _ = held;
        true
    }
    /// Calls `add` with every keyword the rule may write into a document that had it nowhere
    /// (keywords it moves from one node to another need not be named), and returns true; false
    /// (the default) when it cannot say, and the engine looks at the document again before the
    /// next rule that asks ([`Rule::wanted`]). `held` says which keywords the document the rule
    /// ran on may have held: a rule whose writes depend on what it finds can name only those.
    fn adds(&self, held: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        let _ = (held, add);
        false
    }
    /// Calls `add` with every keyword the rule may write into the root object alone, beside
    /// what [`Rule::adds`] names (which the engine takes to be written anywhere); asked only
    /// where that said true. The default: none.
    fn adds_at_root(&self, held: &Held<'_>, add: &mut dyn FnMut(&str)) {
        let _ = (held, add);
    }
    /// Whether the rule, wanted on a document, has work at its root alone, given which
    /// keywords the root object itself may hold (`root`) and which an object below it may hold
    /// (`below`): the engine then calls [`Rule::apply_at_root`] instead of [`Rule::apply`], and
    /// the result must be the same. The default: no.
    fn at_root_alone(&self, root: &Held<'_>, below: &Held<'_>) -> bool {
        let _ = (root, below);
        false
    }
    /// [`Rule::apply`] for a document on which [`Rule::at_root_alone`] said yes: the work at
    /// the root without a walk. The default applies the rule.
    fn apply_at_root(&mut self, schema: &mut Value, report: &mut RuleReport) {
        self.apply(schema, report);
    }
    /// Whether the rule, run on a document whose root object may hold what `root` allows,
    /// keeps the root's keys and the keys below it apart: every key it leaves at the root
    /// object was there or is one it declares ([`Rule::adds`], [`Rule::adds_at_root`]), and
    /// every key it leaves in an object below the root was below it or is declared by
    /// [`Rule::adds`] (a key it moves within a node, or between two nodes below the root, stays
    /// on its side). The engine then goes on knowing which keywords the root holds and which
    /// the nodes below it, so that a later rule can still be run at the root alone
    /// ([`Rule::at_root_alone`]). The default: it may move keys across.
    fn keeps_root_and_below(&self, root: &Held<'_>) -> bool {
        let _ = root;
        false
    }
    /// [`Rule::apply`], told what the engine knows of the keywords the document may hold
    /// (everything, when it knows nothing: it does not scan for this); the result must be what
    /// [`Rule::apply`] gives. For a rule that would otherwise search the document for a
    /// keyword the record can rule out: the engine calls it for a strict attempt's leading
    /// checks ([`Rule::reads_only`]) and for rules that ask ([`Rule::told`]), and
    /// [`Rule::apply`] for every other rule. The default applies the rule.
    fn apply_held(&mut self, schema: &mut Value, report: &mut RuleReport, held: &Held<'_>) {
        let _ = held;
        self.apply(schema, report);
    }
    /// Whether the engine calls [`Rule::apply_held`] for this rule wherever it runs (not only
    /// as a strict attempt's leading check): for a rule whose work is cheaper when the record
    /// rules a keyword out. The default: no.
    fn told(&self) -> bool {
        false
    }
}

/// [`Rule::adds`] for a rule that writes the keywords `keywords`.
pub(crate) fn adds_these(keywords: &[&str], add: &mut dyn FnMut(&str)) -> bool {
    keywords.iter().for_each(|k| add(k));
    true
}

/// The names of JSON Schema's types.
const JSON_TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// A type's name as a rule keeps it past the node it read it from: one of JSON Schema's types
/// by reference (nearly always), any other name copied.
pub(crate) fn type_name(t: &str) -> std::borrow::Cow<'static, str> {
    match JSON_TYPES.iter().find(|&&known| known == t) {
        Some(known) => std::borrow::Cow::Borrowed(known),
        None => std::borrow::Cow::Owned(t.to_owned()),
    }
}

/// The `anyOf` a rule declares for unions it adds that can stand in an `anyOf`'s branch, or
/// hold one in their own branches, only where the document held an `anyOf` already: around
/// schemas the document holds where no union branch stands (see
/// [`crate::adapt::holds::ANY_OF_AROUND`]), or where a list of types was. A rule that declares
/// it names [`crate::adapt::holds::UNION_PAST_NULL`] itself when its unions may be more than
/// `[T, {"type": "null"}]`.
pub(crate) fn any_of_around(held: &Held<'_>) -> &'static str {
    if held.may_hold("anyOf") {
        "anyOf"
    } else {
        crate::adapt::holds::ANY_OF_AROUND
    }
}

/// [`adds_these`] for a rule that also moves subschemas to other places (a branch merged into
/// its node, a definition put where it is referenced): an `anyOf` the document held may then
/// stand in a union's branch ([`crate::adapt::holds::ANY_OF_IN_ANY_OF`]), and a node that had
/// its type from a union, an `allOf` or a `$ref` may be left with none
/// ([`crate::adapt::holds::UNTYPED`]), or an array type meet a merged `items` that is no
/// schema ([`crate::adapt::holds::ARRAY_NO_ITEMS`]); a definition copied where it is
/// referenced nests deeper and adds its properties ([`crate::adapt::holds::DEEP`],
/// [`crate::adapt::holds::LARGE`]).
pub(crate) fn moves_and_adds(
    held: &Held<'_>,
    keywords: &[&str],
    add: &mut dyn FnMut(&str),
) -> bool {
    if held.may_hold("anyOf") {
        add(crate::adapt::holds::ANY_OF_IN_ANY_OF);
    }
    if held.may_hold("$ref") {
        add(crate::adapt::holds::DEEP);
        add(crate::adapt::holds::LARGE);
    }
    if held.may_hold_any(&["anyOf", "oneOf", "allOf", "$ref"]) {
        add(crate::adapt::holds::UNTYPED);
        add(crate::adapt::holds::ARRAY_NO_ITEMS);
    }
    adds_these(keywords, add)
}

/// A [`Rule`] as a `schemars` [`Transform`], keeping its report.
#[derive(Clone, Debug, Default)]
pub struct Logged<R> {
    /// The rule.
    pub rule: R,
    /// What it changed and lost so far.
    pub report: RuleReport,
}

impl<R> Logged<R> {
    /// Wraps a rule.
    pub fn new(rule: R) -> Self {
        Logged {
            rule,
            report: RuleReport::default(),
        }
    }
}

impl<R: Rule> Transform for Logged<R> {
    fn transform(&mut self, schema: &mut Schema) {
        let mut value = std::mem::replace(schema, Schema::from(true)).to_value();
        self.report.rule = self.rule.name();
        self.rule.apply(&mut value, &mut self.report);
        *schema = Schema::try_from(value).unwrap_or_else(|_| Schema::from(true));
    }
}

/// A deterministic source of choices for the tests' document generators (xorshift; no
/// dependency): a generator gives its state, the choices come from here.
#[cfg(test)]
pub(crate) trait Xorshift {
    /// The generator's state (never 0).
    fn state(&mut self) -> &mut u64;

    fn next(&mut self) -> u64 {
        let s = self.state();
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        *s
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[(self.next() % from.len() as u64) as usize]
    }
}

/// Applies one rule to a document, for the rules' unit tests.
#[cfg(test)]
pub(crate) fn run(rule: &mut dyn Rule, mut v: Value) -> (Value, RuleReport) {
    let mut r = RuleReport::default();
    rule.apply(&mut v, &mut r);
    (v, r)
}

/// `type` as a list of names (empty when absent).
/// Whether `type` names `null` and nothing else (`type_names(node) == ["null"]`, without
/// collecting the list).
pub(crate) fn names_null_alone(node: &Map<String, Value>) -> bool {
    match node.key("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => {
            let mut names = ts.iter().filter_map(Value::as_str);
            names.next() == Some("null") && names.next().is_none()
        }
        _ => false,
    }
}

pub(crate) fn type_names(node: &Map<String, Value>) -> Vec<&str> {
    match node.key("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

pub(crate) use crate::keys::has_type;

pub(crate) use crate::nullable::is_null_branch as is_null_schema;

/// A node that is only an `anyOf` (and optionally a `description`).
pub(crate) fn is_pure_any_of(v: &Value) -> bool {
    v.as_object().is_some_and(|m| {
        m.key("anyOf").is_some_and(Value::is_array)
            && m.keys().all(|k| k == "anyOf" || k == "description")
    })
}

/// Appends `{k1: v1, k2: v2}` to the node's description (after a blank line), the reference implementation's spill
/// format; values are JSON.
pub(crate) fn spill<K: AsRef<str>>(node: &mut Map<String, Value>, entries: &[(K, Value)]) {
    // `{k: v, k: v}`, written straight after the description's own text when it has one.
    let write = |block: &mut String| {
        block.push('{');
        for (i, (k, v)) in entries.iter().enumerate() {
            if i > 0 {
                block.push_str(", ");
            }
            block.push_str(k.as_ref());
            block.push_str(": ");
            write_json_text(block, v);
        }
        block.push('}');
    };
    let guess = 2 + entries
        .iter()
        .map(|(k, _)| k.as_ref().len() + 8)
        .sum::<usize>();
    match node.key_mut("description") {
        Some(Value::String(d)) if !d.is_empty() => {
            d.reserve(2 + guess);
            d.push_str("\n\n");
            write(d);
        }
        _ => {
            let mut block = String::with_capacity(guess);
            write(&mut block);
            node.insert("description".into(), Value::String(block));
        }
    }
}

/// The description of a node made from a reference and its target: the referring node's own
/// text first, then the target's (with everything rules spilled into it), each once. Either may
/// be absent.
pub(crate) fn joined_description(own: Option<&Value>, target: Option<&Value>) -> Option<Value> {
    match (own, target) {
        (Some(Value::String(own)), Some(Value::String(target)))
            if !target.is_empty() && !own.contains(target.as_str()) =>
        {
            if own.is_empty() {
                Some(Value::String(target.clone()))
            } else {
                Some(Value::String(format!("{own}\n\n{target}")))
            }
        }
        (Some(own), _) => Some(own.clone()),
        (None, target) => target.cloned(),
    }
}

/// Merges a reference's sibling keywords over its inlined target: `properties` and `required`
/// united (both apply), the two descriptions joined, any other keyword the sibling's. Reports, at `target_at` (the target's
/// pointer), each keyword of the target a sibling replaced with another value.
pub(crate) fn merge_siblings(
    target: &mut Map<String, Value>,
    siblings: impl IntoIterator<Item = (String, Value)>,
    target_at: &str,
    report: &mut RuleReport,
) {
    for (k, v) in siblings {
        if k == "description" {
            if let Some(joined) = joined_description(Some(&v), target.key("description")) {
                target.insert(k, joined);
            }
            continue;
        }
        // Both apply (a `$ref` and its siblings hold together): an internally tagged variant's
        // tag property next to the referenced struct's fields keeps both.
        match (k.as_str(), target.get_mut(&k), &v) {
            ("properties", Some(Value::Object(own)), Value::Object(more)) => {
                for (name, schema) in more {
                    own.insert(name.clone(), schema.clone());
                }
                continue;
            }
            ("required", Some(Value::Array(own)), Value::Array(more)) => {
                push_each_once(own, more.iter().cloned());
                continue;
            }
            _ => {}
        }
        if let Some(old) = target.get(&k).filter(|old| **old != v) {
            report.loss(
                format!("{target_at}/{}", crate::walk::escape(&k)),
                &k,
                super::report::LossKind::Dropped,
                format!(
                    "`{k}: {}` of the definition is replaced by the referring node's `{k}: {}` where it is inlined",
                    json_text(old),
                    json_text(&v)
                ),
            );
        }
        target.insert(k, v);
    }
}

/// The keys of an object (none for anything else).
pub(crate) fn map_keys(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_object)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

/// Takes a branch's (or a reference target's) keywords into a node that keeps its own: the node's
/// keywords win, and the two descriptions are joined (the node's first), so that nothing a rule
/// spilled into the branch's description is lost. A keyword of the branch that the node's own
/// value replaces is reported dropped, at `branch_at` (where the branch stands). The keywords
/// the node takes over are logged as moved from `branch_at` to `node_at`, so that what later
/// rules record under them is named where it stands in the input; with `gone` (the caller
/// removed the branch), what earlier rules recorded anywhere in the branch is placed at the node.
pub(crate) fn absorb(
    node: &mut Map<String, Value>,
    branch: Map<String, Value>,
    node_at: &Pointer,
    branch_at: &Pointer,
    gone: bool,
    report: &mut RuleReport,
) {
    let mut taken = Vec::new();
    for (k, v) in branch {
        if k == "description" {
            if let Some(joined) = joined_description(node.key("description"), Some(&v)) {
                node.insert(k, joined);
            }
            continue;
        }
        match node.key(&k) {
            None => {
                taken.push(k.clone());
                node.insert(k, v);
            }
            Some(own) if *own == v => {}
            Some(own) => {
                report.loss(
                    branch_at.child(&k),
                    &k,
                    super::report::LossKind::Dropped,
                    format!(
                        "`{k}: {}` of a merged branch is replaced by the node's own `{k}: {}`",
                        json_text(&v),
                        json_text(own)
                    ),
                );
            }
        }
    }
    report.lifted(node_at, branch_at, taken, gone);
}

/// The string values of a list, for adding values to it each once: a string is found in the
/// set (uniting two long lists of names or enum values is then linear), another value by
/// comparing it with each held one.
#[derive(Default)]
pub(crate) struct HeldStrings(std::collections::HashSet<String>);

impl HeldStrings {
    /// The strings `values` holds.
    pub(crate) fn of(values: &[Value]) -> Self {
        HeldStrings(
            values
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
        )
    }

    /// Appends `v` to `values` unless it holds it already. `values` is the list this was made
    /// of, grown only through here.
    pub(crate) fn push(&mut self, values: &mut Vec<Value>, v: Value) {
        let held = match &v {
            Value::String(s) => !self.0.insert(s.clone()),
            other => values.contains(other),
        };
        if !held {
            values.push(v);
        }
    }
}

/// Appends each of `more` that `values` does not hold yet (nor an earlier one of `more`), in
/// order ([`HeldStrings`]; a few are compared instead, so that adding one value to a long
/// list does not make the set).
pub(crate) fn push_each_once(values: &mut Vec<Value>, more: impl IntoIterator<Item = Value>) {
    let more = more.into_iter();
    if more.size_hint().1.is_some_and(|n| n <= 8) {
        for v in more {
            if !values.contains(&v) {
                values.push(v);
            }
        }
        return;
    }
    let mut held = HeldStrings::of(values);
    for v in more {
        held.push(values, v);
    }
}

/// For each of `values`, the index of the first one equal to it (its own when none before is).
/// Values are put in buckets by a hash of their content, so that each is compared only with
/// the earlier ones of its bucket: linear in the values, where comparing each with every
/// earlier one was quadratic. The hash reads [`FIRST_DEPTH`] levels down; a bucket of more than
/// [`CROWDED`] values that differ only below that is split again by a hash twice as deep, until
/// the hash reads them whole (values alike near the top, as a tuple's positions often are, were
/// each compared with every other of their one bucket). The hasher's keys are random, as a
/// `HashMap`'s are: the buckets cannot be filled on purpose.
pub(crate) fn first_equal(values: &[Value]) -> Vec<usize> {
    use smallvec::SmallVec;
    use std::hash::BuildHasher;
    let keys = std::collections::hash_map::RandomState::new();
    let mut first: Vec<usize> = (0..values.len()).collect();
    let mut work: Vec<(Vec<usize>, usize)> = vec![((0..values.len()).collect(), FIRST_DEPTH)];
    let mut distinct: Vec<usize> = Vec::new();
    while let Some((group, depth)) = work.pop() {
        // Each bucket's members in the group's order (ascending; the first two inline: most
        // values are alone in their bucket), and whether the hash left any of them unread below
        // `depth`.
        let mut buckets: std::collections::HashMap<u64, (SmallVec<[usize; 2]>, bool)> =
            std::collections::HashMap::with_capacity(group.len());
        for i in group {
            let mut hasher = keys.build_hasher();
            let cut = hash_content(&values[i], depth, &keys, &mut hasher);
            let bucket = buckets
                .entry(std::hash::Hasher::finish(&hasher))
                .or_insert_with(|| (SmallVec::new(), false));
            bucket.0.push(i);
            bucket.1 |= cut;
        }
        for (members, cut) in buckets.into_values() {
            if members.len() > CROWDED && cut {
                work.push((members.to_vec(), depth.saturating_mul(2)));
                continue;
            }
            if members.len() == 1 {
                // Its own first (as `first` says already).
                continue;
            }
            // The distinct values of the bucket, each the first of its kind.
            distinct.clear();
            for &i in members.iter() {
                let same = |&&k: &&usize| {
                    #[cfg(test)]
                    tests::COMPARED.with(|n| n.set(n.get() + 1));
                    values[k] == values[i]
                };
                match distinct.iter().find(same) {
                    Some(&k) => first[i] = k,
                    None => distinct.push(i),
                }
            }
        }
    }
    first
}

/// How many levels down [`first_equal`]'s first hash reads.
const FIRST_DEPTH: usize = 3;

/// More values than this in one bucket of [`first_equal`] are split by a deeper hash.
const CROWDED: usize = 8;

/// Hashes `v` into `h`, equal for equal values (serde_json's equality: the entries of an object
/// in any order, `0.0` equal to `-0.0`), reading `depth` levels down; whether some of `v` lies
/// below that and was not read. Entries of an object are hashed each alone with `keys`.
fn hash_content(
    v: &Value,
    depth: usize,
    keys: &impl std::hash::BuildHasher,
    h: &mut impl std::hash::Hasher,
) -> bool {
    use std::hash::Hash;
    match v {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => (1u8, b).hash(h),
        Value::Number(n) => {
            2u8.hash(h);
            match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => (0u8, u).hash(h),
                (_, Some(i), _) => (1u8, i).hash(h),
                (_, _, Some(f)) => (2u8, if f == 0.0 { 0 } else { f.to_bits() }).hash(h),
                _ => n.to_string().hash(h),
            }
        }
        Value::String(s) => (3u8, s).hash(h),
        Value::Array(items) => {
            (4u8, items.len()).hash(h);
            if depth == 0 {
                return !items.is_empty();
            }
            let mut cut = false;
            for item in items {
                cut |= hash_content(item, depth - 1, keys, h);
            }
            return cut;
        }
        Value::Object(map) => {
            (5u8, map.len()).hash(h);
            if depth == 0 {
                return !map.is_empty();
            }
            // Each entry hashed alone and the hashes added: the same in any order.
            let (mut sum, mut cut) = (0u64, false);
            for (k, item) in map {
                let mut entry = keys.build_hasher();
                k.hash(&mut entry);
                cut |= hash_content(item, depth - 1, keys, &mut entry);
                sum = sum.wrapping_add(std::hash::Hasher::finish(&entry));
            }
            sum.hash(h);
            return cut;
        }
    }
    false
}

/// `{"type": "null"}`, copied from one made once: a copy allocates as `json!` does but hashes
/// nothing.
pub(crate) fn null_schema() -> Value {
    static NULL: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    NULL.get_or_init(|| serde_json::json!({"type": "null"}))
        .clone()
}

/// `{key: value}`, with `value` moved in (`json!` would copy it through the serializer).
pub(crate) fn one_key(key: &str, value: Value) -> Value {
    let mut map = Map::new();
    map.insert(key.to_owned(), value);
    Value::Object(map)
}

/// Appends text to the node's description, or makes it the description.
pub(crate) fn append_description(node: &mut Map<String, Value>, text: &str, separator: &str) {
    match node.key_mut("description") {
        Some(Value::String(d)) if !d.is_empty() => {
            d.push_str(separator);
            d.push_str(text);
        }
        _ => {
            node.insert("description".into(), Value::String(text.to_owned()));
        }
    }
}

/// Whether serde_json writes `s` as it is between quotes (it escapes only `"`, `\` and control
/// characters).
pub(crate) fn written_as_is(s: &str) -> bool {
    !s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20)
}

/// JSON text of a value, with integral floats printed as integers (`0.0` as `0`).
pub(crate) fn json_text(v: &Value) -> String {
    let mut text = String::new();
    write_json_text(&mut text, v);
    text
}

/// [`json_text`] appended to `out` (no string of its own made).
pub(crate) fn write_json_text(out: &mut String, v: &Value) {
    use std::fmt::Write as _;
    // The common small values written directly, as serde_json writes them.
    match v {
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Null => out.push_str("null"),
        Value::String(s) if written_as_is(s) => {
            out.reserve(s.len() + 2);
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
        _ => {
            // Writing into a `String` cannot fail.
            let _ = match v.as_f64() {
                Some(f) if v.is_f64() && f.fract() == 0.0 && f.abs() < 1e15 => {
                    write!(out, "{}", f as i64)
                }
                _ => write!(out, "{v}"),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{first_equal, json_text, push_each_once};
    use serde_json::{Value, json};

    thread_local! {
        /// How many pairs of values [`first_equal`] compared on this thread.
        pub(super) static COMPARED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// Values alike to [`super::FIRST_DEPTH`] levels and more (a tuple of objects that differ
    /// only in a deep `const`), some of them repeated, still find their first equal one, each
    /// compared with a few others: with one hash as deep as the first, they shared one bucket and
    /// every value was compared with every distinct one before it.
    #[test]
    fn values_alike_near_the_top_are_split_by_deeper_hashes() {
        let n = 2_000;
        let position = |i: usize| {
            json!({"type": "object", "properties": {"a": {"type": "object", "properties": {
                "b": {"type": "object", "properties": {"c": {"const": format!("v{}", i % 1_500)}}}
            }}}})
        };
        let values: Vec<Value> = (0..n).map(position).collect();
        COMPARED.with(|c| c.set(0));
        let first = first_equal(&values);
        let compared = COMPARED.with(std::cell::Cell::get);
        let expected: Vec<usize> = (0..n)
            .map(|i| if i < 1_500 { i } else { i - 1_500 })
            .collect();
        assert_eq!(first, expected);
        assert!(compared <= 2 * n, "{compared} comparisons for {n} values");
    }

    /// Each value is matched with the first one equal to it by serde_json's equality: objects
    /// in any key order, `0.0` and `-0.0`, values that differ only below the hashed levels;
    /// and only with an equal one (`1` is not `1.0`, nor `"1"`).
    #[test]
    fn each_value_finds_the_first_equal_one() {
        let deep = |x: i64| json!({"a": {"b": {"c": {"d": {"e": x}}}}});
        let values = vec![
            json!({"type": "string", "maxLength": 1}),
            json!(1),
            json!({"maxLength": 1, "type": "string"}),
            json!(1.0),
            json!("1"),
            json!(0.0),
            json!(-0.0),
            deep(1),
            deep(2),
            deep(1),
            json!([1, {"x": [2]}]),
            json!([1, {"x": [3]}]),
            json!([1, {"x": [2]}]),
            json!(1),
        ];
        assert_eq!(
            first_equal(&values),
            [0, 1, 0, 3, 4, 5, 5, 7, 8, 7, 10, 11, 10, 1]
        );
        // Agrees with comparing every pair, on the values of every test document's nodes.
        for doc in crate::adapt::holds::tests::documents() {
            let mut nodes: Vec<Value> = Vec::new();
            crate::walk::each_node(&doc, (), &mut |n: &Value, _, ()| {
                nodes.push(n.clone());
                Some(())
            });
            let pairwise: Vec<usize> = (0..nodes.len())
                .map(|i| (0..=i).find(|&k| nodes[k] == nodes[i]).expect("itself"))
                .collect();
            assert_eq!(first_equal(&nodes), pairwise);
        }
    }

    /// What a list holds stays as it is (its own repeats included); each new value is added
    /// once, in order, strings and other values alike.
    #[test]
    fn each_new_value_is_added_once_in_order() {
        let mut values = vec![json!("a"), json!(1), json!("a"), json!({"k": [1]})];
        let more = [
            json!("b"),
            json!("a"),
            json!(1),
            json!(1.5),
            json!("b"),
            json!({"k": [1]}),
            json!("1"),
            json!(null),
            json!(1.5),
            json!(null),
        ];
        let expected = vec![
            json!("a"),
            json!(1),
            json!("a"),
            json!({"k": [1]}),
            json!("b"),
            json!(1.5),
            json!("1"),
            json!(null),
        ];
        // A few more: compared one by one; many: through the set. The same.
        let mut few = values.clone();
        for chunk in more.chunks(3) {
            push_each_once(&mut few, chunk.to_vec());
        }
        assert_eq!(few, expected);
        push_each_once(&mut values, more);
        assert_eq!(values, expected);
    }

    /// The values written directly are written as serde_json writes them: strings with and
    /// without characters to escape (quotes, backslashes, control characters; non-ASCII, `/`
    /// and DEL are not escaped), booleans, null; other values go through serde_json, integral
    /// floats printed as integers.
    #[test]
    fn json_text_is_serde_json_s() {
        let values = [
            json!(""),
            json!("plain"),
            json!("date-time"),
            json!("^[a-z]+/x$"),
            json!("quote \" inside"),
            json!("back\\slash"),
            json!("tab\there"),
            json!("line\nbreak"),
            json!("\u{1}\u{1f}"),
            json!("del \u{7f} é 日本 🦀"),
            json!(true),
            json!(false),
            json!(null),
            json!(3),
            json!(-2.5),
            json!([1, "a"]),
            json!({"k": "v"}),
        ];
        for v in &values {
            assert_eq!(json_text(v), v.to_string(), "{v}");
        }
        assert_eq!(json_text(&json!(2.0)), "2");
        assert_eq!(json_text(&Value::from(1e20)), Value::from(1e20).to_string());
    }
}
