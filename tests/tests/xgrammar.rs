//! xgrammar (issue 65), as vLLM and SGLang run it: one test per documented way the converter
//! refuses a schema or skips a constraint, and per refusal of vLLM's in front of it. Each input
//! fails the validator written from their source (`toolschema_tests::xgrammar`, citing
//! `cpp/json_schema_converter.cc` and `cpp/regex_converter.cc` at 53da3ff8, and vLLM's
//! `has_xgrammar_unsupported_json_features`), its adaptation passes it, and the report says what
//! changed or was lost.

use serde_json::{Value, json};
use toolschema::adapt::LossKind;
use toolschema::{Adapted, Target};
use toolschema_tests::xgrammar::xgrammar;

fn problems(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    xgrammar(schema, &mut out);
    out
}

/// The input fails the validator with a problem containing `refused`, the output passes.
fn fixed(schema: Value, refused: &str) -> Adapted<'static> {
    let before = problems(&schema);
    assert!(
        before.iter().any(|p| p.contains(refused)),
        "the input should be refused ({refused}): {before:#?}"
    );
    let adapted = Target::Xgrammar.adapt(&schema).into_owned();
    let after = problems(&adapted.schema);
    assert!(after.is_empty(), "{after:#?}\n{:#}", adapted.schema);
    adapted
}

fn object(property: Value) -> Value {
    json!({"type": "object", "properties": {"p": property}, "required": ["p"], "additionalProperties": false})
}

fn lost(a: &Adapted<'_>, keyword: &str) -> LossKind {
    (a.losses.iter())
        .find(|l| l.keyword == keyword)
        .unwrap_or_else(|| panic!("no loss for `{keyword}`: {:#?}", a.losses))
        .kind
}

/// vLLM refuses `multipleOf` ("features not supported by xgrammar"): spilled, so the request
/// reaches xgrammar, and the description still asks for it.
#[test]
fn multiple_of_is_spilled_for_vllm() {
    let a = fixed(
        object(json!({"type": "integer", "multipleOf": 5})),
        "`multipleOf`",
    );
    assert_eq!(lost(&a, "multipleOf"), LossKind::Spilled);
    let d = a.schema["properties"]["p"]["description"].as_str().unwrap();
    assert!(d.contains("multiple of 5"), "{d}");
}

/// vLLM refuses `uniqueItems` and a format xgrammar has no expression for.
#[test]
fn unique_items_and_unknown_formats_are_spilled() {
    let a = fixed(
        object(
            json!({"type": "array", "items": {"type": "string", "format": "color"}, "uniqueItems": true}),
        ),
        "`uniqueItems`",
    );
    assert_eq!(lost(&a, "uniqueItems"), LossKind::Spilled);
    assert_eq!(lost(&a, "format"), LossKind::Spilled);
    assert!(a.schema["properties"]["p"]["items"].get("format").is_none());
}

/// `GenerateString` takes a known format, else the pattern, else the lengths: lengths beside a
/// pattern never reach the grammar (and newer vLLM refuses the pair).
#[test]
fn lengths_beside_a_pattern_are_spilled() {
    let a = fixed(
        object(json!({"type": "string", "pattern": "^[a-z]+$", "maxLength": 8})),
        "`maxLength` is skipped",
    );
    assert_eq!(a.schema["properties"]["p"]["pattern"], "^[a-z]+$");
    assert_eq!(lost(&a, "maxLength"), LossKind::Spilled);
}

/// `GenerateAllOf`: several members are read as any value ("Support for allOf with multiple
/// options is still ongoing", a warning nobody sees): removed, a loss.
#[test]
fn an_all_of_of_several_members_is_reported() {
    let a = fixed(
        object(json!({"allOf": [{"type": "string"}, {"minLength": 2}]})),
        "is read as any value",
    );
    assert!(a.schema["properties"]["p"].get("allOf").is_none());
    assert_eq!(lost(&a, "allOf"), LossKind::Dropped);
}

/// `Parse` reads a `$ref` alone: a sibling is skipped. References are inlined, so the sibling
/// holds.
#[test]
fn keywords_beside_a_reference_hold_once_inlined() {
    let schema = json!({
        "type": "object",
        "properties": {"p": {"$ref": "#/$defs/Name", "maxLength": 5}},
        "required": ["p"],
        "additionalProperties": false,
        "$defs": {"Name": {"type": "string"}}
    });
    let a = fixed(schema, "`maxLength` is skipped");
    assert_eq!(
        a.schema["properties"]["p"],
        json!({"type": "string", "maxLength": 5})
    );
}

/// Strict mode (vLLM's and SGLang's default) closes an object without `additionalProperties`:
/// written out and reported where properties are declared; an object that declares none would
/// take only `{}`, so it is written open; an array without `items` would take only `[]`.
#[test]
fn what_strict_mode_closes_is_written_out() {
    let schema = json!({"type": "object", "properties": {
        "declared": {"type": "object", "properties": {"a": {"type": "string"}}},
        "free": {"type": "object"},
        "list": {"type": "array"}
    }, "additionalProperties": false});
    let a = fixed(schema, "strict mode closes an object");
    let p = &a.schema["properties"];
    assert_eq!(p["declared"]["additionalProperties"], false);
    assert_eq!(p["free"]["additionalProperties"], true);
    assert_eq!(p["list"]["items"], json!({}));
    let closed: Vec<&str> = (a.losses.iter())
        .filter(|l| l.kind == LossKind::Closed)
        .filter_map(|l| l.at.as_ref().map(|p| p.as_str()))
        .collect();
    assert_eq!(closed, ["/properties/declared"]);
    assert!(problems(&json!({"type": "object", "properties": {"l": {"type": "array"}}, "additionalProperties": false})).iter().any(|p| p.contains("no `items`")));
}

/// `RegexConverter` matches the whole string and ignores `^`/`$`: an unanchored pattern is
/// written to mean the same there; lookahead is refused ("Lookahead is not supported yet."),
/// so spilled.
#[test]
fn patterns_are_written_for_a_whole_string_match() {
    let a = fixed(
        object(json!({"type": "string", "pattern": "[0-9]+"})),
        "not anchored",
    );
    let p = a.schema["properties"]["p"]["pattern"].as_str().unwrap();
    let re = regress::Regex::new(p).unwrap();
    assert!(
        re.find("ab 12 cd").is_some() && re.find("abcd").is_none(),
        "{p}"
    );
    assert!(a.changes.iter().any(|c| c.rule == "xgrammar-patterns"));
    let a = fixed(
        object(json!({"type": "string", "pattern": "^(?!admin)[a-z]+$"})),
        "Lookahead is not supported yet.",
    );
    assert_eq!(lost(&a, "pattern"), LossKind::Spilled);
}

/// "Integer constraint must be a whole number": a fractional bound on an integer is spilled.
#[test]
fn a_fractional_integer_bound_is_spilled() {
    let a = fixed(
        object(json!({"type": "integer", "minimum": 0.5})),
        "Integer constraint must be a whole number",
    );
    assert_eq!(lost(&a, "minimum"), LossKind::Spilled);
}

/// "Schema 'false' cannot accept any value" (a property that must be absent): replaced.
#[test]
fn a_false_subschema_is_replaced() {
    let schema = json!({"type": "object", "properties": {"gone": false, "p": {"type": "string"}}, "additionalProperties": false});
    let a = fixed(schema, "Schema 'false'");
    assert!(a.schema["properties"]["gone"].is_object());
}

/// `oneOf` is read as `anyOf` unless xgrammar proves its branches disjoint: written as `anyOf`.
#[test]
fn one_of_becomes_any_of() {
    let a = fixed(
        object(json!({"oneOf": [{"type": "string"}, {"type": "integer"}]})),
        "`oneOf` is read as `anyOf`",
    );
    assert!(a.schema["properties"]["p"].get("anyOf").is_some());
}

/// The servers that run xgrammar by default name this target.
#[test]
fn vllm_and_sglang_are_aliases() {
    assert_eq!("vllm".parse::<Target>().unwrap(), Target::Xgrammar);
    assert_eq!("sglang".parse::<Target>().unwrap(), Target::Xgrammar);
}

/// xgrammar compiles recursion through plain local references (`ResolveRef`), so they stay: a
/// tree of nodes is held to any depth, with no `inlined` loss. A reference with an assertion
/// beside it is inlined instead (`keywords_beside_a_reference_hold_once_inlined`).
#[test]
fn recursion_through_plain_references_is_kept() {
    let schema = json!({
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "required": ["tree"],
        "additionalProperties": false,
        "$defs": {"Node": {
            "type": "object",
            "properties": {
                "value": {"type": "integer"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
            },
            "required": ["value"],
            "additionalProperties": false
        }}
    });
    let a = Target::Xgrammar.adapt(&schema).into_owned();
    assert!(problems(&a.schema).is_empty(), "{:#?}", problems(&a.schema));
    assert_eq!(a.schema, schema);
    assert!(
        a.losses.is_empty() && a.changes.is_empty(),
        "{:#?}",
        a.losses
    );
}

/// A reference whose path xgrammar would look up without unescaping (`~1` for a `/` in the
/// name): "Cannot find field", so every reference is inlined.
#[test]
fn an_escaped_reference_is_inlined() {
    let schema = json!({
        "type": "object",
        "properties": {"p": {"$ref": "#/$defs/a~1b"}},
        "required": ["p"],
        "additionalProperties": false,
        "$defs": {"a/b": {"type": "string"}}
    });
    let a = fixed(schema, "Cannot find field");
    assert_eq!(a.schema["properties"]["p"], json!({"type": "string"}));
}

/// xgrammar's `.` takes every code point, ECMA-262's no line terminator: written as that class,
/// so the meaning holds.
#[test]
fn a_dot_keeps_its_ecma_meaning() {
    let a = fixed(
        object(json!({"type": "string", "pattern": "^a.b$"})),
        "`.` takes a line break",
    );
    let p = a.schema["properties"]["p"]["pattern"].as_str().unwrap();
    let re = regress::Regex::new(p).unwrap();
    assert!(re.find("axb").is_some() && re.find("a\nb").is_none(), "{p}");
    assert!(a.losses.is_empty(), "{:#?}", a.losses);
}
