//! Google's wire forms (Gemini `parametersJsonSchema` and the legacy OpenAPI `parameters`), seed
//! section 3, one small rule each.

use serde_json::{Map, Value, json};

use super::{
    Held, NodeRule, Rule, RuleReport, absorb, append_description, is_null_schema, json_text,
    walk_nodes,
};
use crate::adapt::report::LossKind;
use crate::adapt::visit::{Order, Path, visit};
use crate::keys::Keys;

/// python-genai's snake_case keyword names (`any_of`, `additional_properties`, `prefix_items`,
/// `property_ordering`) renamed to camelCase; when both spellings exist, the snake_case value
/// wins, as in the SDK. Keys of `properties` maps are names and are never renamed.
#[derive(Clone, Copy, Debug, Default)]
pub struct SnakeCaseKeywords;

const SNAKE: &[(&str, &str)] = &[
    ("any_of", "anyOf"),
    ("additional_properties", "additionalProperties"),
    ("prefix_items", "prefixItems"),
    ("property_ordering", "propertyOrdering"),
];

impl Rule for SnakeCaseKeywords {
    fn name(&self) -> &'static str {
        "snake-case-keywords"
    }

    fn wanted(&self, held: &Held<'_>) -> bool {
        SNAKE.iter().any(|(snake, _)| held.may_hold(snake))
    }

    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(
            &[
                "anyOf",
                "additionalProperties",
                "prefixItems",
                "propertyOrdering",
                // `prefixItems` where `prefix_items` was, on a node without a type.
                crate::adapt::holds::UNTYPED,
            ],
            add,
        )
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        visit(schema, Order::Pre, &mut |node, path| {
            let Value::Object(map) = node else { return };
            for (snake, camel) in SNAKE {
                if let Some(v) = map.take_key(snake) {
                    map.insert((*camel).to_owned(), v);
                    report.change(path.pointer(), format!("`{snake}` → `{camel}`"));
                }
            }
        });
    }
}

/// Boolean subschemas as objects: `true` → `{}`, `false` → `{"not": {}}` (the protobuf `Schema`
/// has no boolean form). Same meaning; a change.
#[derive(Clone, Copy, Debug, Default)]
pub struct BoolSchemas;

impl Rule for BoolSchemas {
    fn name(&self) -> &'static str {
        "bool-schemas"
    }

    /// The scan notes every boolean where a subschema stands.
    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold(crate::adapt::holds::BOOL_SCHEMA)
    }

    /// `true` becomes `{}`: a subschema of annotations alone.
    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(&["not", crate::adapt::holds::ANNOTATIONS_ONLY], add)
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        let walk = crate::walk::Walk::new(schema);
        let mut at: Vec<String> = Vec::new();
        for (i, (node, place)) in walk.nodes.iter().enumerate() {
            // `additionalProperties: false` and `items: false` are keyword values, handled by the
            // keyword rules.
            let keyword_value = matches!(
                place.step,
                Some(crate::walk::Step::Keyword(
                    "additionalProperties" | "unevaluatedProperties" | "items" | "unevaluatedItems"
                ))
            );
            if node.is_boolean() && !keyword_value {
                at.push(crate::walk::pointer(&walk.steps(i)));
            }
        }
        for p in at {
            if let Some(slot) = schema.pointer_mut(&p) {
                let b = slot.as_bool().unwrap_or(true);
                *slot = if b { json!({}) } else { json!({"not": {}}) };
                report.change(&p, format!("boolean schema `{b}` as an object"));
            }
        }
    }
}

/// Google's null handling, parent first as python-genai's `handle_null_fields` does:
/// `type: "null"` → `nullable: true`; null branches of an `anyOf` removed and `nullable: true`
/// set (one object branch left is merged into the node); `type: [T, "null"]` → `type: T` +
/// `nullable: true`. A type array with several non-null types keeps the first (a `collapsed`
/// loss). With `mark_nullable: false` (Cloud Code Assist) no `nullable` is written.
#[derive(Clone, Copy, Debug)]
pub struct GoogleNullable {
    /// Write `nullable: true` (Gemini) or nothing (Cloud Code Assist).
    pub mark_nullable: bool,
}

impl Rule for GoogleNullable {
    fn name(&self) -> &'static str {
        "google-nullable"
    }

    /// Null forms: a union (its null branches), a list of types, `type: "null"`.
    fn wanted(&self, held: &Held<'_>) -> bool {
        use crate::adapt::holds::{TYPE_LIST, TYPE_NULL};
        held.may_hold("anyOf") || held.may_hold(TYPE_LIST) || held.may_hold(TYPE_NULL)
    }

    /// A null branch it rewrites (`{"type": "null"}` → `{"nullable": true}`) is no longer the
    /// null schema alone.
    fn adds(&self, held: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        use crate::adapt::holds::{TYPE_LIST, TYPE_NULL, UNION_PAST_NULL, UNTYPED};
        if held.may_hold("anyOf") || held.may_hold("oneOf") {
            add(UNION_PAST_NULL);
        }
        // A `type: "null"` (or a list of `null` alone) taken away leaves a node untyped.
        if held.may_hold(TYPE_NULL) || held.may_hold(TYPE_LIST) {
            add(UNTYPED);
        }
        super::moves_and_adds(held, &["nullable", "type", "description"], add)
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        walk_nodes(self, schema, report);
    }
}

/// One node at a time, parents first; it logs branch moves, so in a fused walk it comes first.
impl NodeRule for GoogleNullable {
    fn node(&mut self, node: &mut Value, path: &Path<'_>, report: &mut RuleReport) {
        let mark = self.mark_nullable;
        let Value::Object(map) = node else { return };
        let mut nullable = false;
        if let Some(Value::Array(branches)) = map.key_mut("anyOf") {
            let before = branches.len();
            let kept: Vec<usize> = (0..before)
                .filter(|i| !is_null_schema(&branches[*i]))
                .collect();
            branches.retain(|b| !is_null_schema(b));
            if branches.len() != before {
                report.moved(path.pointer(), "anyOf", kept);
                nullable = true;
                if branches.is_empty() {
                    map.take_key("anyOf");
                }
                // One object branch left is merged into the node; it may itself be a union
                // of one: its branch, likewise (bounded; once is the common case).
                // A branch that disagrees with the node on a keyword stays a union of one, as
                // `OneBranchUnions` leaves it: merging would drop the branch's value, and the
                // output would not be a fixed point.
                for _ in 0..9 {
                    match map.key("anyOf") {
                        Some(Value::Array(bs))
                            if bs.len() == 1 && agrees_with(map, &bs[0], "anyOf") =>
                        {
                            let Some(Value::Array(mut one)) = map.take_key("anyOf") else {
                                unreachable!()
                            };
                            if let Value::Object(inner) = one.remove(0) {
                                let at = path.pointer();
                                absorb(map, inner, &at, &at.child("anyOf").index(0), true, report);
                            }
                        }
                        _ => break,
                    }
                }
            }
        }
        // `null` alone (`type: "null"`, a list of `null` alone): no Google form keeps it.
        let mut only_null = false;
        // After the union: a branch merged into the node may have brought `type: null`.
        if map.key("type").and_then(Value::as_str) == Some("null") {
            map.take_key("type");
            nullable = true;
            only_null = true;
            // `enum: [null]` says the same as the nullable flag.
            if map
                .key("enum")
                .and_then(Value::as_array)
                .is_some_and(|v| v.iter().all(Value::is_null))
            {
                map.take_key("enum");
            }
        }
        // A list of types becomes its first non-null name, moved out of the list in place (no
        // name copied, no key made again).
        let mut no_type = false;
        if let Some(slot) = map.key_mut("type")
            && let Value::Array(types) = slot
        {
            let names = || types.iter().filter_map(Value::as_str);
            let non_null = names().filter(|t| *t != "null").count();
            if non_null != names().count() {
                nullable = true;
            }
            match types
                .iter()
                .position(|t| t.as_str().is_some_and(|t| t != "null"))
            {
                Some(first) => {
                    if non_null > 1 {
                        let all: Vec<&str> = names().collect();
                        report.loss(
                            path.child("type"),
                            "type",
                            LossKind::Collapsed,
                            format!(
                                "`type: {all:?}`: Google takes one type; `{}` kept",
                                all.iter().find(|t| **t != "null").unwrap_or(&"")
                            ),
                        );
                    }
                    *slot = std::mem::take(&mut types[first]);
                }
                None => no_type = true,
            }
        }
        if no_type {
            map.take_key("type");
            only_null = true;
        }
        // Left with nothing that says what it accepts, the node now accepts any value.
        let widened = only_null
            && !["type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const"]
                .iter()
                .any(|k| map.has(k));
        if widened {
            report.loss(
                path.pointer(),
                "type",
                LossKind::Widened,
                "a schema of `null` alone has no Google form: sent without a type, it accepts any value",
            );
        }
        if nullable {
            // `null` among other enum values says the same as the flag (or, without one, is
            // refused with the rest of the null forms): the enum keeps its other values.
            if let Some(Value::Array(values)) = map.key_mut("enum") {
                if values.iter().any(|v| !v.is_null()) {
                    values.retain(|v| !v.is_null());
                }
            }
            if mark {
                map.insert("nullable".into(), json!(true));
                report.change(path.pointer(), "null as `nullable: true`");
            } else if !widened {
                report.loss(
                    path.pointer(),
                    "type",
                    LossKind::Collapsed,
                    "`null` is no longer accepted here (no `nullable` on this wire)",
                );
            }
        }
    }
}

/// Gemini accepts only string enums: an enum with other values (or none) is removed, its values
/// written into the description, and `type` kept. A `not` that holds such an enum is dropped.
#[derive(Clone, Copy, Debug, Default)]
pub struct StringEnumsOnly;

impl Rule for StringEnumsOnly {
    fn name(&self) -> &'static str {
        "string-enums-only"
    }

    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold("not") || held.may_hold("enum")
    }

    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(&["description"], add)
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        // A `not` holding a non-string enum or const cannot be rewritten without changing what
        // it excludes (removing the enum would exclude the whole type): it is dropped.
        visit(schema, Order::Pre, &mut |node, path| {
            let Value::Object(map) = node else { return };
            let Some(negated) = map.key("not") else {
                return;
            };
            let unrepresentable = crate::walk::Walk::new(negated).nodes.iter().any(|(n, _)| {
                n.key("enum")
                    .and_then(Value::as_array)
                    .is_some_and(|v| v.is_empty() || v.iter().any(|x| !x.is_string()))
                    || n.key("const").is_some_and(|c| !c.is_string())
            });
            if unrepresentable {
                let negated = map.take_key("not").expect("present");
                report.loss(path.child("not"), "not", LossKind::Dropped, format!("`not: {}` excludes non-string values Google cannot express; no longer excluded", json_text(&negated)));
            }
        });
        visit(schema, Order::Post, &mut |node, path| {
            let Value::Object(map) = node else { return };
            let bad = match map.key("enum") {
                Some(Value::Array(values)) => {
                    values.is_empty() || values.iter().any(|v| !v.is_string())
                }
                Some(_) => true,
                None => false,
            };
            if bad {
                let values = map.take_key("enum").expect("present");
                append_description(map, &format!("{{enum: {}}}", json_text(&values)), "\n\n");
                report.loss(path.child("enum"), "enum", LossKind::Spilled, format!("`enum: {}`: Google accepts only string enums; the values are in the description", json_text(&values)));
            }
        });
    }
}

/// Whether the one branch of the node's union `key` can be merged into the node without losing
/// anything: an object whose every keyword the node lacks or has with the same value
/// (descriptions are joined; the union itself is about to go, so a branch that is a union of its
/// own takes its place).
fn agrees_with(node: &Map<String, Value>, branch: &Value, key: &str) -> bool {
    branch.as_object().is_some_and(|branch| {
        branch.iter().all(|(k, v)| {
            k == "description" || k == key || node.key(k).is_none_or(|mine| mine == v)
        })
    })
}

/// A union of one branch is that branch: after references are inlined, `{"anyOf": [X]}` (or
/// `oneOf`) is merged into its node, where no keyword of the two disagrees (descriptions are
/// joined). Same meaning; a change. Without it, the output is not a fixed point: adapting it again
/// would merge what this pass left.
#[derive(Clone, Copy, Debug, Default)]
pub struct OneBranchUnions;

impl Rule for OneBranchUnions {
    fn name(&self) -> &'static str {
        "one-branch-unions"
    }

    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold("anyOf") || held.may_hold("oneOf")
    }

    fn adds(&self, held: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::moves_and_adds(held, &["description"], add)
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        visit(schema, Order::Post, &mut |node, path| {
            let Value::Object(map) = node else { return };
            // Bounded: each round removes one union from this node.
            for _ in 0..8 {
                let Some(key) = ["anyOf", "oneOf"].into_iter().find(|k| {
                    matches!(map.key(k), Some(Value::Array(bs)) if bs.len() == 1 && bs[0].is_object())
                }) else {
                    return;
                };
                if !agrees_with(map, &map[key][0], key) {
                    return;
                }
                let Some(Value::Array(mut one)) = map.shift_remove(key) else {
                    unreachable!("checked above")
                };
                if let Value::Object(branch) = one.remove(0) {
                    let at = path.pointer();
                    absorb(map, branch, &at, &at.child(key).index(0), true, report);
                }
                report.change(
                    path.pointer(),
                    format!("`{key}` of one branch merged into the node"),
                );
            }
        });
    }
}

#[cfg(test)]
mod one_branch_tests {
    use super::*;
    use crate::adapt::rules::run;
    use serde_json::json;

    #[test]
    fn a_union_of_one_is_its_branch() {
        let (out, r) = run(
            &mut OneBranchUnions,
            json!({"anyOf": [{"anyOf": [{"type": "string"}], "nullable": true}]}),
        );
        assert_eq!(out, json!({"nullable": true, "type": "string"}));
        assert_eq!(r.changes.len(), 2);
        // A branch that is itself a union replaces the union of one (a long-run fuzz finding:
        // it was taken for a disagreeing `anyOf`, and only a second adaptation merged it).
        let (out, _) = run(
            &mut OneBranchUnions,
            json!({"nullable": true, "anyOf": [{"anyOf": [{"type": "string"}, {"type": "integer"}]}]}),
        );
        assert_eq!(
            out,
            json!({"nullable": true, "anyOf": [{"type": "string"}, {"type": "integer"}]})
        );
        // Disagreeing keywords: left as they are.
        let v = json!({"type": "string", "anyOf": [{"type": "integer"}]});
        assert_eq!(run(&mut OneBranchUnions, v.clone()).0, v);
    }
}

/// Every `type: "object"` gets a `properties` map (Google rejects objects without one).
#[derive(Clone, Copy, Debug, Default)]
pub struct EnsureProperties;

impl Rule for EnsureProperties {
    fn name(&self) -> &'static str {
        "ensure-properties"
    }

    /// Only where a `type` is the string `object`.
    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold(crate::adapt::holds::TYPE_OBJECT)
    }

    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(&["properties"], add)
    }

    /// It writes its own node's `properties`.
    fn keeps_root_and_below(&self, _: &Held<'_>) -> bool {
        true
    }

    // At the root alone where no node below it has an object type (Cloud Code Assist runs it
    // outside a group).
    super::fused::node_rule_walks!();
}

/// Its `properties: {}` holds no schema.
impl NodeRule for EnsureProperties {
    fn grows_below(&self, _: &Held<'_>) -> bool {
        false
    }

    fn node(&mut self, node: &mut Value, path: &Path<'_>, report: &mut RuleReport) {
        let Value::Object(map) = node else { return };
        if map.key("type").and_then(Value::as_str) == Some("object")
            && !map.key("properties").is_some_and(Value::is_object)
        {
            map.insert("properties".into(), json!({}));
            report.change(path.pointer(), "`properties: {}` added");
        }
    }
}

/// `propertyOrdering` as declared, on objects with two or more properties (Gemini 2.0 needs it
/// to keep the order). An existing one is kept.
#[derive(Clone, Copy, Debug, Default)]
pub struct PropertyOrdering;

impl Rule for PropertyOrdering {
    fn name(&self) -> &'static str {
        "property-ordering"
    }

    /// Only where a `type` is the string `object` and some object has `properties`.
    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold(crate::adapt::holds::TYPE_OBJECT) && held.may_hold("properties")
    }

    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(&["propertyOrdering"], add)
    }

    /// It writes its own node's `propertyOrdering`.
    fn keeps_root_and_below(&self, _: &Held<'_>) -> bool {
        true
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        walk_nodes(self, schema, report);
    }
}

/// Reads its node's own `type` and the names of its `properties` (not the schemas), and
/// writes `propertyOrdering`, which holds no schema.
impl NodeRule for PropertyOrdering {
    fn node(&mut self, node: &mut Value, path: &Path<'_>, report: &mut RuleReport) {
        let Value::Object(map) = node else { return };
        if map.has("propertyOrdering") || map.key("type").and_then(Value::as_str) != Some("object")
        {
            return;
        }
        let Some(Value::Object(props)) = map.key("properties") else {
            return;
        };
        if props.len() < 2 {
            return;
        }
        let names: Vec<Value> = props.keys().map(|k| Value::String(k.clone())).collect();
        map.insert("propertyOrdering".into(), Value::Array(names));
        report.change(path.pointer(), "`propertyOrdering` as declared");
    }

    fn grows_below(&self, _: &Held<'_>) -> bool {
        false
    }
}

/// The legacy `parameters` field is the OpenAPI 3.0 `Schema` message: only its fields parse
/// (anything else is a 400 "Cannot find field"). Every other keyword is removed: human-readable
/// ones spilled, the rest dropped; `oneOf` becomes `anyOf` (widened), `examples` the single
/// `example`, and formats are kept only where the message allows them.
#[derive(Clone, Copy, Debug, Default)]
pub struct OpenApiSchemaFields;

/// The `Schema` message's fields (<https://ai.google.dev/api/caching#Schema>).
pub const OPENAPI_SCHEMA_FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// Whether `key` is one of [`OPENAPI_SCHEMA_FIELDS`] (rejected by first and last byte and length first).
fn is_openapi_field(key: &str) -> bool {
    const TABLE: [u64; 256] = crate::keys::end_byte_lengths(OPENAPI_SCHEMA_FIELDS);
    crate::keys::may_be_in(&TABLE, key) && OPENAPI_SCHEMA_FIELDS.contains(&key)
}

/// `format` values the `Schema` message documents, per type.
pub fn openapi_format_ok(ty: Option<&str>, format: &str) -> bool {
    matches!(
        (ty, format),
        (Some("number"), "float" | "double")
            | (Some("integer"), "int32" | "int64")
            | (Some("string"), "enum" | "date-time")
    )
}

impl Rule for OpenApiSchemaFields {
    fn name(&self) -> &'static str {
        "openapi-schema-fields"
    }

    fn adds(&self, held: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        // `oneOf` read as `anyOf`, the first of `examples` as `example`, and what it spills in
        // the description.
        if held.may_hold("oneOf") {
            add("anyOf");
        }
        if held.may_hold("examples") {
            add("example");
        }
        // A node whose `allOf` or `$ref` it removes may be left untyped.
        super::adds_these(&["description", crate::adapt::holds::UNTYPED], add)
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        visit(schema, Order::Pre, &mut |node, path| {
            let Value::Object(map) = node else { return };
            if let Some(Value::Array(one_of)) = map.take_key("oneOf") {
                match map.key_mut("anyOf") {
                    Some(Value::Array(any)) => any.extend(one_of),
                    _ => {
                        map.insert("anyOf".into(), Value::Array(one_of));
                    }
                }
                report.loss(
                    path.pointer(),
                    "oneOf",
                    LossKind::Widened,
                    "`oneOf` sent as `anyOf` (the `Schema` message has no `oneOf`)",
                );
            }
            if let Some(Value::Array(examples)) = map.take_key("examples") {
                if let Some(first) = examples.into_iter().next() {
                    map.entry("example").or_insert(first);
                }
            }
            // The node's type, kept across the rewrites below without a copy when it is one of
            // the names of JSON Schema's types (nearly always).
            let ty: Option<std::borrow::Cow<'static, str>> = map
                .key("type")
                .and_then(Value::as_str)
                .map(super::type_name);
            if let Some(Value::String(f)) = map.key("format") {
                if !openapi_format_ok(ty.as_deref(), f) {
                    let f = f.clone();
                    map.take_key("format");
                    append_description(
                        map,
                        &format!("{{format: {}}}", json_text(&json!(f))),
                        "\n\n",
                    );
                    report.loss(
                        path.child("format"),
                        "format",
                        LossKind::Spilled,
                        format!(
                            "`format: {f:?}` is not a `Schema` format for `{}`",
                            ty.as_deref().unwrap_or("untyped")
                        ),
                    );
                }
            }
            if map.has("enum") && ty.as_deref() != Some("string") {
                let values = map.take_key("enum").expect("present");
                append_description(map, &format!("{{enum: {}}}", json_text(&values)), "\n\n");
                report.loss(
                    path.child("enum"),
                    "enum",
                    LossKind::Spilled,
                    "`enum` is only allowed for STRING in the `Schema` message",
                );
            }
            // `$ref`/`$defs` are inlined by the next rule.
            let extra = |k: &str| !is_openapi_field(k) && k != "$ref" && k != "$defs";
            let mut spilled: Vec<(String, Value)> = Vec::new();
            // One pass over the entries, in their order, where there is anything to remove:
            // each key reported as it is taken out.
            if map.keys().any(|k| extra(k)) {
                map.retain(|key, value| {
                    if !extra(key) {
                        return true;
                    }
                    let value = std::mem::take(value);
                    if super::keywords::HUMAN_READABLE.contains(&key.as_str()) {
                        report.loss(
                            path.child(key),
                            key,
                            LossKind::Spilled,
                            format!(
                                "`{key}: {}` is not a `Schema` field; it is in the description",
                                json_text(&value)
                            ),
                        );
                        spilled.push((key.clone(), value));
                    } else {
                        report.loss(
                            path.child(key),
                            key,
                            LossKind::Dropped,
                            format!(
                                "`{key}: {}` is not a `Schema` field",
                                shorten(&json_text(&value))
                            ),
                        );
                    }
                    false
                });
            }
            if !spilled.is_empty() {
                super::spill(map, &spilled);
            }
            drop_stale_required(map, path, report);
        });
    }
}

/// Google rejects a `required` name that is not a property of the same node ("`…required[0]`:
/// property is not defined"): such names are removed, with one loss. Looked up in place; the
/// names are copied only where one is dropped.
fn drop_stale_required(map: &mut Map<String, Value>, path: &Path<'_>, report: &mut RuleReport) {
    let stale = |r: &Value| {
        !r.as_str().is_some_and(|r| {
            map.key("properties")
                .and_then(Value::as_object)
                .is_some_and(|p| p.has(r))
        })
    };
    if !matches!(map.key("required"), Some(Value::Array(r)) if r.iter().any(stale)) {
        return;
    }
    // Taken out, each name looked up in the properties (hashed in a wide map), and put back.
    if let Some(Value::Array(mut required)) = map.key_mut("required").map(std::mem::take) {
        let props = map.key("properties").and_then(Value::as_object);
        let before = required.len();
        required.retain(|r| r.as_str().is_some_and(|r| props.is_some_and(|p| p.has(r))));
        if required.len() != before {
            report.loss(
                path.child("required"),
                "required",
                LossKind::Dropped,
                "required names that are not properties removed (Google: \"property is not defined\")",
            );
        }
        if let Some(slot) = map.key_mut("required") {
            *slot = Value::Array(required);
        }
    }
}

/// `required` names that are not properties of their node, removed (Gemini
/// `parametersJsonSchema` and Cloud Code Assist; the legacy `parameters` form does it in
/// [`OpenApiSchemaFields`]). Run after references are inlined, where every node has the
/// properties it will be sent with.
#[derive(Debug, Clone, Copy, Default)]
pub struct RequiredAreProperties;

impl Rule for RequiredAreProperties {
    fn name(&self) -> &'static str {
        "required-are-properties"
    }

    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold("required")
    }

    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(&[], add)
    }

    /// It changes its own node's `required`.
    fn keeps_root_and_below(&self, _: &Held<'_>) -> bool {
        true
    }

    super::fused::node_rule_walks!();
}

/// It writes no schema.
impl NodeRule for RequiredAreProperties {
    fn grows_below(&self, _: &Held<'_>) -> bool {
        false
    }

    fn node(&mut self, node: &mut Value, path: &Path<'_>, report: &mut RuleReport) {
        if let Value::Object(map) = node {
            drop_stale_required(map, path, report);
        }
    }
}

fn shorten(s: &str) -> String {
    match s.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::*;

    #[test]
    fn snake_case_wins_and_names_stay() {
        let (v, _) = run(
            &mut SnakeCaseKeywords,
            json!({"type": "object", "any_of": [{"type": "string"}], "anyOf": [], "properties": {"any_of": {"type": "string"}}}),
        );
        assert_eq!(v["anyOf"], json!([{"type": "string"}]));
        assert_eq!(v["properties"]["any_of"], json!({"type": "string"}));
    }

    #[test]
    fn nullable_forms() {
        let mut g = GoogleNullable {
            mark_nullable: true,
        };
        assert_eq!(
            run(&mut g, json!({"type": ["string", "null"]})).0,
            json!({"type": "string", "nullable": true})
        );
        assert_eq!(
            run(&mut g, json!({"type": "null"})).0,
            json!({"nullable": true})
        );
        assert_eq!(run(&mut g, json!({"anyOf": [{"type": "object", "properties": {}}, {"type": "null"}], "description": "d"})).0, json!({"description": "d", "type": "object", "properties": {}, "nullable": true}));
        let (v, r) = run(&mut g, json!({"type": ["string", "integer", "null"]}));
        assert_eq!(v, json!({"type": "string", "nullable": true}));
        assert_eq!(r.losses[0].kind, LossKind::Collapsed);
        assert_eq!(
            r.losses[0].detail,
            "`type: [\"string\", \"integer\", \"null\"]`: Google takes one type; `string` kept"
        );
        assert_eq!(r.losses[0].pointer, "/type");
        // Names that are not strings are passed over; none left: no type.
        let (v, _) = run(&mut g, json!({"type": [1, "null", "number"], "minimum": 0}));
        assert_eq!(v, json!({"type": "number", "minimum": 0, "nullable": true}));
        let (v, _) = run(&mut g, json!({"type": ["null"], "description": "d"}));
        assert_eq!(v, json!({"description": "d", "nullable": true}));
        let mut cca = GoogleNullable {
            mark_nullable: false,
        };
        assert_eq!(
            run(&mut cca, json!({"type": ["string", "null"]})).0,
            json!({"type": "string"})
        );
    }

    /// Issue 48, item 9: `null` alone has no Google form; the node is left without a type and
    /// accepts any value, which is reported as a widening (not only as a change), on Gemini
    /// and on Cloud Code Assist; a nullable type keeps its type and is no widening.
    #[test]
    fn null_alone_is_reported_widened() {
        for mark_nullable in [true, false] {
            let mut g = GoogleNullable { mark_nullable };
            for input in [
                json!({"type": "null"}),
                json!({"type": ["null"], "description": "d"}),
                json!({"type": "null", "enum": [null]}),
            ] {
                let (v, r) = run(&mut g, input.clone());
                assert!(v.get("type").is_none(), "{v}");
                let kinds: Vec<LossKind> = r.losses.iter().map(|l| l.kind).collect();
                assert_eq!(kinds, [LossKind::Widened], "{input} ({mark_nullable})");
                assert_eq!(r.losses[0].pointer, "");
                assert!(r.losses[0].detail.contains("accepts any value"));
            }
            let (_, r) = run(&mut g, json!({"type": ["string", "null"]}));
            assert!(r.losses.iter().all(|l| l.kind != LossKind::Widened));
        }
    }

    #[test]
    fn enums_ordering_properties_booleans() {
        let (v, r) = run(
            &mut StringEnumsOnly,
            json!({"type": "object", "properties": {"n": {"type": "integer", "enum": [1, 2]}, "s": {"type": "string", "enum": ["a"]}}}),
        );
        assert_eq!(
            v["properties"]["n"],
            json!({"type": "integer", "description": "{enum: [1,2]}"})
        );
        assert_eq!(v["properties"]["s"]["enum"], json!(["a"]));
        assert_eq!(r.losses.len(), 1);
        let (v, _) = run(
            &mut PropertyOrdering,
            json!({"type": "object", "properties": {"b": {}, "a": {}}}),
        );
        assert_eq!(v["propertyOrdering"], json!(["b", "a"]));
        let (v, _) = run(
            &mut EnsureProperties,
            json!({"type": "object", "properties": {"o": {"type": "object"}}}),
        );
        assert_eq!(v["properties"]["o"]["properties"], json!({}));
        let (v, _) = run(
            &mut BoolSchemas,
            json!({"type": "object", "properties": {"t": true, "f": false}, "additionalProperties": false}),
        );
        assert_eq!(v["properties"], json!({"t": {}, "f": {"not": {}}}));
        assert_eq!(v["additionalProperties"], json!(false));
    }

    /// In a map of many properties (looked up by hash) the names that are properties stay, in
    /// their order, and `required` keeps its place among the keys.
    #[test]
    fn required_names_of_no_property_go_from_a_wide_object() {
        let props: serde_json::Map<String, Value> = (0..12)
            .map(|i| (format!("p{i}"), json!({"type": "string"})))
            .collect();
        let (v, r) = run(
            &mut OpenApiSchemaFields,
            json!({"required": ["p11", "gone", "p0", 5, "p3", "p0"], "type": "object", "properties": props}),
        );
        assert_eq!(v["required"], json!(["p11", "p0", "p3", "p0"]));
        assert_eq!(
            v.as_object().unwrap().keys().next().map(String::as_str),
            Some("required")
        );
        assert_eq!(r.losses.len(), 1);
        assert_eq!(r.losses[0].pointer, "/required");
    }

    #[test]
    fn openapi_fields_only() {
        let (v, r) = run(
            &mut OpenApiSchemaFields,
            json!({"type": "object", "additionalProperties": false,
            "properties": {
                "u": {"type": "string", "format": "uri", "examples": ["x"]},
                "n": {"type": "integer", "format": "int64", "exclusiveMinimum": 0, "enum": [1]},
                "c": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
            }, "required": ["u", "ghost"]}),
        );
        assert!(v.key("additionalProperties").is_none());
        assert_eq!(v["required"], json!(["u"]));
        assert_eq!(
            v["properties"]["u"],
            json!({"type": "string", "example": "x", "description": "{format: \"uri\"}"})
        );
        assert_eq!(v["properties"]["n"]["format"], "int64");
        assert!(v["properties"]["n"].key("enum").is_none());
        assert!(v["properties"]["c"].key("anyOf").is_some());
        assert!(r.losses.iter().any(|l| l.kind == LossKind::Widened));
    }
}
