//! The main job on a bundled example: derive a tool's parameters, print the schema a server
//! publishes for them (short), the contract check's result, and one row per provider: what would
//! be sent (strict or not, and why not), whether the per-tool fallback was used, and what that
//! provider no longer enforces; then the server-side check of a wrong sample call.
//!
//! ```text
//! cargo run --example publish
//! ```

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolschema::adapt::LossKind;
use toolschema::{ArgsError, ProviderSafe, Target, ToolParams};

/// The kind of a content field. Written as a unit enum, not as a union of one object per kind:
/// clients that keep only the first branch of a union would make all but one kind unwritable.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ProviderSafe)]
#[serde(rename_all = "snake_case")]
enum FieldKind {
    Text,
    Integer,
    Decimal,
    Asset,
}

/// One field to write.
#[derive(Debug, Deserialize, JsonSchema, ProviderSafe)]
struct FieldValue {
    /// The field's id in the content type.
    field: String,
    /// What `value` holds. The server checks it against the field's real type.
    kind: FieldKind,
    /// The value: a string, a number, or an asset id; validated on the server against `kind`.
    value: serde_json::Value,
}

/// Parameters of `upsert_entry`.
#[derive(Debug, Deserialize, JsonSchema, ToolParams)]
struct UpsertEntry {
    /// The entry to create or update.
    #[schemars(length(min = 1, max = 64))]
    entry_id: String,
    /// The fields to write.
    field_values: Vec<FieldValue>,
    /// Only validate; write nothing.
    #[serde(default)]
    dry_run: bool,
}

/// The server-side check that replaces the union: a value that does not match its kind is
/// rejected with a message the model can act on, in the same words as a schema violation
/// (`ArgsError`), never stored.
fn validate(args: &UpsertEntry) -> Result<(), ArgsError> {
    let mut refused = ArgsError::invalid();
    for (i, fv) in args.field_values.iter().enumerate() {
        let (ok, what) = match fv.kind {
            FieldKind::Text => (fv.value.is_string(), "a string"),
            FieldKind::Integer => (fv.value.is_i64() || fv.value.is_u64(), "an integer"),
            FieldKind::Decimal => (fv.value.is_number(), "a number"),
            FieldKind::Asset => (
                fv.value.get("id").is_some_and(serde_json::Value::is_string),
                "an asset reference `{\"id\": \"...\"}`",
            ),
        };
        if !ok {
            refused = refused.with(
                format!("/field_values/{i}/value"),
                format!(
                    "must be {what}, as the field `{}` is of kind {}",
                    fv.field,
                    serde_json::to_string(&fv.kind).expect("a unit variant serializes")
                ),
                Some(&fv.value),
            );
        }
    }
    if refused.is_empty() {
        Ok(())
    } else {
        Err(refused)
    }
}

/// A schema in one line per property: `name: type` (required ones marked), nested objects and
/// arrays of objects by their property names.
fn short(schema: &Value) -> Vec<String> {
    fn kind(node: &Value, root: &Value) -> String {
        let node = match node.get("$ref").and_then(Value::as_str) {
            Some(r) => root.pointer(r.trim_start_matches('#')).unwrap_or(node),
            None => node,
        };
        if let Some(values) = node.get("enum").and_then(Value::as_array) {
            let names: Vec<String> = values.iter().map(Value::to_string).collect();
            return format!("one of {}", names.join(" | "));
        }
        match node.get("type").and_then(Value::as_str) {
            Some("array") => format!("array of {}", kind(&node["items"], root)),
            Some("object") | None if node.get("properties").is_some() => {
                let names: Vec<&str> = node["properties"]
                    .as_object()
                    .map(|p| p.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                format!("object {{{}}}", names.join(", "))
            }
            Some(t) => match (node.get("minLength"), node.get("maxLength")) {
                (Some(lo), Some(hi)) => format!("{t} of {lo} to {hi} characters"),
                _ => t.to_owned(),
            },
            None => "any JSON value".to_owned(),
        }
    }
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    schema["properties"]
        .as_object()
        .map(|props| {
            props
                .iter()
                .map(|(name, p)| {
                    let mark = if required.contains(&name.as_str()) {
                        " (required)"
                    } else {
                        ""
                    };
                    format!("  {name}: {}{mark}", kind(p, schema))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn main() {
    let schema = UpsertEntry::published_schema();
    println!(
        "published inputSchema of `upsert_entry` (short; full: `UpsertEntry::published_schema()`):"
    );
    for line in short(&schema) {
        println!("{line}");
    }
    let violations = toolschema::contract::check(&schema);
    for v in &violations {
        println!("{}: {v}", v.kind);
    }
    match UpsertEntry::check_contract() {
        Ok(()) => println!("contract: ok ({} warnings)\n", violations.len()),
        Err(e) => {
            println!("contract: FAILED\n{e}");
            std::process::exit(1);
        }
    }

    // What each provider is sent, and what it no longer enforces.
    println!(
        "| {:<16} | {:<66} | {:<8} | {:<22} | first loss",
        "target", "strict", "fallback", "losses"
    );
    println!(
        "|{:-<18}|{:-<68}|{:-<10}|{:-<24}|{:-<40}",
        "", "", "", "", ""
    );
    for &target in Target::ALL {
        let adapted = UpsertEntry::schema_for(target);
        let refusal = adapted
            .losses
            .iter()
            .find(|l| l.kind == LossKind::Fallback && l.keyword == "strict");
        let strict = match (adapted.strict, refusal) {
            (None, _) => "no strict flag".to_owned(),
            (Some(true), _) => "sent strict".to_owned(),
            (Some(false), Some(why)) if target.wants_strict() => {
                // "strict mode cannot represent this schema (at P: reason); sent non-strict"
                let reason = why
                    .detail
                    .split_once(": ")
                    .map_or(why.detail.as_str(), |(_, r)| r)
                    .trim_end_matches("; sent non-strict")
                    .trim_end_matches(')');
                // The field it is about: the last step of the position named.
                let field = why
                    .detail
                    .split_once("(at ")
                    .and_then(|(_, r)| r.split_once(':'))
                    .map_or("", |(p, _)| p.rsplit('/').next().unwrap_or_default());
                let short: String = reason.chars().take(48).collect();
                let more = if reason.chars().count() > 48 {
                    "…"
                } else {
                    ""
                };
                format!("no, `{field}`: {short}{more}")
            }
            (Some(false), _) => "not requested".to_owned(),
        };
        let mut by_kind: BTreeMap<String, usize> = BTreeMap::new();
        for loss in &adapted.losses {
            *by_kind
                .entry(format!("{:?}", loss.kind).to_lowercase())
                .or_default() += 1;
        }
        let losses = if by_kind.is_empty() {
            "none".to_owned()
        } else {
            by_kind
                .iter()
                .map(|(k, n)| format!("{n} {k}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let first = adapted
            .losses
            .iter()
            .find(|l| l.keyword != "strict")
            .map_or(String::new(), |l| {
                let at = if l.pointer.is_empty() {
                    "(root)"
                } else {
                    &l.pointer
                };
                let detail: String = l.detail.chars().take(90).collect();
                let more = if l.detail.chars().count() > 90 {
                    "…"
                } else {
                    ""
                };
                format!("{at}: {detail}{more}")
            });
        println!(
            "| {:<16} | {:<66} | {:<8} | {:<22} | {first}",
            target.as_str(),
            strict,
            if adapted.fallback { "yes" } else { "no" },
            losses
        );
    }

    // The seed's incident: a string sent for an asset field. Rejected, not stored.
    let call = serde_json::json!({
        "entry_id": "home",
        "field_values": [{"field": "image", "kind": "asset", "value": "549895"}]
    });
    let args: UpsertEntry = serde_json::from_value(call).expect("the call matches the schema");
    match validate(&args) {
        Ok(()) => println!(
            "\nserver check of a sample call: would write entry `{}`",
            args.entry_id
        ),
        Err(e) => println!(
            "\nserver check of a sample call (an asset field sent a plain string; dry_run: {}):\n{e}",
            args.dry_run
        ),
    }
}
