//! The local grammar engines (issue 65): one test per documented way llama.cpp's converter fails
//! a request or skips a constraint. Each input fails the validator written from the converter's
//! source (`toolschema_tests::grammars`), its adaptation passes it, and the report says what
//! changed. Sources: `common/json-schema-to-grammar.cpp` (commit 011c6c3c) and
//! `src/llama-grammar.cpp` (commit 04332939); llama.cpp issues #16714, #22314, #27397 (escapes),
//! #25746, #26596 (repetitions), #17574 and oh-my-pi #5914 (boolean subschemas).

use serde_json::{Value, json};
use toolschema::adapt::LossKind;
use toolschema::{Adapted, Target};
use toolschema_tests::grammars::llama_cpp;

fn problems(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    llama_cpp(schema, &mut out);
    out
}

/// The input fails the validator with a problem containing `refused`, the output passes.
fn fixed(schema: Value, refused: &str) -> Adapted<'static> {
    let before = problems(&schema);
    assert!(
        before.iter().any(|p| p.contains(refused)),
        "the input should be refused ({refused}): {before:#?}"
    );
    let adapted = Target::LlamaCpp.adapt(&schema).into_owned();
    let after = problems(&adapted.schema);
    assert!(after.is_empty(), "{after:#?}\n{:#}", adapted.schema);
    adapted
}

fn object(property: Value) -> Value {
    json!({"type": "object", "properties": {"p": property}, "required": ["p"], "additionalProperties": false})
}

/// "Pattern must start with '^' and end with '$'": anchored with the same meaning (any
/// characters before and after), a change.
#[test]
fn an_unanchored_pattern_is_anchored() {
    let a = fixed(
        object(json!({"type": "string", "pattern": "[0-9]+"})),
        "Pattern must start",
    );
    let p = a.schema["properties"]["p"]["pattern"].as_str().unwrap();
    assert!(p.starts_with('^') && p.ends_with('$'), "{p}");
    let re = regress::Regex::new(p).unwrap();
    assert!(re.find("ab 12 cd").is_some() && re.find("abcd").is_none());
    assert!(
        a.changes.iter().any(
            |c| c.rule == "llama-cpp-patterns" && c.pointer.as_str() == "/properties/p/pattern"
        )
    );
    assert!(a.losses.is_empty(), "{:#?}", a.losses);
}

/// "unknown escape at \d" (#16714, #22314): `\d`, `\w`, `\s` become classes; `\b` cannot, so
/// the pattern is spilled.
#[test]
fn escapes_the_grammar_parser_refuses_are_rewritten_or_spilled() {
    let a = fixed(
        object(json!({"type": "string", "pattern": r"^\w+@\d{2}\s?$"})),
        "unknown escape",
    );
    assert_eq!(
        a.schema["properties"]["p"]["pattern"],
        json!(
            r"^[a-zA-Z0-9_]+@[0-9]{2}[\t\n\x0B\x0C\r \u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF]?$"
        )
    );
    let a = fixed(
        object(json!({"type": "string", "pattern": r"^\bword\b$"})),
        "unknown escape",
    );
    assert!(a.schema["properties"]["p"].get("pattern").is_none());
    let loss = a.losses.iter().find(|l| l.keyword == "pattern").unwrap();
    assert_eq!(loss.kind, LossKind::Spilled);
    assert!(
        a.schema["properties"]["p"]["description"]
            .as_str()
            .unwrap()
            .contains(r"\bword\b")
    );
}

/// Lookaround is skipped with only a warning ("Unsupported pattern syntax"): spilled.
#[test]
fn lookaround_is_spilled_not_skipped() {
    let a = fixed(
        object(json!({"type": "string", "pattern": "^(?!admin).+$"})),
        "Unsupported pattern syntax",
    );
    assert!(
        a.losses
            .iter()
            .any(|l| l.keyword == "pattern" && l.detail.contains("lookaround"))
    );
}

/// A repetition of 2000 or more is refused by the grammar parser ("number of rules that are
/// going to be repeated ... exceeds sane defaults", #25746): the length is spilled.
#[test]
fn a_length_at_the_repetition_limit_is_spilled() {
    let a = fixed(
        object(json!({"type": "string", "maxLength": 2000})),
        "exceeds sane defaults",
    );
    assert_eq!(
        a.schema["properties"]["p"],
        json!({"type": "string", "description": "At most 2000 characters."})
    );
    let loss = a.losses.iter().find(|l| l.keyword == "maxLength").unwrap();
    assert_eq!(loss.kind, LossKind::Spilled);
    assert!(loss.detail.contains("2000"), "{}", loss.detail);
    let a = fixed(
        object(json!({"type": "array", "items": {"type": "string"}, "minItems": 2500})),
        "exceeds sane defaults",
    );
    assert!(a.losses.iter().any(|l| l.keyword == "minItems"));
}

/// A boolean subschema: "Unrecognized schema: true" (#17574): given every type (and `false`,
/// which matches nothing, is reported as the `not` it becomes, dropped).
#[test]
fn boolean_subschemas_are_replaced() {
    let a = fixed(
        json!({"type": "object", "properties": {"any": true, "none": false}, "additionalProperties": false}),
        "Unrecognized schema: true",
    );
    assert_eq!(
        a.schema["properties"]["any"]["type"]
            .as_array()
            .map(Vec::len),
        Some(7)
    );
    assert!(
        a.losses.iter().any(|l| l.keyword == "not"),
        "{:#?}",
        a.losses
    );
}

/// `$ref` outside the document ("Unsupported ref"): every reference is inlined, an unresolved
/// one dropped with a loss.
#[test]
fn references_are_inlined() {
    let a = fixed(
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "other.json#/B"}},
               "additionalProperties": false, "$defs": {"A": {"type": "integer"}}}),
        "Unsupported ref",
    );
    assert_eq!(a.schema["properties"]["a"], json!({"type": "integer"}));
    assert!(
        a.losses.iter().any(|l| l.keyword == "$ref"),
        "{:#?}",
        a.losses
    );
}

/// Keywords the converter skips without a word (number bounds, `uniqueItems`, `not`, formats
/// other than its four, lengths beside a `pattern`): spilled or dropped, each a loss.
#[test]
fn skipped_keywords_are_reported() {
    let schema = json!({"type": "object", "additionalProperties": false, "properties": {
        "n": {"type": "number", "minimum": 0, "multipleOf": 0.5},
        "u": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
        "e": {"type": "string", "format": "email"},
        "s": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 8},
        "x": {"type": "string", "not": {"const": "root"}}
    }});
    let a = fixed(schema, "is skipped by the converter here");
    for keyword in [
        "minimum",
        "multipleOf",
        "uniqueItems",
        "format",
        "maxLength",
        "not",
    ] {
        assert!(
            a.losses.iter().any(|l| l.keyword == keyword),
            "{keyword}: {:#?}",
            a.losses
        );
    }
    assert_eq!(a.schema["properties"]["s"]["pattern"], "^[a-z]+$");
}

/// An object whose `additionalProperties` is absent: the grammar closes it, a `closed` loss,
/// and the output says so.
#[test]
fn an_object_left_open_is_reported_closed() {
    let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    let a = Target::LlamaCpp.adapt(&schema);
    assert_eq!(a.schema["additionalProperties"], false);
    assert!(
        a.losses
            .iter()
            .any(|l| l.kind == LossKind::Closed && l.pointer.as_str() == "")
    );
    assert!(problems(&a.schema).is_empty());
}

/// Keywords beside an `anyOf` are skipped (the converter reads the union alone): moved into
/// each branch, where they hold the same.
#[test]
fn keywords_beside_a_union_move_into_its_branches() {
    let schema = json!({"type": "object", "additionalProperties": false,
        "properties": {"id": {"type": "string"}, "name": {"type": "string"}},
        "anyOf": [{"required": ["id"]}, {"required": ["name"]}]});
    let a = fixed(schema, "`properties` is skipped");
    for (i, name) in ["id", "name"].iter().enumerate() {
        let b = &a.schema["anyOf"][i];
        assert_eq!(b["required"], json!([name]));
        assert_eq!(b["properties"]["name"], json!({"type": "string"}));
        assert_eq!(b["additionalProperties"], false);
    }
    assert_eq!(a.schema["type"], "object");
}

/// The issue's catalog: one tool with an unanchored pattern, one with `maxLength: 5000` (which
/// the parser would silently leave unbounded); the request converts and the report names both.
#[test]
fn a_catalog_with_an_unanchored_pattern_and_a_long_string_converts() {
    let catalog = toolschema::catalog::Catalog::from_value(json!({"tools": [
        {"name": "lookup", "description": "Look a ticket up",
         "inputSchema": {"type": "object", "properties": {"ticket": {"type": "string", "pattern": "[A-Z]+-[0-9]+"}}, "required": ["ticket"]}},
        {"name": "write", "description": "Write a note",
         "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "maxLength": 5000}}, "required": ["text"]}}
    ]}))
    .unwrap();
    let converted = toolschema::adapt::convert(&catalog, Target::LlamaCpp);
    // The catalog's report (losses): the long string's bound, spilled.
    let text = serde_json::to_string(&converted.report).unwrap();
    assert!(text.contains("/properties/text/maxLength"), "{text}");
    // Each tool's whole report (`adapt --report`): the pattern's rewrite is a change.
    let lookup = json!({"type": "object", "properties": {"ticket": {"type": "string", "pattern": "[A-Z]+-[0-9]+"}}, "required": ["ticket"]});
    let a = Target::LlamaCpp.adapt(&lookup);
    assert!(
        a.changes
            .iter()
            .any(|c| c.pointer.as_str() == "/properties/ticket/pattern"),
        "{:#?}",
        a.changes
    );
    let mut seen = 0;
    for tool in converted.declarations.as_array().unwrap() {
        let parameters = &tool["function"]["parameters"];
        assert!(problems(parameters).is_empty(), "{tool:#}");
        seen += 1;
    }
    assert_eq!(seen, 2);
}

/// `llama-server` is the same target.
#[test]
fn the_server_name_is_an_alias() {
    assert_eq!("llama-server".parse::<Target>().unwrap(), Target::LlamaCpp);
}

/// llguidance with lenient off, its own compiler as the validator: the input is refused, the
/// output compiles without an error or a warning, and the report names what changed.
fn llguidance_fixed(schema: Value, refused: &str) -> Adapted<'static> {
    let mut before = Vec::new();
    toolschema_tests::grammars::llguidance(&schema, &mut before);
    assert!(
        before.iter().any(|p| p.contains(refused)),
        "the input should be refused ({refused}): {before:#?}"
    );
    let adapted = Target::Llguidance.adapt(&schema).into_owned();
    let mut after = Vec::new();
    toolschema_tests::grammars::llguidance(&adapted.schema, &mut after);
    assert!(after.is_empty(), "{after:#?}\n{:#}", adapted.schema);
    adapted
}

/// "Unimplemented keys" (`uniqueItems`, `not`): spilled or dropped, each a loss.
#[test]
fn llguidance_unimplemented_keywords_are_reported() {
    let a = llguidance_fixed(
        object(
            json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true, "not": {"maxItems": 0}}),
        ),
        "Unimplemented keys",
    );
    for keyword in ["uniqueItems", "not"] {
        assert!(
            a.losses.iter().any(|l| l.keyword == keyword),
            "{keyword}: {:#?}",
            a.losses
        );
    }
}

/// "Unknown format": a format outside its list is spilled; one it knows is kept.
#[test]
fn llguidance_unknown_formats_are_spilled() {
    let schema = json!({"type": "object", "additionalProperties": false, "properties": {
        "ip": {"type": "string", "format": "idn-email"},
        "at": {"type": "string", "format": "date-time"}
    }});
    let a = llguidance_fixed(schema, "Unknown format");
    assert!(a.schema["properties"]["ip"].get("format").is_none());
    assert_eq!(a.schema["properties"]["at"]["format"], "date-time");
    assert!(
        a.losses
            .iter()
            .any(|l| l.keyword == "format" && l.kind == LossKind::Spilled)
    );
}

/// "oneOf constraints are not supported": read as `anyOf`, widened where branches overlap.
#[test]
fn llguidance_one_of_becomes_any_of() {
    let a = llguidance_fixed(
        object(json!({"oneOf": [{"type": "string"}, {"type": "string", "minLength": 3}]})),
        "oneOf constraints are not supported",
    );
    assert!(a.schema["properties"]["p"].get("anyOf").is_some());
    assert!(a.losses.iter().any(|l| l.kind == LossKind::Widened));
}

/// "look-around ... is not supported" (its regex parser): spilled.
#[test]
fn llguidance_lookaround_is_spilled() {
    let a = llguidance_fixed(
        object(json!({"type": "string", "pattern": "^(?!admin).+$"})),
        "look-around, including look-ahead and look-behind, is not supported",
    );
    assert!(
        a.losses
            .iter()
            .any(|l| l.keyword == "pattern" && l.detail.contains("lookaround"))
    );
}
