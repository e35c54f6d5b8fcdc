//! One test per documented rejection of the providers added in issue 47: the input a provider
//! refuses (its documentation or a reported error, cited), adapted for it, no longer holds what
//! was refused, passes the provider's validator, and says in its report what it changed.

use serde_json::{Value, json};
use toolschema::Target;
use toolschema::adapt::LossKind;
use toolschema_tests::validators::validate;

/// Every key anywhere in the schema.
fn keys(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![schema];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                out.extend(m.keys().cloned());
                stack.extend(m.values());
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
    out
}

fn valid(target: Target, adapted: &toolschema::Adapted) {
    let problems = validate(target, &adapted.schema, adapted.strict);
    assert!(
        problems.is_empty(),
        "{target}: {problems:#?}\n{:#}",
        adapted.schema
    );
}

/// DeepSeek strict mode lists `minLength`/`maxLength` and `minItems`/`maxItems` as unsupported
/// and five string formats ([DS-FC]): they are spilled into the description, and the tool stays
/// strict; recursion through `$defs` is allowed and stays strict too.
#[test]
fn deepseek_strict_spills_lengths_counts_and_other_formats() {
    let schema = json!({"type": "object", "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 40},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 5},
        "when": {"type": "string", "format": "date-time"},
        "mail": {"type": "string", "format": "email"},
        "size": {"type": "number", "minimum": 0, "multipleOf": 0.5},
        "tree": {"$ref": "#/$defs/Node"}
    }, "required": ["name", "tags", "when", "mail", "size", "tree"],
    "$defs": {"Node": {"type": "object", "properties": {
        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
    }, "required": ["children"]}}});
    let a = Target::DeepSeekStrict.adapt(&schema);
    assert_eq!(a.strict, Some(true), "{:#?}", a.losses);
    valid(Target::DeepSeekStrict, &a);
    let p = &a.schema["properties"];
    assert_eq!(
        p["name"],
        json!({"type": "string", "description": "At least 1 character; at most 40 characters."})
    );
    assert_eq!(
        p["tags"]["description"],
        "At least 1 item; at most 5 items."
    );
    assert_eq!(p["when"]["description"], "In date-time format.");
    // What DeepSeek enforces is sent.
    assert_eq!(p["mail"]["format"], "email");
    assert_eq!(p["size"]["minimum"], 0);
    assert_eq!(p["size"]["multipleOf"], 0.5);
    assert_eq!(p["tree"], json!({"$ref": "#/$defs/Node"}));
    let spilled: Vec<&str> = (a.losses.iter())
        .filter(|l| l.kind == LossKind::Spilled)
        .map(|l| &*l.keyword)
        .collect();
    assert_eq!(
        spilled,
        ["minLength", "maxLength", "minItems", "maxItems", "format"]
    );
    // Without strict, DeepSeek takes the schema as written (OpenAI's relaxed form).
    let relaxed = Target::DeepSeek.adapt(&schema);
    assert_eq!(relaxed.strict, Some(false));
    assert_eq!(relaxed.schema["properties"]["name"]["minLength"], 1);
    valid(Target::DeepSeek, &relaxed);
}

/// What DeepSeek strict cannot represent (an open map) fails open to `deepseek`, reported, as
/// OpenAI strict does; the strict flag is then not sent as `true`.
#[test]
fn deepseek_strict_fails_open() {
    let schema = json!({"type": "object", "properties": {
        "labels": {"type": "object", "additionalProperties": {"type": "string"}}
    }});
    let a = Target::DeepSeekStrict.adapt(&schema);
    assert_ne!(a.strict, Some(true));
    assert!(
        a.losses
            .iter()
            .any(|l| l.kind == LossKind::Fallback || l.rule == "fail-open"),
        "{:#?}",
        a.losses
    );
    assert_eq!(a.schema, Target::DeepSeek.adapt(&schema).schema);
    valid(Target::DeepSeekStrict, &a);
}

/// Mistral refused a draft-04 boolean `exclusiveMinimum: true` ("is not valid under any of the
/// given schemas", [ERR-MI-SCHEMA]) and stopped accepting `$id` and `$schema` ("failed to
/// compile JSON schema", [ERR-MI-ID]): the bound becomes the number later drafts take, the
/// identifiers are removed, and the report says so.
#[test]
fn mistral_gets_numeric_bounds_and_no_identifiers() {
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "https://example.com/tool.json",
        "type": "object",
        "properties": {
            "ratio": {"type": "number", "minimum": 0, "exclusiveMinimum": true,
                      "maximum": 1, "exclusiveMaximum": false},
            "inner": {"$id": "inner", "type": "object", "properties": {"x": {"type": "string"}}}
        },
        "required": ["ratio"]
    });
    let a = Target::Mistral.adapt(&schema);
    valid(Target::Mistral, &a);
    let keys = keys(&a.schema);
    assert!(
        !keys.iter().any(|k| k == "$id" || k == "$schema"),
        "{keys:?}"
    );
    assert_eq!(
        a.schema["properties"]["ratio"],
        json!({"type": "number", "exclusiveMinimum": 0, "maximum": 1})
    );
    let dropped: Vec<&str> = (a.losses.iter())
        .filter(|l| l.kind == LossKind::Dropped)
        .map(|l| &*l.keyword)
        .collect();
    assert_eq!(dropped, ["$id", "$id"]);
    assert!(
        (a.changes.iter()).any(|c| c.rule == "draft-04-bounds"),
        "{:#?}",
        a.changes
    );
    // The input itself fails the validator: the test can fail.
    assert!(!validate(Target::Mistral, &schema, None).is_empty());
}
