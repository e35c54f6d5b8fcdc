//! One test per rule of the contract checker.

use serde_json::{Value, json};

use super::*;

/// Two object branches: the smallest structural union.
fn two_objects() -> Value {
    json!({"anyOf": [{"type": "object"}, {"type": "object", "properties": {"a": {}}}]})
}

fn root_with(property: Value) -> Value {
    json!({"type": "object", "properties": {"p": property}})
}

fn errors(schema: &Value) -> Vec<(Kind, String)> {
    check(schema)
        .into_iter()
        .filter(|v| v.severity == Severity::Error)
        .map(|v| (v.kind, v.path))
        .collect()
}

fn unions_at(schema: &Value) -> Vec<String> {
    check(schema)
        .into_iter()
        .filter(|v| v.kind == Kind::StructuralUnion)
        .map(|v| v.path)
        .collect()
}

#[test]
fn clean_object_passes() {
    let schema = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["name"]
    });
    assert_eq!(check(&schema), vec![]);
}

#[test]
fn each_structured_form_counts() {
    for (a, b) in [
        (json!({"type": "object"}), json!({"type": "array"})),
        (
            json!({"type": ["object", "null"]}),
            json!({"type": "array"}),
        ),
        (json!({"properties": {}}), json!({"items": {}})),
        (json!({"prefixItems": [{}]}), json!({"type": "object"})),
        (
            json!({"type": ["string", "array"]}),
            json!({"properties": {}}),
        ),
    ] {
        let schema = root_with(json!({"oneOf": [a.clone(), b.clone()]}));
        assert_eq!(unions_at(&schema), vec!["properties.p"], "{a} / {b}");
    }
}

#[test]
fn scalar_unions_and_one_structured_branch_pass() {
    let scalars = root_with(json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}));
    assert_eq!(check(&scalars), vec![]);
    let one = root_with(json!({"anyOf": [{"type": "array"}, {"type": "string"}]}));
    assert_eq!(check(&one), vec![]);
    let one_last = root_with(json!({"anyOf": [{"type": "string"}, {"type": "array"}]}));
    assert_eq!(errors(&one_last), vec![]);
    let nullable = root_with(json!({"anyOf": [{"type": "object"}, {"type": "null"}]}));
    assert_eq!(check(&nullable), vec![]);
    // A typed branch with `properties` is judged by its type.
    let typed =
        root_with(json!({"anyOf": [{"type": "string", "properties": {}}, {"type": "object"}]}));
    assert_eq!(errors(&typed), vec![]);
}

#[test]
fn refs_are_judged_by_their_target() {
    for (reference, defs_key) in [("#/$defs/O", "$defs"), ("#/definitions/O", "definitions")] {
        let schema = json!({
            "type": "object",
            "properties": {"p": {"anyOf": [{"$ref": reference}, {"type": "array"}]}},
            defs_key: {"O": {"type": "object"}}
        });
        assert_eq!(unions_at(&schema), vec!["properties.p"], "{reference}");
    }
    // `#` is the root, an object.
    let root_ref = root_with(json!({"anyOf": [{"$ref": "#"}, {"type": "array"}]}));
    assert_eq!(unions_at(&root_ref), vec!["properties.p"]);
    // A ref to a scalar is a scalar.
    let scalar = json!({
        "type": "object",
        "properties": {"p": {"anyOf": [{"$ref": "#/$defs/S"}, {"type": "array"}]}},
        "$defs": {"S": {"type": "string"}}
    });
    assert_eq!(errors(&scalar), vec![]);
}

#[test]
fn nested_unions_contribute_their_branches() {
    // A branch that is only a union brings its branches: object + array = 2.
    let schema = root_with(json!({"anyOf": [
        {"anyOf": [{"type": "object"}, {"type": "string"}]},
        {"type": "array"}
    ]}));
    assert_eq!(unions_at(&schema), vec!["properties.p"]);
    // Through a $ref too.
    let via_ref = json!({
        "type": "object",
        "properties": {"p": {"oneOf": [{"$ref": "#/$defs/U"}, {"type": "array"}]}},
        "$defs": {"U": {"anyOf": [{"type": "object"}, {"type": "integer"}]}}
    });
    assert_eq!(unions_at(&via_ref), vec!["properties.p"]);
}

#[test]
fn option_of_a_union_is_reported_once_where_the_union_stands() {
    // `Option<Union>`: anyOf [ref U, null]. The union is U's, reported at its definition.
    let schema = json!({
        "type": "object",
        "properties": {"p": {"anyOf": [{"$ref": "#/$defs/U"}, {"type": "null"}]}},
        "$defs": {"U": two_objects()}
    });
    assert_eq!(unions_at(&schema), vec!["$defs.U"]);
    // Inline, the nested union is part of the outer one: reported once, at the outer union.
    let inline = root_with(json!({"anyOf": [two_objects(), {"type": "null"}]}));
    assert_eq!(unions_at(&inline), vec!["properties.p"]);
}

#[test]
fn two_referenced_unions_under_one_inline_branch_are_reported() {
    // Found by the fuzz suite: each definition is a union of one object (never reported on its
    // own), and both are reached through the same inline branch. Two objects: a structural union.
    let schema = json!({
        "type": "object",
        "properties": {"p": {"anyOf": [{"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]}]}},
        "$defs": {
            "A": {"anyOf": [{"properties": {}}]},
            "B": {"anyOf": [{"properties": {}}]}
        }
    });
    assert_eq!(unions_at(&schema), vec!["properties.p"]);
}

#[test]
fn every_position_is_checked() {
    let u = two_objects;
    let cases = vec![
        (
            json!({"type": "object", "properties": {"a": u()}}),
            "properties.a",
        ),
        (
            json!({"type": "object", "patternProperties": {"^x": u()}}),
            "patternProperties[\"^x\"]",
        ),
        (
            json!({"type": "object", "additionalProperties": u()}),
            "additionalProperties",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "array", "items": u()}}}),
            "properties.a.items",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "array", "items": [u()]}}}),
            "properties.a.items[0]",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "array", "prefixItems": [{}, u()]}}}),
            "properties.a.prefixItems[1]",
        ),
        (
            json!({"type": "object", "properties": {"a": {"allOf": [u()]}}}),
            "properties.a.allOf[0]",
        ),
        (
            json!({"type": "object", "properties": {"a": {"anyOf": [u(), {"type": "null"}]}}}),
            "properties.a",
        ),
        (
            json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "array", "items": u()}]}}}),
            "properties.a.anyOf[0].items",
        ),
        (
            json!({"type": "object", "properties": {"a": {"not": u()}}}),
            "properties.a.not",
        ),
        (
            json!({"type": "object", "if": {}, "then": u(), "else": {}}),
            "then",
        ),
        (json!({"type": "object", "if": u()}), "if"),
        (json!({"type": "object", "else": u()}), "else"),
        (
            json!({"type": "object", "dependentSchemas": {"a": u()}}),
            "dependentSchemas.a",
        ),
        (
            json!({"type": "object", "$defs": {"Unused": u()}}),
            "$defs.Unused",
        ),
        (
            json!({"type": "object", "definitions": {"Old": u()}}),
            "definitions.Old",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "array", "contains": u()}}}),
            "properties.a.contains",
        ),
        (
            json!({"type": "object", "unevaluatedProperties": u()}),
            "unevaluatedProperties",
        ),
    ];
    for (schema, path) in cases {
        assert_eq!(unions_at(&schema), vec![path.to_owned()], "{schema}");
    }
}

#[test]
fn keyword_named_properties_are_names() {
    let schema = json!({
        "type": "object",
        "properties": {
            "anyOf": {"type": "string"},
            "oneOf": {"type": "array", "items": {"type": "string"}},
            "items": {"type": "object", "properties": {"type": {"type": "string"}}},
            "$ref": {"type": "string"},
            "type": {"type": "string"},
            "properties": {"type": "object", "properties": {"anyOf": two_objects()}}
        }
    });
    assert_eq!(
        unions_at(&schema),
        vec!["properties.properties.properties.anyOf"]
    );
    // A `$ref`-named property is never followed as a reference.
    assert!(
        errors(&schema)
            .iter()
            .all(|(k, _)| *k == Kind::StructuralUnion)
    );
}

#[test]
fn recursive_schemas_terminate() {
    let schema = json!({
        "type": "object",
        "properties": {"node": {"$ref": "#/$defs/Node"}},
        "$defs": {
            "Node": {"type": "object", "properties": {
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                "next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}
            }},
            "Loop": {"$ref": "#/$defs/Loop"},
            "SelfUnion": {"anyOf": [{"$ref": "#/$defs/SelfUnion"}, {"type": "object"}]},
            "A": {"anyOf": [{"$ref": "#/$defs/B"}, {"type": "string"}]},
            "B": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "object"}]}
        }
    });
    assert_eq!(errors(&schema), vec![]);
}

#[test]
fn boolean_schemas_are_valid_input() {
    assert_eq!(check(&root_with(json!(true))), vec![]);
    assert_eq!(check(&root_with(json!({"anyOf": [true, false]}))), vec![]);
    let root = check(&json!(true));
    assert_eq!(root.len(), 1);
    assert_eq!(root[0].kind, Kind::NonObjectRoot);
}

#[test]
fn dangling_and_external_refs_are_reported_never_fetched() {
    let schema = root_with(
        json!({"anyOf": [{"$ref": "#/$defs/Missing"}, {"$ref": "https://example.com/x.json"}]}),
    );
    let found: Vec<(Kind, Severity, String)> = check(&schema)
        .into_iter()
        .map(|v| (v.kind, v.severity, v.path))
        .collect();
    assert!(found.contains(&(
        Kind::UnresolvedRef,
        Severity::Error,
        "properties.p.anyOf[0]".into()
    )));
    assert!(found.contains(&(
        Kind::ExternalRef,
        Severity::Warning,
        "properties.p.anyOf[1]".into()
    )));
}

#[test]
fn root_rules() {
    assert_eq!(
        errors(&json!({"type": "array"})),
        vec![(Kind::NonObjectRoot, String::new())]
    );
    assert_eq!(
        errors(&json!({"properties": {}})),
        vec![(Kind::NonObjectRoot, String::new())]
    );
    let combinator = json!({"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}]});
    assert_eq!(
        errors(&combinator),
        vec![(Kind::RootCombinator, String::new())]
    );
    let root_enum = json!({"type": "object", "enum": [{}]});
    assert_eq!(
        errors(&root_enum),
        vec![(Kind::RootCombinator, String::new())]
    );
    let message = &check(&json!({"anyOf": [{"type": "object"}]}))[0].message;
    assert!(message.contains("struct with named fields"), "{message}");
}

#[test]
fn structured_not_first_is_a_warning() {
    // The measured Langflow case: the array form is lost when the const comes first.
    let schema = root_with(
        json!({"anyOf": [{"const": "all"}, {"type": "array", "items": {"type": "string"}}]}),
    );
    let found = check(&schema);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].kind, Kind::StructuredNotFirst);
    assert_eq!(found[0].severity, Severity::Warning);
    assert_eq!(found[0].path, "properties.p");
    // A leading null does not count.
    let null_first =
        root_with(json!({"anyOf": [{"type": "null"}, {"type": "array"}, {"type": "string"}]}));
    assert_eq!(check(&null_first), vec![]);
}

#[test]
fn messages_name_branches_and_fix() {
    let schema = json!({
        "type": "object",
        "properties": {"fields": {"anyOf": [{"type": "array"}, {"$ref": "#/$defs/Delta"}]}},
        "$defs": {"Delta": {"type": "object", "properties": {"add": {}, "remove": {}}}}
    });
    let v = &check(&schema)[0];
    assert_eq!(v.pointer, "/properties/fields");
    assert!(v.message.contains("anyOf[0] (array)"), "{}", v.message);
    assert!(
        v.message.contains("anyOf[1] -> #/$defs/Delta (object)"),
        "{}",
        v.message
    );
    assert!(v.message.contains("separate parameters"), "{}", v.message);
}

#[test]
fn allow_list_fails_both_ways() {
    let schema = json!({
        "type": "object",
        "properties": {
            "field_values": {"type": "array", "items": two_objects()},
            "fields": two_objects()
        }
    });
    let entry = |path: &str| AllowEntry {
        tool: Some("upsert".into()),
        path: path.into(),
        reason: "17 variants, being redesigned".into(),
        issue: "#163".into(),
    };
    // Covers one of two: the other still fails.
    let list = AllowList::from_entries(vec![entry("properties.field_values")]).unwrap();
    let report = list.apply(check_tool(Some("upsert"), &schema));
    assert!(!report.is_ok());
    assert_eq!(report.errors().count(), 1);
    assert_eq!(report.errors().next().unwrap().path, "properties.fields");
    // Covers both: passes.
    let list = AllowList::from_entries(vec![
        entry("properties.field_values"),
        entry("properties.fields"),
    ])
    .unwrap();
    assert!(list.apply(check_tool(Some("upsert"), &schema)).is_ok());
    // The union is fixed: the entry is stale and fails.
    let fixed = root_with(json!({"type": "string"}));
    let report = list.apply(check_tool(Some("upsert"), &fixed));
    assert!(!report.is_ok());
    assert_eq!(report.stale_allows.len(), 2);
    assert!(report.stale_allows[0].to_string().contains("remove it"));
    // Another tool's violation is not covered.
    let report = list.apply(check_tool(Some("other"), &schema));
    assert_eq!(report.errors().count(), 2);
    // Root errors cannot be allowed.
    let root = AllowList::from_entries(vec![AllowEntry {
        tool: None,
        path: String::new(),
        reason: "r".into(),
        issue: "#1".into(),
    }])
    .unwrap();
    let report = root.apply(check(&json!({"type": "array"})));
    assert_eq!(report.errors().count(), 1);
    assert_eq!(report.stale_allows.len(), 1);
}

#[test]
fn huge_and_deep_inputs_finish() {
    let mut properties = serde_json::Map::new();
    for i in 0..5_000 {
        properties.insert(
            format!("p{i}"),
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
        );
    }
    let wide = json!({"type": "object", "properties": properties});
    assert_eq!(check(&wide), vec![]);

    // Built by moving values into maps: `json!` would serialize (recursively) a nested value.
    let wrap = |inner: Value, keyword: &str| -> Value {
        let mut props = serde_json::Map::new();
        props.insert("x".into(), inner);
        let mut node = serde_json::Map::new();
        node.insert("type".into(), json!("object"));
        node.insert(keyword.into(), Value::Object(props));
        Value::Object(node)
    };
    let mut deep = two_objects();
    for _ in 0..3_000 {
        deep = wrap(deep, "properties");
    }
    let found = unions_at(&deep);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].matches("properties.x").count(), 3_000);
    // serde_json drops recursively; do not let the test value's drop be the overflow.
    std::mem::forget(deep);

    let mut nested_union = json!({"type": "object"});
    for _ in 0..3_000 {
        let mut node = serde_json::Map::new();
        node.insert(
            "anyOf".into(),
            Value::Array(vec![nested_union, json!({"type": "string"})]),
        );
        nested_union = Value::Object(node);
    }
    let schema = wrap(nested_union, "properties");
    assert_eq!(errors(&schema), vec![]);
    std::mem::forget(schema);
}

/// A `pattern` that does not compile as ECMA-262 is a warning at the keyword (lint says so
/// before a provider refuses the request); one that compiles, or a property named `pattern`,
/// is not.
#[test]
fn patterns_that_do_not_compile_are_warned_about() {
    let schema = json!({"type": "object", "properties": {
        "bad": {"type": "string", "pattern": "["},
        "good": {"type": "string", "pattern": "^[a-z]+$"},
        "pattern": {"type": "string"}
    }});
    let found = check(&schema);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].kind, Kind::InvalidPattern);
    assert_eq!(found[0].severity, Severity::Warning);
    assert_eq!(found[0].path, "properties.bad.pattern");
    assert_eq!(found[0].pointer, "/properties/bad/pattern");
    assert!(
        found[0].message.contains("does not compile as an ECMA-262"),
        "{}",
        found[0].message
    );
}

/// A union beside a keyword that gives its node no kind of its own (an assertion on objects, an
/// unknown name) still speaks for the node: its structured branch counts in a parent union (a
/// fuzz finding, seed 0x5eed0059: missed when the node was not only a union plus annotations).
#[test]
fn a_union_beside_an_assertion_counts_through_a_reference() {
    for beside in [
        json!({"dependentRequired": {"a": ["b"]}}),
        json!({"x-note": 1}),
    ] {
        let mut d0 = json!({"anyOf": [{"properties": {}}]});
        d0.as_object_mut()
            .unwrap()
            .extend(beside.as_object().unwrap().clone());
        let schema = json!({"type": "object", "properties": {
            "id": {"anyOf": [{"type": ["object", "null"]}, {"$ref": "#/$defs/D0"}]}
        }, "$defs": {"D0": d0}});
        assert_eq!(unions_at(&schema), ["properties.id"], "{schema}");
    }
    // A type beside the union makes the node's own kind: judged as a whole (a string here).
    let typed = json!({"type": "object", "properties": {
        "id": {"anyOf": [{"type": "object"}, {"$ref": "#/$defs/D0"}]}
    }, "$defs": {"D0": {"type": "string", "anyOf": [{"minLength": 1}]}}});
    assert!(unions_at(&typed).is_empty());
}
