//! Gemini's legacy `parameters`: the OpenAPI 3.0 `Schema` message, field by field.

use serde_json::{Value, json};

use super::google_values::drop_stale_required;
use super::json_text;
use super::words::{self, spill};
use crate::adapt::report::LossKind;
use crate::adapt::tree::{Entry, Key, KeySet, Keyword, NodeId, Report, Rule, Slot, Tree};

/// Only the `Schema` message's fields (<https://ai.google.dev/api/caching#Schema>): `oneOf` is
/// sent as `anyOf` (widened), the first of `examples` as `example`, a `format` the message does
/// not document for the node's type and an `enum` on anything but a string are spilled into the
/// description, any other field is spilled (human-readable ones) or dropped; `required` names
/// that are not properties are removed.
#[derive(Clone, Copy, Debug, Default)]
pub struct OpenApiSchemaFields;

impl Rule for OpenApiSchemaFields {
    fn name(&self) -> &'static str {
        "openapi-schema-fields"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        tree.walk(|tree, id| schema_fields(tree, id, report));
    }
}

fn schema_fields(tree: &mut Tree, id: NodeId, report: &mut Report) {
    if !tree.is_object(id) {
        return;
    }
    let origin = tree.node(id).origin;
    if let Some(one_of) = tree.take(id, Keyword::OneOf) {
        if let Slot::Schemas(branches) = one_of.value {
            match tree.slot_mut(id, Keyword::AnyOf) {
                Some(Slot::Schemas(any)) => any.extend(branches),
                _ => tree.set(
                    id,
                    Entry {
                        key: Key::Kw(Keyword::AnyOf),
                        value: Slot::Schemas(branches),
                        origin: one_of.origin,
                    },
                ),
            }
            let detail = "`oneOf` sent as `anyOf` (the `Schema` message has no `oneOf`)";
            report.loss(origin, Some(id), "oneOf", LossKind::Widened, detail);
        }
    }
    if let Some(examples) = tree.take(id, Keyword::Examples) {
        if let Slot::Value(Value::Array(examples)) = examples.value {
            if let (Some(first), false) =
                (examples.into_iter().next(), tree.has(id, Keyword::Example))
            {
                tree.set_value(id, Keyword::Example, first);
            }
        }
    }
    // The node's type, read where a format or an enum needs it.
    let ty = if tree.has(id, Keyword::Format) || tree.has(id, Keyword::Enum) {
        tree.value(id, Keyword::Type)
            .and_then(Value::as_str)
            .map(str::to_owned)
    } else {
        None
    };
    if let Some(Value::String(f)) = tree.value(id, Keyword::Format) {
        if !openapi_format_ok(ty.as_deref(), f) {
            let f = f.clone();
            let bound = |k| tree.value(id, k).and_then(Value::as_f64);
            let restated = words::restates_type(
                &f,
                ty.as_deref(),
                bound(Keyword::Minimum),
                bound(Keyword::Maximum),
            );
            let entry = tree.take(id, Keyword::Format).expect("there");
            let why = format!(
                "`format: {}` is not a `Schema` format for `{}`",
                json_text(&json!(f)),
                ty.as_deref().unwrap_or("untyped")
            );
            if restated {
                let detail = format!("{why}; removed: it only restates the node's type and bounds");
                report.loss(entry.origin, Some(id), "format", LossKind::Dropped, detail);
            } else {
                let said = words::spill(tree, id, &[("format".to_owned(), json!(f))]);
                let detail = format!("{why}{}", words::said_as(&said));
                report.loss(entry.origin, Some(id), "format", LossKind::Spilled, detail);
            }
        }
    }
    if tree.has(id, Keyword::Enum) && ty.as_deref() != Some("string") {
        let entry = tree.take(id, Keyword::Enum).expect("there");
        let values = tree.slot_value(&entry.value);
        let text = json_text(&values);
        let said = words::spill(tree, id, &[("enum".to_owned(), values)]);
        let detail = format!(
            "`enum: {text}` is only allowed for STRING in the `Schema` message{}",
            words::said_as(&said)
        );
        report.loss(entry.origin, Some(id), "enum", LossKind::Spilled, detail);
    }
    // `$ref`/`$defs` are inlined by a later rule.
    const FIELDS: KeySet = KeySet::of(OPENAPI_SCHEMA_FIELDS);
    let extra = |k: &Key| !FIELDS.contains(k) && *k != Keyword::Ref && *k != Keyword::Defs;
    if !tree.entries(id).iter().any(|e| extra(&e.key)) {
        drop_stale_required(tree, id, report);
        return;
    }
    let entries = tree.entries_mut(id).map(std::mem::take).unwrap_or_default();
    let mut kept = Vec::with_capacity(entries.len());
    let mut spilled: Vec<(String, Value)> = Vec::new();
    let mut losses = Vec::new();
    for entry in entries {
        let key = entry.key.as_str().to_owned();
        if !extra(&entry.key) {
            kept.push(entry);
            continue;
        }
        let value = tree.slot_value(&entry.value);
        if crate::adapt::rules::HUMAN_READABLE.contains(&key.as_str()) {
            // Its detail ends with the sentence, once it is written.
            let detail = format!("`{key}: {}` is not a `Schema` field", json_text(&value));
            losses.push((entry.origin, key.clone(), LossKind::Spilled, detail));
            spilled.push((key, value));
        } else {
            let detail = format!("`{key}: {}` is not a `Schema` field", super::shown(&value));
            losses.push((entry.origin, key, LossKind::Dropped, detail));
        }
    }
    *tree.entries_mut(id).expect("an object") = kept;
    let said = if spilled.is_empty() {
        String::new()
    } else {
        words::said_as(&spill(tree, id, &spilled))
    };
    for (origin, key, kind, mut detail) in losses {
        if kind == LossKind::Spilled {
            detail.push_str(&said);
        }
        super::keywords::removed(report, origin, id, key, kind, detail);
    }
    drop_stale_required(tree, id, report);
}

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

/// `format` values the `Schema` message documents, per type.
pub fn openapi_format_ok(ty: Option<&str>, format: &str) -> bool {
    matches!(
        (ty, format),
        (Some("number"), "float" | "double")
            | (Some("integer"), "int32" | "int64")
            | (Some("string"), "enum" | "date-time")
    )
}
