//! The main job on a bundled example: derive a tool's parameters, print the schema a server
//! publishes for them (short), the contract check's result, and one row per provider: how the
//! tool is sent (strict, non-strict and why, or the empty object of the per-tool fallback), what
//! that provider no longer enforces, and the first such loss, with every long text whole in the
//! notes below the table; then the server-side check of a wrong sample call.
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

/// One row of the table: target, how the tool is sent, its losses, its first loss. Long texts
/// are notes below the table (`[1]`), whole: no cell is cut.
type Row = [String; 4];

/// The rows, and the notes they refer to (each text once, in order of first use).
fn table(adapted: &[(Target, toolschema::adapt::Adapted<'_>)]) -> (Vec<Row>, Vec<String>) {
    let mut notes: Vec<String> = Vec::new();
    let mut note = |text: &str| {
        let n = match notes.iter().position(|t| t == text) {
            Some(i) => i + 1,
            None => {
                notes.push(text.to_owned());
                notes.len()
            }
        };
        format!("[{n}]")
    };
    let mut rows = Vec::new();
    for (target, adapted) in adapted {
        // The strict refusal says how the tool is sent; the other entries are its losses.
        let refusal =
            (adapted.losses.iter()).find(|l| l.kind == LossKind::Fallback && l.keyword == "strict");
        let fallback =
            (adapted.losses.iter()).find(|l| l.kind == LossKind::Fallback && l.keyword == "root");
        let sent = match (adapted.fallback, adapted.strict, refusal) {
            (true, _, _) => format!(
                "empty object: the tool fell back {}",
                note(fallback.map_or("", |l| l.detail.as_str()))
            ),
            (false, Some(true), _) => "strict".to_owned(),
            (false, _, Some(why)) => format!("non-strict: strict refused {}", note(&why.detail)),
            (false, Some(false), None) => "non-strict (strict not requested)".to_owned(),
            (false, None, _) => "adapted (the provider has no strict mode)".to_owned(),
        };
        let losses: Vec<_> = (adapted.losses.iter())
            .filter(|l| l.kind != LossKind::Fallback)
            .collect();
        let mut by_kind: BTreeMap<String, usize> = BTreeMap::new();
        for loss in &losses {
            *by_kind
                .entry(format!("{:?}", loss.kind).to_lowercase())
                .or_default() += 1;
        }
        let counted = if by_kind.is_empty() {
            "none".to_owned()
        } else {
            (by_kind.iter())
                .map(|(k, n)| format!("{n} {k}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let first = losses.first().map_or("none".to_owned(), |l| {
            let at = if l.pointer.is_empty() {
                "(root)"
            } else {
                &l.pointer
            };
            format!(
                "`{}` {} {}",
                at,
                format!("{:?}", l.kind).to_lowercase(),
                note(&l.detail)
            )
        });
        rows.push([target.as_str().to_owned(), sent, counted, first]);
    }
    (rows, notes)
}

/// The table as Markdown, each column as wide as its widest cell, then the notes.
fn render(rows: &[Row], notes: &[String]) -> String {
    let header: Row = ["target", "sent as", "losses", "first loss"].map(str::to_owned);
    let width = |c: usize| {
        (rows.iter().chain([&header]))
            .map(|r| r[c].chars().count())
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..4).map(width).collect();
    let line = |r: &Row| {
        let cells: Vec<String> = (r.iter().zip(&widths))
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        format!("| {} |\n", cells.join(" | "))
    };
    let mut out = line(&header);
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    out.push_str(&format!("|-{}-|\n", rule.join("-|-")));
    for r in rows {
        out.push_str(&line(r));
    }
    out.push('\n');
    for (i, text) in notes.iter().enumerate() {
        out.push_str(&format!("[{}] {text}\n", i + 1));
    }
    out
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
    let (rows, notes) = table(
        &Target::ALL
            .iter()
            .map(|&t| (t, UpsertEntry::schema_for(t)))
            .collect::<Vec<_>>(),
    );
    print!("{}", render(&rows, &notes));

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

#[cfg(test)]
mod tests {
    use super::*;

    /// The table, cell by cell, against the adaptations it reports (issue 49: a `fallback` column
    /// said `no` beside `1 fallback`, a reason was cut mid-word, "first loss" was empty).
    #[test]
    fn every_cell_says_what_its_adaptation_did() {
        let adapted: Vec<_> = (Target::ALL.iter())
            .map(|&t| (t, UpsertEntry::schema_for(t)))
            .collect();
        let (rows, notes) = table(&adapted);
        assert_eq!(rows.len(), Target::ALL.len());
        let note = |cell: &str| -> &str {
            let n: usize = cell
                .rsplit_once('[')
                .and_then(|(_, n)| n.strip_suffix(']'))
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("no note in {cell}"));
            &notes[n - 1]
        };
        for ((target, a), row) in adapted.iter().zip(&rows) {
            assert_eq!(row[0], target.as_str());
            let refusal =
                (a.losses.iter()).find(|l| l.kind == LossKind::Fallback && l.keyword == "strict");
            match (a.strict, refusal) {
                (Some(true), _) => assert_eq!(row[1], "strict"),
                (_, Some(why)) => {
                    assert!(
                        row[1].starts_with("non-strict: strict refused ["),
                        "{row:?}"
                    );
                    assert_eq!(note(&row[1]), why.detail, "the reason, whole");
                }
                (Some(false), None) => assert_eq!(row[1], "non-strict (strict not requested)"),
                (None, _) => assert_eq!(row[1], "adapted (the provider has no strict mode)"),
            }
            let losses: Vec<_> = (a.losses.iter())
                .filter(|l| l.kind != LossKind::Fallback)
                .collect();
            match losses.first() {
                None => {
                    assert_eq!(row[2], "none");
                    assert_eq!(row[3], "none");
                }
                Some(first) => {
                    let total: usize = (row[2].split(", "))
                        .map(|c| c.split(' ').next().unwrap().parse::<usize>().unwrap())
                        .sum();
                    assert_eq!(total, losses.len(), "{row:?}");
                    let shown = if first.pointer.is_root() {
                        "(root)".to_owned()
                    } else {
                        first.pointer.to_string()
                    };
                    assert!(row[3].starts_with(&format!("`{shown}`")), "{row:?}");
                    assert_eq!(note(&row[3]), first.detail, "the detail, whole");
                }
            }
            for cell in row {
                assert!(!cell.is_empty() && !cell.contains('…'), "{row:?}");
            }
        }
        // The strict targets refuse this tool (its `value` is untyped): the table says so.
        let refused: Vec<&str> = rows
            .iter()
            .filter(|r| r[1].contains("strict refused"))
            .map(|r| r[0].as_str())
            .collect();
        assert_eq!(
            refused,
            [
                "openai-strict",
                "openai-responses",
                "anthropic-strict",
                "deepseek-strict"
            ],
            "{rows:?}"
        );
    }
}
