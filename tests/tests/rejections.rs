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
    // Repaired before any rule of the target: draft-04's form is not valid 2020-12.
    assert!(
        (a.changes.iter()).any(|c| c.rule == "valid-keywords" && c.detail.contains("draft-04")),
        "{:#?}",
        a.changes
    );
    // The input itself fails the validator: the test can fail.
    assert!(!validate(Target::Mistral, &schema, None).is_empty());
}

/// Ollama drops, without an error, every keyword its request types do not name ([OLLAMA-TYPES]:
/// `format`, `pattern`, `minimum`, `$ref`, `default`, `const`, `additionalProperties`, `oneOf`,
/// `allOf` among them): each is in the description in words or reported dropped, `const` and
/// `oneOf` are rewritten into what Ollama reads, references are inlined, and an open
/// subschema (`true`) names every type instead of failing to decode.
#[test]
fn ollama_keeps_only_what_its_types_read() {
    let schema = json!({"type": "object", "properties": {
        "when": {"type": "string", "format": "date-time", "pattern": "^2"},
        "count": {"type": "integer", "minimum": 1, "default": 10},
        "mode": {"const": "fast"},
        "pick": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        "both": {"allOf": [{"type": "object", "properties": {"x": {"type": "string"}}}]},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "node": {"$ref": "#/$defs/Node"},
        "any": true
    }, "required": ["when"],
    "$defs": {"Node": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 9}}}}});
    assert!(!validate(Target::Ollama, &schema, None).is_empty());
    let a = Target::Ollama.adapt(&schema);
    valid(Target::Ollama, &a);
    let p = &a.schema["properties"];
    assert_eq!(
        p["when"],
        json!({"type": "string", "description": "In date-time format; matching the pattern `^2`."})
    );
    assert_eq!(
        p["count"],
        json!({"type": "integer", "description": "At least 1; defaults to 10."})
    );
    assert_eq!(p["mode"], json!({"type": "string", "enum": ["fast"]}));
    assert_eq!(
        p["pick"],
        json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})
    );
    assert_eq!(p["both"]["properties"]["x"], json!({"type": "string"}));
    assert_eq!(p["labels"], json!({"type": "object"}));
    assert_eq!(
        p["node"]["properties"]["name"],
        json!({"type": "string", "description": "At most 9 characters."})
    );
    assert_eq!(p["any"]["type"].as_array().map(Vec::len), Some(7));
    let reported: Vec<(&str, LossKind)> =
        (a.losses.iter()).map(|l| (&*l.keyword, l.kind)).collect();
    for expected in [
        ("format", LossKind::Spilled),
        ("pattern", LossKind::Spilled),
        ("minimum", LossKind::Spilled),
        ("default", LossKind::Spilled),
        ("maxLength", LossKind::Spilled),
        ("additionalProperties", LossKind::Dropped),
    ] {
        assert!(reported.contains(&expected), "{expected:?} in {reported:?}");
    }
}

/// Moonshot refuses a reference outside `#/$defs/` ("references must start with #/$defs/",
/// [ERR-MOONSHOT]): such a reference is inlined, reported; references under `#/$defs/` stay. The
/// reference implementation's other Moonshot rules hold too: no `oneOf`, no list of types, enums
/// of strings and numbers only.
#[test]
fn moonshot_references_start_with_defs() {
    let outside = json!({"type": "object", "properties": {
        "a": {"type": "object", "properties": {"x": {"type": "string"}}},
        "b": {"$ref": "#/properties/a"},
        "n": {"type": ["integer", "null"]},
        "e": {"enum": [1, "one", true]},
        "u": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
    }});
    assert!(!validate(Target::Moonshot, &outside, None).is_empty());
    let a = Target::Moonshot.adapt(&outside);
    valid(Target::Moonshot, &a);
    let p = &a.schema["properties"];
    assert_eq!(p["b"], p["a"]);
    assert_eq!(
        p["n"],
        json!({"anyOf": [{"type": "integer"}, {"type": "null"}]})
    );
    assert_eq!(p["e"]["description"], "One of 1, \"one\", true.");
    assert!(
        a.losses
            .iter()
            .any(|l| l.keyword == "enum" && l.kind == LossKind::Spilled)
    );
    // Under `#/$defs/`, references and definitions are sent as they are.
    let under = json!({"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}},
                       "$defs": {"B": {"type": "string"}}});
    let a = Target::Moonshot.adapt(&under);
    valid(Target::Moonshot, &a);
    assert_eq!(a.schema, under);
}

/// Bedrock Converse: a tool is `{"toolSpec": {"name", "description", "inputSchema": {"json"}}}`
/// ([BR-TS]), its name 1–64 characters of `[a-zA-Z0-9_-]` (a name with `.` or `/` is renamed,
/// reported), and "the top level schema type must be object" ([BR-TIS]: a non-object root gets
/// the empty object, reported as a fallback). The keywords are Claude's rules by default
/// (top-level `anyOf` merged away).
#[test]
fn bedrock_sends_tool_specs_with_object_roots_and_plain_names() {
    let catalog = toolschema::catalog::Catalog::from_value(json!([
        {"name": "files.read/v2", "description": "Read a file.",
         "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
        {"name": "count", "inputSchema": {"type": "integer"}},
        {"name": "either", "inputSchema": {"anyOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}},
            {"type": "object", "properties": {"b": {"type": "string"}}}
        ]}}
    ]))
    .unwrap();
    let converted = toolschema::adapt::convert(&catalog, Target::Bedrock);
    let specs = converted.declarations.as_array().unwrap();
    let name = specs[0]["toolSpec"]["name"].as_str().unwrap();
    assert!(
        !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
        "{name}"
    );
    assert_eq!(
        converted.report.tools[0].renamed_from.as_deref(),
        Some("files.read/v2")
    );
    assert_eq!(specs[0]["toolSpec"]["description"], "Read a file.");
    for (i, spec) in specs.iter().enumerate() {
        let schema = &spec["toolSpec"]["inputSchema"]["json"];
        assert_eq!(schema["type"], "object", "{spec}");
        let problems = validate(Target::Bedrock, schema, None);
        assert!(problems.is_empty(), "{i}: {problems:?}");
        assert!(spec.get("strict").is_none() && spec["toolSpec"].get("strict").is_none());
    }
    assert!(converted.report.tools[1].fallback);
    assert!(
        specs[2]["toolSpec"]["inputSchema"]["json"]
            .get("anyOf")
            .is_none()
    );
}

/// Bedrock for another model family takes that family's keyword rules with Bedrock's wire form
/// (Mistral's: `$id` removed), and reports under the name `bedrock`.
#[test]
fn bedrock_for_another_family_uses_its_rules() {
    let settings = toolschema::adapt::AdaptSettings::bedrock_for(Target::Mistral);
    assert_eq!(settings.target, Target::Bedrock);
    assert_eq!(settings.wire, toolschema::adapt::Wire::Bedrock);
    let schema = json!({"type": "object", "$id": "x", "properties": {}});
    let a = settings.adapt(&schema);
    assert!(a.schema.get("$id").is_none(), "{}", a.schema);
    assert!(a.losses.iter().any(|l| l.keyword == "$id"));
}

/// xAI refuses with a 400 ([XAI-SO]) an empty `enum`/`anyOf`, a `true`/`false` property schema,
/// `minContains`/`maxContains`, `items` as an array, and circular references; it enforces only
/// eight formats, an ECMA-262 subset of patterns and bounds up to its thresholds. With no
/// fallback form, each is brought to the nearest accepted form at its node, reported.
#[test]
fn xai_degrades_at_the_node_what_its_subset_refuses() {
    let schema = json!({"type": "object", "properties": {
        "empty": {"type": "string", "enum": []},
        "anything": true,
        "tags": {"type": "array", "items": {"type": "string"}, "contains": {"const": "a"}, "minContains": 1},
        "pair": {"type": "array", "items": [{"type": "string"}, {"type": "string"}]},
        "host": {"type": "string", "format": "hostname"},
        "day": {"type": "string", "format": "date"},
        "word": {"type": "string", "pattern": "^(?!x)\\w+\\b"},
        "code": {"type": "string", "pattern": "^[A-Z]{3}$", "maxLength": 3},
        "essay": {"type": "string", "maxLength": 100000},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "tree": {"$ref": "#/$defs/Node"}
    }, "required": ["empty"],
    "$defs": {"Node": {"type": "object", "properties": {
        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
    }}}});
    assert!(!validate(Target::Xai, &schema, None).is_empty());
    let a = Target::Xai.adapt(&schema);
    valid(Target::Xai, &a);
    assert_eq!(a.strict, None, "no strict flag: xAI is always strict");
    let p = &a.schema["properties"];
    assert_eq!(p["empty"], json!({"type": "string"}));
    assert!(p["anything"].is_object());
    assert!(p["tags"].get("minContains").is_none());
    assert_eq!(p["pair"]["items"], json!({"type": "string"}));
    assert_eq!(p["host"]["description"], "In hostname format.");
    assert_eq!(p["day"]["format"], "date");
    assert!(p["word"].get("pattern").is_none());
    assert_eq!(p["code"]["pattern"], "^[A-Z]{3}$");
    assert_eq!(p["code"]["maxLength"], 3);
    assert_eq!(p["essay"]["description"], "At most 100000 characters.");
    assert_eq!(p["labels"]["additionalProperties"], json!(true));
    assert!(a.schema.get("$defs").is_none() && !a.schema.to_string().contains("$ref"));
    let reported: Vec<(&str, LossKind)> =
        (a.losses.iter()).map(|l| (&*l.keyword, l.kind)).collect();
    for expected in [
        ("enum", LossKind::Widened),
        ("minContains", LossKind::Spilled),
        ("format", LossKind::Spilled),
        ("pattern", LossKind::Spilled),
        ("maxLength", LossKind::Spilled),
        ("additionalProperties", LossKind::Dropped),
        ("$ref", LossKind::Inlined),
    ] {
        assert!(reported.contains(&expected), "{expected:?} in {reported:?}");
    }
}
