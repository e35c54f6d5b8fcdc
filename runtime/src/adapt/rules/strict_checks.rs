//! What strict modes cannot represent. A hit makes the strict attempt fail open: the tool is sent
//! non-strict, never half-strict.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{Held, Rule, RuleReport, has_type};
use crate::keys::Keys;
use crate::walk::{Flow, Step, Walk, each_node, each_node_or_skip, pointer, resolve_local};

/// OpenAI strict cannot close an open map (`additionalProperties` true or a schema, even `{}`),
/// `patternProperties`, or an untyped subschema (`true`, `{}`) in a property, item, branch or
/// definition. Runs first, before anything is stripped.
#[derive(Clone, Copy, Debug, Default)]
pub struct StrictPrecheck;

/// What the OpenAI checks read of one object's own entries, found in one pass over them (a map
/// holds each key once, so the first entry of a key is the one a look-up finds).
#[derive(Clone, Copy, Default)]
struct Own<'a> {
    type_value: Option<&'a Value>,
    any_of: bool,
    all_of: bool,
    reference: Option<&'a Value>,
    enum_value: Option<&'a Value>,
    additional: Option<&'a Value>,
    pattern: Option<&'a Value>,
    /// A key other than the annotations `description`, `title`, `default`, `examples`,
    /// `$comment`.
    not_annotation: bool,
}

impl<'a> Own<'a> {
    fn of(map: &'a Map<String, Value>) -> Self {
        let mut own = Own::default();
        for (key, value) in map {
            match key.as_str() {
                "type" => own.type_value = Some(value),
                "anyOf" => own.any_of = true,
                "allOf" => own.all_of = true,
                "$ref" => own.reference = Some(value),
                "enum" => own.enum_value = Some(value),
                "additionalProperties" => own.additional = Some(value),
                "patternProperties" => own.pattern = Some(value),
                "description" | "title" | "default" | "examples" | "$comment" => continue,
                _ => {}
            }
            own.not_annotation = true;
        }
        own
    }

    /// [`has_type`]`(map, "object")`.
    fn is_object(&self) -> bool {
        match self.type_value {
            Some(Value::String(t)) => t == "object",
            Some(Value::Array(ts)) => ts.iter().any(|t| t.as_str() == Some("object")),
            _ => false,
        }
    }
}

/// A node that types nothing: a boolean, or an object of annotations alone (`{}` included).
fn untyped(node: &Value, own: Option<&Own<'_>>) -> bool {
    match (node, own) {
        (Value::Bool(_), _) => true,
        (Value::Object(_), Some(own)) => !own.not_annotation,
        _ => false,
    }
}

impl Rule for StrictPrecheck {
    fn name(&self) -> &'static str {
        "strict-precheck"
    }

    fn reads_only(&self) -> bool {
        true
    }

    /// Passed over where the record says nothing it refuses may be there: no
    /// `patternProperties`, no open map, no subschema that types nothing, no object nesting or
    /// property count near OpenAI's limits (facts the scan of the input notes, before the
    /// copy, and that the rules before it declare).
    fn reads_limits(&self) -> bool {
        true
    }

    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold_any(&[
            "patternProperties",
            crate::adapt::holds::OPEN_MAP,
            crate::adapt::holds::ANNOTATIONS_ONLY,
            crate::adapt::holds::BOOL_SCHEMA,
            crate::adapt::holds::DEEP,
            crate::adapt::holds::LARGE,
        ])
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        precheck(schema, report, true);
    }

    fn told(&self) -> bool {
        true
    }

    /// Told that no nesting or property count near the limits may be there, it looks only for
    /// the shallowest refusal, and not below it.
    fn apply_held(&mut self, schema: &mut Value, report: &mut RuleReport, held: &Held<'_>) {
        let limits = held.may_hold_any(&[crate::adapt::holds::DEEP, crate::adapt::holds::LARGE]);
        precheck(schema, report, limits);
    }
}

/// [`StrictPrecheck`]: one depth-first pass, without listing the nodes, that most schemas pass;
/// one that does not is refused at the failure [`precheck_walk`] finds first (breadth-first).
/// `limits`: whether the document may be near a limit (else the pass counts nothing).
fn precheck(schema: &Value, report: &mut RuleReport, limits: bool) {
    let scan = if limits {
        precheck_scan(schema)
    } else {
        shallowest_refusal(schema)
    };
    match scan {
        Scan::Passes => {}
        Scan::Refused(node, why) => report.fail(pointer(&steps_to(schema, node)), why),
        // Which node a limit names depends on the walk's list.
        Scan::Limits => precheck_walk(schema, report),
    }
}

/// What [`precheck_scan`] finds.
enum Scan<'a> {
    Passes,
    /// No limit is near, and this node is the first refused breadth-first, for this reason.
    Refused(&'a Value, &'static str),
    /// A limit may be exceeded.
    Limits,
}

/// The precheck's tests, node by node and counted over the whole document, in one depth-first
/// pass. The first refusal breadth-first is the shallowest, and of those the first depth-first:
/// both orders list the nodes of one level in the order of their paths.
fn precheck_scan(schema: &Value) -> Scan<'_> {
    let mut tally = Tally::default();
    let mut first: Option<(usize, &Value, &'static str)> = None;
    let within = each_node(
        schema,
        (0usize, 0usize),
        &mut |node, step, (depth, level)| {
            let own = node.as_object().map(Own::of);
            let depth = tally.node(own.as_ref(), step, depth, false)?;
            if let Some(why) = precheck_refusal(node, own.as_ref(), step) {
                if first.is_none_or(|(shallowest, _, _)| level < shallowest) {
                    first = Some((level, node, why));
                }
            }
            Some((depth, level + 1))
        },
    ) && tally.within(false);
    match first {
        _ if !within => Scan::Limits,
        Some((_, node, why)) => Scan::Refused(node, why),
        None => Scan::Passes,
    }
}

/// [`precheck_scan`] for a document no limit can fail ([`crate::adapt::holds::DEEP`] and
/// [`crate::adapt::holds::LARGE`] ruled out): the first refusal breadth-first.
fn shallowest_refusal(schema: &Value) -> Scan<'_> {
    first_refused(schema, &mut |node, step| {
        let own = node.as_object().map(Own::of);
        precheck_refusal(node, own.as_ref(), step)
    })
}

/// The first node breadth-first that `refusal` refuses (with why), found depth-first without
/// going below the shallowest found so far (nothing there can come first). Breadth-first and
/// depth-first list the nodes of one level in the same order, that of their paths.
fn first_refused<'a>(
    schema: &'a Value,
    refusal: &mut dyn FnMut(&'a Value, Option<Step<'a>>) -> Option<&'static str>,
) -> Scan<'a> {
    let mut first: Option<(usize, &Value, &'static str)> = None;
    each_node_or_skip(schema, 0usize, &mut |node, step, level| {
        if first.is_some_and(|(shallowest, _, _)| level >= shallowest) {
            return Flow::Skip;
        }
        if let Some(why) = refusal(node, step) {
            first = Some((level, node, why));
            // Its children are deeper than it.
            return Flow::Skip;
        }
        Flow::Below(level + 1)
    });
    match first {
        Some((_, node, why)) => Scan::Refused(node, why),
        None => Scan::Passes,
    }
}

/// The steps from `root` to `target`, a node of it (found by address, depth-first).
fn steps_to<'a>(root: &'a Value, target: &Value) -> Vec<Step<'a>> {
    let mut path: Vec<Step<'a>> = Vec::new();
    each_node(root, 0usize, &mut |node, step, level| {
        path.truncate(level.saturating_sub(1));
        path.extend(step);
        (!std::ptr::eq(node, target)).then_some(level + 1)
    });
    path
}

/// [`StrictPrecheck`] on a breadth-first walk: the first failure in its order.
fn precheck_walk(schema: &Value, report: &mut RuleReport) {
    let walk = Walk::new(schema);
    // Fail fast: limits the input already exceeds fail whatever the rewrite does (it never
    // removes an object level or a property), before any work that grows with them.
    if let Some((index, reason)) = exceeded_limits(&walk, false) {
        report.fail(
            index.map(|i| pointer(&walk.steps(i))).unwrap_or_default(),
            reason,
        );
        return;
    }
    for (index, (node, place)) in walk.nodes.iter().enumerate() {
        let own = node.as_object().map(Own::of);
        if let Some(why) = precheck_refusal(node, own.as_ref(), place.step) {
            report.fail(pointer(&walk.steps(index)), why);
            return;
        }
    }
}

/// Whether [`StrictPrecheck`] finds nothing in `schema`.
#[cfg(test)]
fn precheck_passes(schema: &Value) -> bool {
    matches!(precheck_scan(schema), Scan::Passes)
}

/// What [`StrictPrecheck`] refuses in one node reached by `step` (`None` for the root), apart
/// from the limits: an untyped subschema where a schema stands, `patternProperties`, an open map.
fn precheck_refusal(
    node: &Value,
    own: Option<&Own<'_>>,
    step: Option<Step<'_>>,
) -> Option<&'static str> {
    let slot = matches!(
        step,
        Some(Step::Name("properties" | "$defs", _) | Step::Keyword("items") | Step::Index(..))
    );
    if slot && untyped(node, own) {
        return Some(
            "an untyped subschema (`true` or `{}`) has no strict form: strict mode needs a type on every node",
        );
    }
    let own = own?;
    if own
        .pattern
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty())
    {
        return Some("`patternProperties` has no strict form (objects must be closed)");
    }
    match own.additional {
        Some(Value::Bool(true) | Value::Object(_)) => Some(
            "an open map (`additionalProperties` true or a schema) has no strict form: strict objects are closed",
        ),
        _ => None,
    }
}

/// What [`exceeded_limits`] counts, node by node in any order: `None` from [`Tally::node`] or
/// false from [`Tally::within`] where a limit may be exceeded (the walk then finds which).
#[derive(Default)]
struct Tally {
    properties: usize,
    enum_values: usize,
    bytes: usize,
}

impl Tally {
    /// Counts a node reached by `step` below a node at object nesting `depth`; its own nesting,
    /// or `None` past a limit. `all`: every limit ([`OpenAiLimits`]), or the nesting and the
    /// property count alone.
    fn node(
        &mut self,
        own: Option<&Own<'_>>,
        step: Option<Step<'_>>,
        depth: usize,
        all: bool,
    ) -> Option<usize> {
        let depth = depth + usize::from(own.is_some_and(Own::is_object));
        if depth > 10 {
            return None;
        }
        if let Some(Step::Name(kw, name)) = step {
            if kw == "properties" || kw == "$defs" {
                self.bytes += name.len();
            }
            if kw == "properties" {
                self.properties += 1;
            }
        }
        if all {
            if let Some(Value::Array(values)) = own.and_then(|own| own.enum_value) {
                self.enum_values += values.len();
                let bytes: usize = values.iter().filter_map(Value::as_str).map(str::len).sum();
                self.bytes += bytes;
                if values.len() > 250 && bytes > 15_000 {
                    return None;
                }
            }
        }
        Some(depth)
    }

    /// Whether the whole-document counts are within the limits (bytes stand for characters:
    /// never fewer).
    fn within(&self, all: bool) -> bool {
        self.properties <= 5_000 && (!all || self.enum_values <= 1_000 && self.bytes <= 120_000)
    }
}

/// Whether [`typed`] and then [`within_limits`] find nothing in `schema`, in one depth-first
/// pass.
fn typed_within_limits_passes(schema: &Value) -> bool {
    let mut tally = Tally::default();
    each_node(schema, 0usize, &mut |node, step, depth| {
        let own = node.as_object().map(Own::of);
        let depth = tally.node(own.as_ref(), step, depth, true)?;
        typed_refusal(schema, node, own.as_ref(), step)
            .is_none()
            .then_some(depth)
    }) && tally.within(true)
}

/// After the strict rewrite: every node has a `type`, an `anyOf`, or a local `$ref` that
/// resolves; no `allOf`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Typed;

impl Rule for Typed {
    fn name(&self) -> &'static str {
        "typed"
    }

    /// A check: it reads the document and records at most a failure.
    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(&[], add)
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        typed(schema, &Walk::new(schema), report);
    }
}

/// [`Typed`]'s check on a walk of `schema`.
fn typed(schema: &Value, walk: &Walk<'_>, report: &mut RuleReport) {
    for (index, (node, place)) in walk.nodes.iter().enumerate() {
        let own = node.as_object().map(Own::of);
        if let Some(why) = typed_refusal(schema, node, own.as_ref(), place.step) {
            report.fail(pointer(&walk.steps(index)), why);
            return;
        }
    }
}

/// What [`Typed`] refuses in one node of `schema` reached by `step`.
fn typed_refusal(
    schema: &Value,
    node: &Value,
    own: Option<&Own<'_>>,
    step: Option<Step<'_>>,
) -> Option<String> {
    if closing(node, step) {
        return None;
    }
    let Some(own) = own else {
        return Some("a boolean subschema has no strict form".into());
    };
    if own.all_of {
        return Some("`allOf` with several schemas is not supported in strict mode".into());
    }
    if let Some(Value::String(r)) = own.reference {
        if resolve_local(schema, r).is_none() {
            return Some(format!(
                "`$ref: {r}` does not resolve in this schema (external references are never fetched)"
            ));
        }
    }
    if !(own.type_value.is_some() || own.any_of || own.reference.is_some()) {
        return Some(
            "a node with no type, combinator or `$ref` cannot be enforced in strict mode".into(),
        );
    }
    // An enum value of another type than the node's: OpenAI rejects the whole tool.
    if let (Some(Value::String(t)), Some(Value::Array(values))) = (own.type_value, own.enum_value) {
        let fits = |v: &Value| {
            let vt = super::value_type(v);
            vt == t || (t == "number" && vt == "integer")
        };
        if let Some(bad) = values.iter().find(|v| !fits(v)) {
            return Some(format!(
                "the enum value {bad} is not of the node's type `{t}`"
            ));
        }
    }
    None
}

/// OpenAI's documented strict limits: 5000 object properties in all, 10 levels of nesting, 1000
/// enum values, 120,000 characters of property names, definition names and enum/const values,
/// and for a string enum of more than 250 values, 15,000 characters.
#[derive(Clone, Copy, Debug, Default)]
pub struct OpenAiLimits;

impl Rule for OpenAiLimits {
    fn name(&self) -> &'static str {
        "openai-limits"
    }

    /// A check: it reads the document and records at most a failure.
    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(&[], add)
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        within_limits(&Walk::new(schema), report);
    }
}

/// [`OpenAiLimits`]'s check on a walk.
fn within_limits(walk: &Walk<'_>, report: &mut RuleReport) {
    if let Some((index, reason)) = exceeded_limits(walk, true) {
        report.fail(
            index.map(|i| pointer(&walk.steps(i))).unwrap_or_default(),
            reason,
        );
    }
}

/// [`Typed`] then [`OpenAiLimits`] (when typed passes), on one walk of the document: what the
/// two give one after the other, without walking it twice.
#[derive(Clone, Copy, Debug, Default)]
pub struct TypedWithinLimits;

impl Rule for TypedWithinLimits {
    fn name(&self) -> &'static str {
        "typed, openai-limits"
    }

    /// A check: it reads the document and records at most a failure.
    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(&[], add)
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        // Most schemas pass: found without listing the nodes; the breadth-first walk finds the
        // first failure (in its order) of one that does not.
        if !typed_within_limits_passes(schema) {
            typed_within_limits_walk(schema, report);
        }
    }
}

/// [`TypedWithinLimits`]'s yes-or-no verdict, worked out node by node by a walk that reaches every
/// node of the document the check will see, each once and as the check will find it (in any
/// order): close-objects' walk in OpenAI's strict lists, after its work at each node. A node
/// with a `$ref` (resolved against the whole document) or deeper than the nesting limit could be
/// by its path alone makes the verdict "not known", as does anything the check refuses: the
/// check then walks the document itself.
pub(crate) struct TypedQuick {
    tally: Tally,
    passes: bool,
}

impl Default for TypedQuick {
    fn default() -> Self {
        TypedQuick {
            tally: Tally::default(),
            passes: true,
        }
    }
}

impl TypedQuick {
    /// Counts `node`, reached by `step`, `steps` steps below the root.
    pub(crate) fn node(&mut self, node: &Value, step: Option<Step<'_>>, steps: usize) {
        if !self.passes {
            return;
        }
        let own = node.as_object().map(Own::of);
        // The object nesting of a node is at most the nodes on its path (`steps + 1`): within
        // the limit of 10 without counting. A `$ref` is resolved in no document (`null`): it is
        // refused here, and the check's walk resolves it.
        self.passes = steps < 10
            && self.tally.node(own.as_ref(), step, 0, true).is_some()
            && typed_refusal(&Value::Null, node, own.as_ref(), step).is_none();
    }

    /// Whether the check would find nothing.
    pub(crate) fn passes(&self) -> bool {
        self.passes && self.tally.within(true)
    }
}

/// The verdict close-objects hands to the check at the end of OpenAI's strict rewrite (set by
/// the one, taken by the other, for each document).
pub(crate) type Vouch = std::rc::Rc<std::cell::Cell<bool>>;

/// [`TypedWithinLimits`] at the end of OpenAI's strict rewrite: passed over when close-objects'
/// walk found the verdict already ([`TypedQuick`]). The two rules between them change nothing
/// the verdict reads: splice-nested-anyof takes away `anyOf` branches that are pure `anyOf`s
/// (typed, not objects, no enum; their branches and description stay), structured-first
/// reorders branches. Same name in reports.
pub(crate) struct TypedWithinLimitsAfter {
    pub(crate) vouched: Vouch,
}

impl Rule for TypedWithinLimitsAfter {
    fn name(&self) -> &'static str {
        TypedWithinLimits.name()
    }

    /// A check: it reads the document and records at most a failure.
    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(&[], add)
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        if !self.vouched.replace(false) {
            TypedWithinLimits.apply(schema, report);
        }
    }
}

/// [`TypedWithinLimits`] on a breadth-first walk: the first failure in its order.
fn typed_within_limits_walk(schema: &Value, report: &mut RuleReport) {
    let walk = Walk::new(schema);
    typed(schema, &walk, report);
    if report.failure.is_none() {
        within_limits(&walk, report);
    }
}

/// The first of OpenAI's strict limits the document exceeds: the node to name (none for a
/// whole-schema count) and the reason. `all: false` checks only the object nesting and the
/// property count, which the strict rewrite can only grow (a sound early refusal on the input).
fn exceeded_limits(walk: &Walk<'_>, all: bool) -> Option<(Option<usize>, String)> {
    let (mut properties, mut enum_values, mut chars) = (0usize, 0usize, 0usize);
    let mut depth: Vec<usize> = vec![0; walk.nodes.len()];
    let mut deepest = (0usize, 0usize);
    for (index, (node, place)) in walk.nodes.iter().enumerate() {
        let parent = if place.parent == usize::MAX {
            0
        } else {
            depth[place.parent]
        };
        let is_object = node.as_object().is_some_and(|m| has_type(m, "object"));
        depth[index] = parent + usize::from(is_object);
        if depth[index] > deepest.0 {
            deepest = (depth[index], index);
        }
        if let Some(Step::Name(kw, name)) = place.step {
            // Bytes, as many as the characters or more: counted in characters only when the
            // bytes pass the limit (below).
            if kw == "properties" || kw == "$defs" {
                chars += name.len();
            }
            if kw == "properties" {
                properties += 1;
            }
        }
        if !all {
            continue;
        }
        if let Some(Value::Array(values)) = node.key("enum") {
            enum_values += values.len();
            let strings = || values.iter().filter_map(Value::as_str);
            let bytes: usize = strings().map(str::len).sum();
            chars += bytes;
            let len = || strings().map(|s| s.chars().count()).sum::<usize>();
            if values.len() > 250
                && values.iter().all(Value::is_string)
                && bytes > 15_000
                && len() > 15_000
            {
                let len = len();
                return Some((
                    Some(index),
                    format!(
                        "a string enum of {} values totals {len} characters; OpenAI allows 15,000 for enums over 250 values",
                        values.len()
                    ),
                ));
            }
        }
    }
    // The first limit exceeded, in this order; the reason is worded only then.
    if properties > 5_000 {
        return Some((
            None,
            format!("{properties} object properties; OpenAI strict allows 5,000"),
        ));
    }
    if deepest.0 > 10 {
        return Some((
            Some(deepest.1),
            format!(
                "{} levels of object nesting; OpenAI strict allows 10",
                deepest.0
            ),
        ));
    }
    if all && enum_values > 1_000 {
        return Some((
            None,
            format!("{enum_values} enum values; OpenAI strict allows 1,000"),
        ));
    }
    if all && chars > 120_000 {
        let chars = characters(walk);
        if chars > 120_000 {
            return Some((
                None,
                format!(
                    "{chars} characters of names and enum values; OpenAI strict allows 120,000"
                ),
            ));
        }
    }
    None
}

/// The characters of property names, definition names and string enum values that
/// [`exceeded_limits`] counts against OpenAI's 120,000.
fn characters(walk: &Walk<'_>) -> usize {
    walk.nodes
        .iter()
        .map(|(node, place)| {
            let name = match place.step {
                Some(Step::Name("properties" | "$defs", name)) => name.chars().count(),
                _ => 0,
            };
            let values = match node.key("enum") {
                Some(Value::Array(values)) => values
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|s| s.chars().count())
                    .sum(),
                _ => 0,
            };
            name + values
        })
        .sum()
}

/// Anthropic strict tool use cannot represent recursion, external `$ref`, open maps,
/// `patternProperties`, enums of objects or arrays, or untyped nodes.
#[derive(Clone, Copy, Debug, Default)]
pub struct AnthropicStrictCheck;

impl Rule for AnthropicStrictCheck {
    fn name(&self) -> &'static str {
        "anthropic-strict-check"
    }

    /// A check: it reads the document and records at most a failure.
    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(&[], add)
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        anthropic_check(schema, report, true);
    }

    fn told(&self) -> bool {
        true
    }

    /// Told that the document holds no `$ref`, it has no reference to follow or cycle to find:
    /// its first failure breadth-first is found in one depth-first pass.
    fn apply_held(&mut self, schema: &mut Value, report: &mut RuleReport, held: &Held<'_>) {
        anthropic_check(schema, report, held.may_hold("$ref"));
    }
}

/// [`AnthropicStrictCheck`]. `refs`: whether the document may hold a `$ref`.
fn anthropic_check(schema: &Value, report: &mut RuleReport, refs: bool) {
    if refs {
        // Most schemas pass and have no `$ref`: found without listing the nodes; the
        // breadth-first walk finds the first failure (in its order) and follows references.
        if !anthropic_passes_without_refs(schema) {
            anthropic_walk(schema, report);
        }
        return;
    }
    let refused = first_refused(schema, &mut |node, step| {
        if closing(node, step) {
            return None;
        }
        match node.as_object() {
            None => Some(BOOLEAN_SUBSCHEMA),
            Some(map) => anthropic_refusal(map, step),
        }
    });
    if let Scan::Refused(node, why) = refused {
        report.fail(pointer(&steps_to(schema, node)), why);
    }
}

/// Why [`AnthropicStrictCheck`] refuses `true` or `false` where it closes nothing.
const BOOLEAN_SUBSCHEMA: &str = "a boolean subschema has no strict form";

/// [`AnthropicStrictCheck`] at the end of Anthropic's strict rewrite, passed over where the
/// record shows that the keyword strip before it had nothing to remove (`strip`: its list), or
/// where the list holds none of the keywords that give a node its type: between the gate's
/// check (before the rewrite, or after it) and this one the rules then only read `oneOf` as
/// `anyOf`, remove keywords that type nothing, close objects and reorder branches, which makes
/// nothing the check refuses, so it would find what the gate found: nothing. (Every rule run,
/// the tests compare.)
#[derive(Clone, Copy, Debug)]
pub(crate) struct AnthropicStrictCheckAtEnd {
    pub(crate) strip: &'static [&'static str],
}

impl Rule for AnthropicStrictCheckAtEnd {
    fn name(&self) -> &'static str {
        AnthropicStrictCheck.name()
    }

    /// A check: it reads the document and records at most a failure.
    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(&[], add)
    }

    /// Wanted only where the strip had something to remove and may have left a node untyped
    /// (the engine's test of idle rules runs it everywhere and compares).
    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold_any(self.strip) && self.strip.iter().any(|k| TYPING.contains(k))
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        AnthropicStrictCheck.apply(schema, report);
    }

    fn told(&self) -> bool {
        true
    }

    fn apply_held(&mut self, schema: &mut Value, report: &mut RuleReport, held: &Held<'_>) {
        AnthropicStrictCheck.apply_held(schema, report, held);
    }
}

/// The keywords that make a node typed for [`AnthropicStrictCheck`]: a strip that removes one
/// may leave an untyped node.
const TYPING: &[&str] = &["type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const"];

/// Whether [`AnthropicStrictCheck`] finds nothing in `schema` and there is no `$ref` to follow,
/// in one depth-first pass: the same tests, node by node.
fn anthropic_passes_without_refs(schema: &Value) -> bool {
    each_node(schema, (), &mut |node, step, ()| {
        if closing(node, step) {
            return Some(());
        }
        let map = node.as_object()?;
        (!map.has("$ref") && anthropic_refusal(map, step).is_none()).then_some(())
    })
}

/// What [`AnthropicStrictCheck`] refuses in one object reached by `step`, apart from its
/// `$ref`: `patternProperties`, an open map, an enum of objects or arrays, no type where a
/// schema stands.
fn anthropic_refusal(map: &Map<String, Value>, step: Option<Step<'_>>) -> Option<&'static str> {
    if map
        .key("patternProperties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty())
    {
        return Some("`patternProperties` is not supported in strict mode");
    }
    if matches!(
        map.key("additionalProperties"),
        Some(Value::Bool(true)) | Some(Value::Object(_))
    ) {
        return Some("`additionalProperties` other than false is not supported in strict mode");
    }
    if let Some(Value::Array(values)) = map.key("enum") {
        if values.iter().any(|v| v.is_object() || v.is_array()) {
            return Some("an enum of objects or arrays is not supported in strict mode");
        }
    }
    // A node whose type infer-type reads from its keywords (`properties`, `items`) is typed
    // in the strict rewrite, as OpenAI strict types it.
    let typed = TYPING.iter().any(|k| map.has(k)) || inferable(map);
    let slot = step.is_some_and(|s| !matches!(s, Step::Keyword("not")));
    (!typed && slot).then_some("an untyped node has no strict form")
}

/// A node without a type that [`super::InferType`] types from its keywords: `object` from a
/// `properties` map, `array` from `items` or `prefixItems`.
fn inferable(map: &Map<String, Value>) -> bool {
    map.key("properties").is_some_and(Value::is_object)
        || map.has("items")
        || map.has("prefixItems")
}

/// [`AnthropicStrictCheck`] on a breadth-first walk: the first failure in its order, then
/// recursion through `$ref`s.
fn anthropic_walk(schema: &Value, report: &mut RuleReport) {
    let walk = Walk::new(schema);
    let mut edges: HashMap<String, Vec<String>> = HashMap::new();
    // Per node, its ancestor just below the root (itself at that depth; the root: none), each
    // from its parent's (the walk lists parents first): which definition a `$ref` sits in is
    // then one look-up, where listing its steps made a reference at every level of a nesting
    // quadratic in the depth.
    let mut tops: Vec<usize> = Vec::with_capacity(walk.nodes.len());
    for (index, (node, place)) in walk.nodes.iter().enumerate() {
        tops.push(match place.parent {
            usize::MAX => usize::MAX,
            0 => index,
            parent => tops[parent],
        });
        let at = || pointer(&walk.steps(index));
        if closing(node, place.step) {
            continue;
        }
        let Some(map) = node.as_object() else {
            report.fail(at(), BOOLEAN_SUBSCHEMA);
            return;
        };
        if let Some(Value::String(r)) = map.key("$ref") {
            if !r.starts_with('#') {
                report.fail(
                    at(),
                    format!("external `$ref: {r}` is not supported in strict mode"),
                );
                return;
            }
            if resolve_local(schema, r).is_none() {
                report.fail(at(), format!("`$ref: {r}` does not resolve"));
                return;
            }
            // The definition (or root) this node sits in refers to `r`.
            let owner = definition_of(&walk, tops[index]);
            edges.entry(owner).or_default().push(r.clone());
        }
        if let Some(why) = anthropic_refusal(map, place.step) {
            report.fail(at(), why);
            return;
        }
    }
    if let Some(cycle) = find_cycle(&edges) {
        report.fail("", format!("recursive schemas are not supported in strict mode (`{cycle}` refers back to itself)"));
    }
}

/// Anthropic strict's check, run early where it can be: before the rewrite that precedes it
/// (`allOf` of one merged, tuples as `items`) when that rewrite would change nothing, i.e. no
/// object of the document has an `allOf` or `prefixItems` key. Then the check sees the very
/// document it would see after the rewrite, so it fails with the same place and reason, before
/// anything is copied or rewritten ([`Rule::reads_only`]); and when it passes, the check after
/// the rewrite (the [`AnthropicStrictGate::after_rewrite`] of the same gate) is skipped.
#[derive(Clone, Debug, Default)]
pub(crate) struct AnthropicStrictGate {
    checked: std::rc::Rc<std::cell::Cell<bool>>,
    after: bool,
}

impl AnthropicStrictGate {
    /// The check after the rewrite, skipped when this gate checked the document already.
    pub(crate) fn after_rewrite(&self) -> Self {
        AnthropicStrictGate {
            checked: self.checked.clone(),
            after: true,
        }
    }
}

/// Whether some object anywhere in `value` has one of `keys` (names included: conservative).
/// Recursive, on a stack grown on the heap when it runs low.
fn has_key(value: &Value, keys: &[&str]) -> bool {
    let below = |v: &Value| matches!(v, Value::Object(_) | Value::Array(_)) && has_key(v, keys);
    match value {
        Value::Object(m) => {
            keys.iter().any(|k| m.has(k))
                || crate::stack::maybe_grow(64 * 1024, 1 << 20, || m.values().any(below))
        }
        Value::Array(a) => crate::stack::maybe_grow(64 * 1024, 1 << 20, || a.iter().any(below)),
        _ => false,
    }
}

impl Rule for AnthropicStrictGate {
    fn name(&self) -> &'static str {
        if self.after {
            "anthropic-strict-check"
        } else {
            "anthropic-strict-gate"
        }
    }

    fn reads_only(&self) -> bool {
        !self.after
    }

    /// A check: it reads the document and records at most a failure.
    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(&[], add)
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        self.apply_held(schema, report, &Held::anything());
    }

    /// The keys the rewrite acts on are searched for only when the record does not rule them
    /// out.
    fn apply_held(&mut self, schema: &mut Value, report: &mut RuleReport, held: &Held<'_>) {
        if self.after {
            if !self.checked.get() {
                AnthropicStrictCheck.apply_held(schema, report, held);
            }
        } else {
            const REWRITTEN: &[&str] = &["allOf", "prefixItems"];
            let unchanged_by_rewrite = !held.may_hold_any(REWRITTEN) || !has_key(schema, REWRITTEN);
            self.checked.set(unchanged_by_rewrite);
            if unchanged_by_rewrite {
                AnthropicStrictCheck.apply_held(schema, report, held);
            }
        }
    }
}

/// `false` where it closes something (`additionalProperties: false`, `items: false` after
/// `prefixItems`): a keyword value, not a subschema to type.
fn closing(node: &Value, step: Option<Step<'_>>) -> bool {
    matches!(node, Value::Bool(false))
        && matches!(
            step,
            Some(Step::Keyword(
                "additionalProperties" | "unevaluatedProperties" | "items" | "unevaluatedItems"
            ))
        )
}

/// `#/$defs/X` for nodes inside definition X, `#` otherwise.
fn definition_of(walk: &Walk<'_>, top: usize) -> String {
    match walk.nodes.get(top).and_then(|(_, place)| place.step) {
        Some(Step::Name(kw @ ("$defs" | "definitions"), name)) => {
            format!("#/{kw}/{}", crate::walk::escape(name))
        }
        _ => "#".to_owned(),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The precheck's refusal found depth-first names the same node, for the same reason, as
    /// the breadth-first walk's first failure: on every test document it refuses, and on
    /// documents with refusals at several depths in both orders (a deep one met first
    /// depth-first, a shallow one later; two at one level); with the full scan, and told that
    /// no limit is near where the document's record says so.
    #[test]
    fn the_refusal_found_depth_first_is_the_first_breadth_first() {
        let open = json!({"type": "object", "additionalProperties": true});
        let untyped = json!({});
        let nested = |inner: Value| json!({"type": "object", "properties": {"x": inner}});
        let mut docs = crate::adapt::holds::tests::documents();
        docs.extend([
            json!({"type": "object", "properties": {
                "a": nested(nested(open.clone())), "b": untyped.clone(), "c": open.clone()
            }}),
            json!({"type": "object", "properties": {
                "a": nested(untyped.clone()), "b": nested(open.clone())
            }}),
            json!({"type": "object", "properties": {
                "a": {"type": "array", "items": [untyped.clone(), open.clone()]},
                "b": {"anyOf": [nested(open.clone()), untyped.clone()]},
                "c": {"type": "object", "patternProperties": {"^x": {}}}
            }}),
            json!({"type": "object", "$defs": {"d": open.clone()}, "properties": {"p": nested(open)}}),
        ]);
        // Told that no limit is near (as the engine tells it where its record rules out both
        // facts), it looks for the shallowest refusal alone, and not below it.
        let told = |doc: &Value| {
            use crate::adapt::holds::{DEEP, Holds, LARGE};
            (!Holds::of(doc).held().may_hold_any(&[DEEP, LARGE])).then(|| {
                let mut report = RuleReport::default();
                precheck(doc, &mut report, false);
                report.failure
            })
        };
        let (mut refused, mut told_refused) = (0, 0);
        for doc in &docs {
            if precheck_passes(doc) {
                assert_eq!(told(doc).flatten(), None, "{doc}");
                continue;
            }
            refused += 1;
            let (mut walked, mut found) = (RuleReport::default(), RuleReport::default());
            precheck_walk(doc, &mut walked);
            precheck(doc, &mut found, true);
            assert_eq!(found.failure, walked.failure, "{doc}");
            if let Some(failure) = told(doc) {
                assert_eq!(failure, walked.failure, "told: {doc}");
                told_refused += 1;
            }
        }
        assert!(
            refused > 50 && told_refused > 50,
            "{refused}, {told_refused}"
        );
    }

    /// `depth` objects of type object, each the one property `x` of the one around it (required
    /// or not), around a string.
    fn nested_objects(depth: usize, required: bool) -> Value {
        (0..depth).fold(json!({"type": "string"}), |inner, _| {
            let mut object = json!({"type": "object", "properties": {"x": inner}});
            if required {
                object["required"] = json!(["x"]);
            }
            object
        })
    }

    /// An object of `n` string properties.
    fn properties(n: usize) -> Value {
        let props: serde_json::Map<String, Value> = (0..n)
            .map(|i| (format!("p{i}"), json!({"type": "string"})))
            .collect();
        json!({"type": "object", "properties": props})
    }

    /// Anthropic strict's check told that the document holds no `$ref` fails where its
    /// breadth-first walk fails, for the same reason: on every test document whose record rules
    /// `$ref` out, and on documents with refusals (boolean subschemas among them) at several
    /// depths in both orders; `false` where it closes something is no refusal.
    #[test]
    fn told_there_is_no_ref_the_anthropic_check_fails_where_its_walk_does() {
        use crate::adapt::holds::Holds;
        let open = json!({"type": "object", "additionalProperties": {"type": "string"}});
        let nested = |inner: Value| json!({"type": "object", "properties": {"x": inner}});
        let mut docs = crate::adapt::holds::tests::documents();
        docs.extend([
            json!({"type": "object", "properties": {"a": nested(nested(open.clone())), "b": true}}),
            json!({"type": "object", "properties": {"a": nested(false.into()), "b": open.clone()}}),
            json!({"type": "object", "additionalProperties": false, "properties": {
                "a": {"type": "array", "items": false}, "b": {"anyOf": [nested(open.clone()), true]}
            }}),
            json!({"type": "object", "properties": {"e": {"enum": [[1]]}, "p": {"type": "object", "patternProperties": {"^x": {}}}}}),
        ]);
        let (mut compared, mut failing) = (0, 0);
        for doc in &docs {
            if Holds::of(doc).held().may_hold("$ref") {
                continue;
            }
            let (mut walked, mut told) = (RuleReport::default(), RuleReport::default());
            anthropic_walk(doc, &mut walked);
            anthropic_check(doc, &mut told, false);
            assert_eq!(told.failure, walked.failure, "{doc}");
            compared += 1;
            failing += usize::from(walked.failure.is_some());
        }
        assert!(compared > 1_000 && failing > 100, "{compared}, {failing}");
    }

    /// Where the document's record says a limit may be near, the precheck told so by the engine
    /// counts the whole document: past a limit, it names what the breadth-first walk names (the
    /// limit), not the shallower open map beside it.
    #[test]
    fn told_a_limit_may_be_near_the_precheck_counts() {
        use crate::adapt::holds::{DEEP, Holds, LARGE};
        let open = json!({"type": "object", "additionalProperties": true});
        let mut deep = nested_objects(11, true);
        deep["properties"]["m"] = open.clone();
        let mut large = properties(5_001);
        large["properties"]["m"] = open;
        for (doc, fact) in [(deep, DEEP), (large, LARGE)] {
            let held = Holds::of(&doc).held();
            assert!(held.may_hold(fact), "{fact}");
            let (mut walked, mut told) = (RuleReport::default(), RuleReport::default());
            precheck_walk(&doc, &mut walked);
            StrictPrecheck.apply_held(&mut doc.clone(), &mut told, &held);
            let failure = told.failure.expect("refused");
            assert!(!failure.reason.contains("open map"), "{failure}");
            assert_eq!(Some(failure), walked.failure);
        }
    }

    /// An object whose one property is a string enum of `n` values, `value` then the index.
    fn string_enum(n: usize, value: &str) -> Value {
        let values: Vec<Value> = (0..n).map(|i| json!(format!("{value}{i}"))).collect();
        json!({"type": "object", "properties": {"e": {"type": "string", "enum": values}}})
    }

    /// Documents on each side of OpenAI's limits: nesting, properties, enum values, characters
    /// of a long string enum.
    fn at_the_limits(required: bool) -> Vec<Value> {
        vec![
            nested_objects(9, required),
            nested_objects(10, required),
            nested_objects(11, required),
            properties(5_000),
            properties(5_001),
            string_enum(1_000, "v"),
            string_enum(1_001, "v"),
            string_enum(300, &"a".repeat(60)),
            string_enum(2_000, &"b".repeat(70)),
        ]
    }

    /// The depth-first verdicts of the checks (OpenAI strict's precheck, typed and limits;
    /// Anthropic strict's check) are their breadth-first
    /// walks': on every test document as given, and as each check gets it in its target's list
    /// (the precheck after the shared rules, the others after the rewrite), and on documents at
    /// each limit. Where the depth-first pass counts bytes for characters (an enum of two-byte
    /// characters) it may send a passing document to the walk, never the reverse.
    #[test]
    fn the_quick_passes_agree_with_the_walks() {
        type Quick = fn(&Value) -> bool;
        type Exact = fn(&Value, &mut RuleReport);
        let checks: [(&str, Quick, Exact); 3] = [
            ("strict-precheck", precheck_passes, precheck_walk),
            (
                "typed, openai-limits",
                typed_within_limits_passes,
                typed_within_limits_walk,
            ),
            (
                "anthropic-strict-check",
                anthropic_passes_without_refs,
                anthropic_walk,
            ),
        ];
        let fails = |walk: Exact, doc: &Value| {
            let mut report = RuleReport::default();
            walk(doc, &mut report);
            report.failure.is_some()
        };
        let mut compared = [0usize; 3];
        let mut failing = [0usize; 3];
        let mut compare = |doc: &Value, which: usize| {
            let (_, quick, walk) = checks[which];
            let fails = fails(walk, doc);
            let quick = quick(doc);
            if which == 2 && !fails && !quick {
                // A `$ref` to follow: the walk decides.
                assert!(doc.to_string().contains("$ref"), "{doc}");
            } else {
                assert_eq!(quick, !fails, "{}: {doc}", checks[which].0);
            }
            compared[which] += 1;
            failing[which] += usize::from(fails);
        };
        let lists = [
            crate::adapt::AdaptSettings::openai_strict(),
            crate::adapt::AdaptSettings::anthropic_strict(),
        ];
        for doc in crate::adapt::holds::tests::documents() {
            for which in 0..checks.len() {
                compare(&doc, which);
            }
            for settings in &lists {
                let mut doc = doc.clone();
                for mut rule in settings.rules() {
                    // The gate runs the check before the rewrite.
                    let name = match rule.name() {
                        "anthropic-strict-gate" => "anthropic-strict-check",
                        name => name,
                    };
                    if let Some(which) = checks.iter().position(|c| c.0 == name) {
                        compare(&doc, which);
                    }
                    let mut report = RuleReport::default();
                    rule.apply(&mut doc, &mut report);
                    if report.failure.is_some() {
                        break;
                    }
                }
            }
        }
        for doc in at_the_limits(false).into_iter().chain([
            json!({"type": "object", "properties": {"e": {"enum": [[1], 2]}}}),
            json!({"type": "object", "properties": {"e": {"type": "object", "enum": [{"a": 1}]}}}),
            json!({"type": "object", "properties": {"u": {"description": "untyped"}}}),
            json!({"type": "object", "properties": {"n": {"type": "string", "not": {}}}}),
            json!({"type": "object", "properties": {"b": true}}),
            json!({"type": "object", "properties": {"r": {"$ref": "https://example.com/s"}}}),
        ]) {
            for which in 0..checks.len() {
                compare(&doc, which);
            }
        }
        // Two-byte characters: over 15,000 bytes, under 15,000 characters.
        let doc = string_enum(300, &"é".repeat(40));
        assert!(!typed_within_limits_passes(&doc));
        assert!(!fails(typed_within_limits_walk, &doc));
        assert!(compared.iter().all(|&n| n > 2_000), "{compared:?}");
        assert!(failing.iter().all(|&n| n > 100), "{failing:?}");
    }

    /// Close-objects vouches for the check at the end of OpenAI's strict lists only where the
    /// check finds nothing: on every engine test document, through both lists (the rules between
    /// the two run as listed), the verdict handed over is true only where the check's walk, on
    /// the document as it is at the end, passes; and it is handed over on most documents that
    /// pass.
    #[test]
    fn close_objects_vouches_only_for_what_the_check_passes() {
        use crate::adapt::rules::{CloseObjects, CloseObjectsVouching, Optional};
        let (mut vouched, mut passing) = (0, 0);
        stacker::grow(256 << 20, || {
            let lists = [
                crate::adapt::AdaptSettings::openai_strict(),
                crate::adapt::AdaptSettings::openai_responses(),
            ];
            // Documents at each limit, and a reference that resolves nowhere.
            let mut docs = crate::adapt::holds::tests::documents();
            docs.extend(at_the_limits(true));
            docs.extend([
                string_enum(300, &"é".repeat(40)),
                json!({"type": "object", "properties": {"r": {"$ref": "#/$defs/none"}}}),
                json!({"type": "object", "properties": {"r": {"$ref": "#/$defs/s"}},
                       "$defs": {"s": {"type": "string"}}}),
                // Eleven levels once infer-type has typed them (the precheck counts the root
                // alone, typed by object-root).
                (0..11).fold(
                    json!({"type": "string"}),
                    |inner, _| json!({"properties": {"x": inner}, "required": ["x"]}),
                ),
            ]);
            for settings in &lists {
                for doc in &docs {
                    let mut doc = doc.clone();
                    let vouch = Vouch::default();
                    let mut close = CloseObjectsVouching {
                        close: CloseObjects {
                            optional: Optional::NullableRequired,
                        },
                        vouch: vouch.clone(),
                    };
                    for mut rule in settings.rules() {
                        let mut report = RuleReport::default();
                        match rule.name() {
                            "close-objects" => close.apply(&mut doc, &mut report),
                            "typed, openai-limits" => {
                                let mut exact = RuleReport::default();
                                typed_within_limits_walk(&doc, &mut exact);
                                let passes = exact.failure.is_none();
                                assert!(passes || !vouch.get(), "{doc}");
                                passing += usize::from(passes);
                                vouched += usize::from(vouch.get());
                                rule.apply(&mut doc, &mut report);
                            }
                            _ => rule.apply(&mut doc, &mut report),
                        }
                        if report.failure.is_some() {
                            break;
                        }
                    }
                }
            }
        });
        assert!(
            vouched > 1_000 && vouched * 10 > passing * 7,
            "{vouched} of {passing}"
        );
    }

    /// The two checks on one walk say what they say one after the other (the limits only when
    /// typed passes): on a document that passes both, fails one, or fails both.
    #[test]
    fn typed_within_limits_is_typed_then_the_limits() {
        let deep = (0..12).fold(
            json!({"type": "string"}),
            |inner, _| json!({"type": "object", "properties": {"x": inner}}),
        );
        let untyped_deep = (0..12).fold(
            json!({"description": "no type"}),
            |inner, _| json!({"type": "object", "properties": {"x": inner}}),
        );
        for doc in [
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            json!({"type": "object", "properties": {"a": {"description": "no type"}}}),
            json!({"type": "object", "properties": {"e": {"type": "integer", "enum": ["x"]}}}),
            deep,
            untyped_deep,
        ] {
            let mut one_walk = RuleReport::default();
            TypedWithinLimits.apply(&mut doc.clone(), &mut one_walk);
            let mut one_by_one = RuleReport::default();
            Typed.apply(&mut doc.clone(), &mut one_by_one);
            if one_by_one.failure.is_none() {
                OpenAiLimits.apply(&mut doc.clone(), &mut one_by_one);
            }
            assert_eq!(one_walk, one_by_one, "{doc}");
        }
    }

    /// OpenAI's character limits count characters, not bytes: names and enum values of
    /// two-byte characters pass where their bytes alone would exceed the limit, and fail,
    /// counted in characters, where the characters do.
    #[test]
    fn openai_limits_count_characters() {
        let object = |count: usize, width: usize| {
            let properties: serde_json::Map<String, Value> = (0..count)
                .map(|i| {
                    let name = format!("{}{i:04}", "é".repeat(width));
                    (name, json!({"type": "string"}))
                })
                .collect();
            json!({"type": "object", "properties": properties})
        };
        let failure = |v: Value| {
            let mut r = RuleReport::default();
            OpenAiLimits.apply(&mut v.clone(), &mut r);
            r.failure.map(|f| f.reason)
        };
        // 4,500 names of 24 characters (44 bytes): 108,000 characters, 198,000 bytes.
        assert_eq!(failure(object(4_500, 20)), None);
        // 4,500 names of 30 characters: 135,000.
        let reason = failure(object(4_500, 26)).expect("over the limit");
        assert!(reason.starts_with("135000 characters"), "{reason}");
        let string_enum = |count: usize, width: usize| {
            let values: Vec<Value> = (0..count)
                .map(|i| json!(format!("{}{i:03}", "é".repeat(width))))
                .collect();
            json!({"type": "object", "properties": {"e": {"type": "string", "enum": values}}})
        };
        // 300 values of 33 characters (63 bytes): 9,900 characters, 18,900 bytes.
        assert_eq!(failure(string_enum(300, 30)), None);
        // 300 values of 63 characters: 18,900.
        let reason = failure(string_enum(300, 60)).expect("over the limit");
        assert!(reason.contains("totals 18900 characters"), "{reason}");
    }

    fn fails(rule: &mut dyn Rule, mut v: Value) -> bool {
        let mut r = RuleReport::default();
        rule.apply(&mut v, &mut r);
        r.failure.is_some()
    }

    #[test]
    fn openai_precheck() {
        let ok = json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false});
        assert!(!fails(&mut StrictPrecheck, ok));
        assert!(fails(
            &mut StrictPrecheck,
            json!({"type": "object", "additionalProperties": {}})
        ));
        assert!(fails(
            &mut StrictPrecheck,
            json!({"type": "object", "patternProperties": {"^x": {}}})
        ));
        assert!(fails(
            &mut StrictPrecheck,
            json!({"type": "object", "properties": {"a": true}})
        ));
        assert!(fails(
            &mut StrictPrecheck,
            json!({"type": "object", "properties": {"a": {"type": "array", "items": {}}}})
        ));
        assert!(fails(
            &mut StrictPrecheck,
            json!({"type": "object", "properties": {"a": {"anyOf": [{}, {"type": "null"}]}}})
        ));
    }

    #[test]
    fn precheck_refuses_what_the_input_already_exceeds() {
        // Eleven object levels, each a nullable type array with a `oneOf`: the rewrite would
        // split and rewrite every level before the limits are checked; the precheck refuses
        // first, naming the deepest object.
        let mut deep = json!({"type": "string"});
        for _ in 0..11 {
            deep = json!({"type": ["object", "null"], "oneOf": [{"minProperties": 1}, {"maxProperties": 2}], "properties": {"x": deep}});
        }
        let mut r = RuleReport::default();
        StrictPrecheck.apply(&mut deep, &mut r);
        let failure = r.failure.expect("refused");
        assert!(
            failure.reason.contains("11 levels of object nesting"),
            "{failure}"
        );
        assert_eq!(failure.pointer, "/properties/x".repeat(10));
        // Ten levels pass the precheck (the limit is checked again on the output).
        let mut ten = json!({"type": "string"});
        for _ in 0..10 {
            ten =
                json!({"type": "object", "properties": {"x": ten}, "additionalProperties": false});
        }
        assert!(!fails(&mut StrictPrecheck, ten));
        // Enum counts are not judged on the input (`const` becomes an enum value later).
        let values: Vec<Value> = (0..1_001).map(|i| json!(i)).collect();
        assert!(!fails(
            &mut StrictPrecheck,
            json!({"type": "object", "properties": {"a": {"type": "integer", "enum": values}}})
        ));
    }

    #[test]
    fn typed_and_limits() {
        // The reference's quarantine case: an enum that its own type rejects.
        assert!(fails(
            &mut Typed,
            json!({"type": "object", "properties": {"c": {"type": "null", "enum": ["A", "B"]}}})
        ));
        assert!(!fails(
            &mut Typed,
            json!({"type": "object", "properties": {"c": {"type": "number", "enum": [1, 2.5]}}})
        ));
        assert!(fails(
            &mut Typed,
            json!({"type": "object", "properties": {"a": {"enum": ["x", 1]}}})
        ));
        assert!(fails(
            &mut Typed,
            json!({"type": "object", "allOf": [{"type": "object"}, {"type": "object"}]})
        ));
        assert!(!fails(
            &mut Typed,
            json!({"type": "object", "properties": {"a": {"$ref": "#"}}})
        ));
        let mut deep = json!({"type": "string"});
        for _ in 0..11 {
            deep = json!({"type": "object", "properties": {"x": deep}});
        }
        assert!(fails(&mut OpenAiLimits, deep));
        let props: serde_json::Map<String, Value> = (0..5_001)
            .map(|i| (format!("p{i}"), json!({"type": "string"})))
            .collect();
        assert!(fails(
            &mut OpenAiLimits,
            json!({"type": "object", "properties": props})
        ));
        let values: Vec<Value> = (0..1_001).map(|i| json!(i)).collect();
        assert!(fails(
            &mut OpenAiLimits,
            json!({"type": "object", "properties": {"a": {"type": "integer", "enum": values}}})
        ));
        let long: Vec<Value> = (0..300).map(|i| json!(format!("{i:0>60}"))).collect();
        assert!(fails(
            &mut OpenAiLimits,
            json!({"type": "object", "properties": {"a": {"type": "string", "enum": long}}})
        ));
    }

    #[test]
    fn anthropic_strict_limits() {
        let tree = json!({"type": "object", "properties": {"t": {"$ref": "#/$defs/T"}},
            "$defs": {"T": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/T"}}}}}});
        assert!(fails(&mut AnthropicStrictCheck, tree));
        let dag = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/$defs/A"}},
            "$defs": {"A": {"type": "string"}}});
        assert!(!fails(&mut AnthropicStrictCheck, dag));
        assert!(fails(
            &mut AnthropicStrictCheck,
            json!({"type": "object", "properties": {"a": {"$ref": "other.json"}}})
        ));
        assert!(fails(
            &mut AnthropicStrictCheck,
            json!({"type": "object", "properties": {"a": {"enum": [[1]]}}})
        ));
        assert!(fails(
            &mut AnthropicStrictCheck,
            json!({"type": "object", "properties": {"a": {}}})
        ));
        assert!(fails(
            &mut AnthropicStrictCheck,
            json!({"type": "object", "properties": {"self": {"$ref": "#"}}})
        ));
    }

    #[test]
    fn the_anthropic_gate_refuses_early_only_what_the_check_refuses_after_the_rewrite() {
        let failure = |rules: &mut [&mut dyn Rule], mut v: Value| {
            let mut r = RuleReport::default();
            for rule in rules {
                rule.apply(&mut v, &mut r);
                if r.failure.is_some() {
                    break;
                }
            }
            r.failure
        };
        let open = json!({"type": "object", "properties": {
            "a": {"type": "string"},
            "m": {"type": "object", "additionalProperties": {"type": "string"}}
        }});
        // No `allOf`, no tuple: the gate fails as the check after the rewrite would.
        let gate = AnthropicStrictGate::default();
        let early = failure(&mut [&mut gate.clone()], open.clone());
        let late = failure(
            &mut [
                &mut super::super::MergeSingleAllOf,
                &mut super::super::TupleItems::default(),
                &mut AnthropicStrictCheck,
            ],
            open.clone(),
        );
        assert!(early.is_some());
        assert_eq!(early, late);
        // With an `allOf` the rewrite may change the verdict: the gate leaves it to the check
        // after the rewrite, which then runs.
        let merged =
            json!({"type": "object", "properties": {"p": {"allOf": [{"type": "string"}]}}});
        let mut gate = AnthropicStrictGate::default();
        let mut after = gate.after_rewrite();
        assert_eq!(failure(&mut [&mut gate], merged.clone()), None);
        assert!(!gate.checked.get());
        let with_allof = json!({"type": "object", "properties": {"p": {"allOf": [{"type": "object", "additionalProperties": true}]}}});
        assert_eq!(failure(&mut [&mut gate], with_allof.clone()), None);
        assert!(failure(&mut [&mut after], with_allof).is_some());
        // A gate that checked one document does not vouch for the next.
        let clean = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert_eq!(failure(&mut [&mut gate], clean), None);
        assert!(gate.checked.get());
        let tuple_open = json!({"type": "object", "properties": {"t": {"type": "array", "prefixItems": [{"type": "object", "additionalProperties": true}]}}});
        assert_eq!(failure(&mut [&mut gate], tuple_open.clone()), None);
        assert!(!gate.checked.get());
        assert!(failure(&mut [&mut after], tuple_open).is_some());
    }
}
