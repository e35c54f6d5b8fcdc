//! The main job on a bundled example: derive a tool's parameters, print the schema a server
//! publishes for them, and the contract check's result.
//!
//! ```text
//! cargo run --example publish
//! ```

use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ArgsError, ProviderSafe, ToolParams};

/// The kind of a content field. Written as a unit enum, not as a union of one object per kind:
/// clients that keep only the first branch of a union would make all but one kind unwritable.
#[derive(Debug, Deserialize, JsonSchema, ProviderSafe)]
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
                    "must be {what}, as the field `{}` is of kind {:?}",
                    fv.field, fv.kind
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

fn main() {
    let schema = UpsertEntry::published_schema();
    println!("published inputSchema of `upsert_entry`:");
    println!(
        "{}",
        serde_json::to_string_pretty(&schema).expect("a Value serializes")
    );
    let violations = toolschema::contract::check(&schema);
    for v in &violations {
        println!("{}: {v}", v.kind);
    }
    // The seed's incident: a string sent for an asset field. Rejected, not stored.
    let call = serde_json::json!({
        "entry_id": "home",
        "field_values": [{"field": "image", "kind": "asset", "value": "549895"}]
    });
    let args: UpsertEntry = serde_json::from_value(call).expect("the call matches the schema");
    match validate(&args) {
        Ok(()) => println!(
            "server check of a sample call: would write entry `{}`",
            args.entry_id
        ),
        Err(e) => println!(
            "server check of a sample call (dry_run: {}):\n{e}",
            args.dry_run
        ),
    }
    match UpsertEntry::check_contract() {
        Ok(()) => println!("contract: ok ({} warnings)", violations.len()),
        Err(e) => {
            println!("contract: FAILED\n{e}");
            std::process::exit(1);
        }
    }
}
