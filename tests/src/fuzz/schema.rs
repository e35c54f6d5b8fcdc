//! A shrinking generator of JSON Schemas that reaches every construct the adapter rules handle:
//! nested objects with `required` subsets, `additionalProperties` as a boolean or a schema,
//! `patternProperties`, arrays with `items`, `prefixItems` or neither, `anyOf`/`oneOf`/`allOf` of
//! one to four branches (scalar, structured, null, nested unions), `$ref`s to `$defs` (chains,
//! cycles, siblings, dangling), type arrays, `const`/`enum` of mixed types, `not`, `default`,
//! every string, number and array constraint, formats inside and outside each provider's list,
//! boolean schemas, property names that are keywords or hostile, draft-07 and 2020-12 `$schema`,
//! non-object roots, and (at some nodes) keyword values that break the meta-schema.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Property names: ordinary, keyword-named, empty, non-ASCII, with pointer syntax.
const NAMES: &[&str] = &[
    "id",
    "name",
    "count",
    "items",
    "type",
    "properties",
    "$ref",
    "const",
    "nullable",
    "enum",
    "description",
    "",
    "名前",
    "a/b",
    "x~y",
    "default",
    "required",
    // Keywords the rules rename or move (`oneOf` read as `anyOf`, a tuple's `prefixItems` sent as
    // `items`, `definitions` as `$defs`): as names, a report position must not take them for the
    // keywords.
    "anyOf",
    "oneOf",
    "prefixItems",
    "definitions",
];

/// Formats inside and outside each provider's list.
const FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
    "uri",
    "int32",
    "int64",
    "uint32",
    "float",
    "double",
    "enum",
    "regex",
];

const PATTERNS: &[&str] = &[
    "^[a-z]*$",
    "^\\d{1,3}$",
    "^(?!x).*$",
    "^(a)\\1$",
    "\\bword\\b",
    ".*",
    // Patterns that do not compile (published servers send them; providers then refuse).
    "[",
    "(unclosed",
];

fn scalar_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-5i64..50).prop_map(|n| json!(n)),
        (-5.0f64..5.0).prop_map(|f| json!((f * 4.0).round() / 4.0)),
        "[a-c]{0,3}".prop_map(Value::String),
    ]
}

fn name() -> impl Strategy<Value = String> {
    prop::sample::select(NAMES).prop_map(str::to_owned)
}

/// Optional annotations and constraint keywords on a node.
fn decorate(
    base: Value,
    description: Option<String>,
    default: Option<Value>,
    title: bool,
) -> Value {
    let Value::Object(mut m) = base else {
        return base;
    };
    if let Some(d) = description {
        m.insert("description".into(), Value::String(d));
    }
    if let Some(d) = default {
        m.insert("default".into(), d);
    }
    if title {
        m.insert("title".into(), json!("T"));
    }
    Value::Object(m)
}

fn string_schema() -> impl Strategy<Value = Value> {
    (
        prop::option::of(0u64..4),
        prop::option::of(2u64..10),
        prop::option::of(prop::sample::select(PATTERNS)),
        prop::option::of(prop::sample::select(FORMATS)),
    )
        .prop_map(|(min, max, pattern, format)| {
            let mut m = Map::new();
            m.insert("type".into(), json!("string"));
            if let Some(n) = min {
                m.insert("minLength".into(), json!(n));
            }
            if let Some(n) = max {
                m.insert("maxLength".into(), json!(n));
            }
            if let Some(p) = pattern {
                m.insert("pattern".into(), json!(p));
            }
            if let Some(f) = format {
                m.insert("format".into(), json!(f));
            }
            Value::Object(m)
        })
}

fn number_schema() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(&["integer", "number"][..]),
        prop::option::of(-3i64..3),
        prop::option::of(5i64..100),
        prop::option::of(prop::sample::select(&[1, 2, 5][..])),
        any::<bool>(),
        prop::option::of(prop::sample::select(FORMATS)),
    )
        .prop_map(|(t, min, max, multiple, exclusive, format)| {
            let mut m = Map::new();
            m.insert("type".into(), json!(t));
            if let Some(n) = min {
                let key = if exclusive {
                    "exclusiveMinimum"
                } else {
                    "minimum"
                };
                m.insert(key.into(), json!(n));
            }
            if let Some(n) = max {
                let key = if exclusive {
                    "exclusiveMaximum"
                } else {
                    "maximum"
                };
                m.insert(key.into(), json!(n));
            }
            if let Some(n) = multiple {
                m.insert("multipleOf".into(), json!(n));
            }
            if let Some(f) = format {
                m.insert("format".into(), json!(f));
            }
            Value::Object(m)
        })
}

fn leaf() -> BoxedStrategy<Value> {
    prop_oneof![
        4 => string_schema(),
        3 => number_schema(),
        1 => Just(json!({"type": "boolean"})),
        1 => Just(json!({"type": "null"})),
        1 => scalar_value().prop_map(|v| json!({"const": v})),
        1 => prop::collection::vec(scalar_value(), 1..4).prop_map(|vs| json!({"enum": vs})),
        1 => prop::collection::vec("[a-c]{1,3}", 1..4).prop_map(|vs| json!({"type": "string", "enum": vs})),
        1 => Just(json!({})),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => prop::sample::select(&["string", "integer", "object", "array"][..])
            .prop_map(|t| json!({"type": [t, "null"]})),
        2 => (0usize..4, any::<bool>()).prop_map(|(i, with_description)| {
            // `D3` is never defined: a dangling reference.
            let mut m = Map::new();
            m.insert("$ref".into(), json!(format!("#/$defs/D{i}")));
            if with_description {
                m.insert("description".into(), json!("field doc"));
            }
            Value::Object(m)
        }),
    ]
    .boxed()
}

fn object(inner: BoxedStrategy<Value>) -> impl Strategy<Value = Value> {
    (
        prop::collection::vec((name(), inner.clone()), 0..5),
        prop::collection::vec(any::<bool>(), 5),
        prop::option::of(prop_oneof![
            any::<bool>().prop_map(Value::Bool),
            inner.clone(),
        ]),
        prop::option::of(inner),
        any::<bool>(),
        // A `required` name that is no property (a stale name; an item's `required` without
        // `properties`): published servers send both, and Google refuses them.
        prop::bool::weighted(0.1),
    )
        .prop_map(|(props, req, additional, pattern_props, typed, stale)| {
            let mut m = Map::new();
            if typed {
                m.insert("type".into(), json!("object"));
            }
            let mut properties = Map::new();
            for (n, s) in props {
                properties.insert(n, s);
            }
            let mut required: Vec<Value> = properties
                .keys()
                .zip(&req)
                .filter(|(_, r)| **r)
                .map(|(k, _)| json!(k))
                .collect();
            if stale && !properties.contains_key("gone") {
                required.push(json!("gone"));
            }
            m.insert("properties".into(), Value::Object(properties));
            if !required.is_empty() {
                m.insert("required".into(), Value::Array(required));
            }
            if let Some(a) = additional {
                m.insert("additionalProperties".into(), a);
            }
            if let Some(p) = pattern_props {
                m.insert("patternProperties".into(), json!({"^x-": p}));
            }
            Value::Object(m)
        })
}

fn array(inner: BoxedStrategy<Value>) -> impl Strategy<Value = Value> {
    (
        prop_oneof![
            2 => inner.clone().prop_map(|s| ("items", s)),
            1 => prop::collection::vec(inner, 1..4).prop_map(|v| ("prefixItems", Value::Array(v))),
            1 => Just(("none", Value::Null)),
        ],
        prop::option::of(0u64..3),
        prop::option::of(3u64..6),
        any::<bool>(),
    )
        .prop_map(|((key, items), min, max, unique)| {
            let mut m = Map::new();
            m.insert("type".into(), json!("array"));
            if key != "none" {
                m.insert(key.into(), items);
            }
            if let Some(n) = min {
                m.insert("minItems".into(), json!(n));
            }
            if let Some(n) = max {
                m.insert("maxItems".into(), json!(n));
            }
            if unique {
                m.insert("uniqueItems".into(), json!(true));
            }
            Value::Object(m)
        })
}

fn combinator(inner: BoxedStrategy<Value>) -> impl Strategy<Value = Value> {
    (
        prop::sample::select(&["anyOf", "oneOf", "allOf"][..]),
        prop::collection::vec(inner, 1..5),
        any::<bool>(),
    )
        .prop_map(|(key, mut branches, with_null)| {
            if with_null && key != "allOf" {
                branches.push(json!({"type": "null"}));
            }
            json!({ key: branches })
        })
}

/// Any schema node, nested up to `depth` levels.
pub fn node(depth: u32) -> BoxedStrategy<Value> {
    let tree = leaf().prop_recursive(depth, 48, 4, |inner| {
        prop_oneof![
            3 => object(inner.clone()),
            2 => array(inner.clone()),
            2 => combinator(inner.clone()),
            1 => inner.clone().prop_map(|s| json!({"not": s})),
        ]
        .boxed()
    });
    (
        tree,
        prop::option::of("[a-z ]{0,12}"),
        prop::option::of(scalar_value()),
        any::<bool>(),
        prop::option::weighted(0.06, invalid_keyword()),
    )
        .prop_map(|(v, d, default, title, invalid)| {
            let mut v = decorate(v, d, default, title);
            if let (Value::Object(m), Some((k, bad))) = (&mut v, invalid) {
                m.insert(k.to_owned(), bad);
            }
            v
        })
        .boxed()
}

/// Keyword values that break the meta-schema, as published servers write them: some have one
/// meaning the adapters repair (`int`, a boolean `required`, a type name where a schema
/// belongs), the rest make the tool the target's fallback.
fn invalid_keyword() -> impl Strategy<Value = (&'static str, Value)> {
    prop::sample::select(vec![
        ("type", json!("int")),
        ("type", json!("strng")),
        ("type", json!("String")),
        ("type", json!(["string", "string"])),
        ("type", json!([])),
        ("type", json!(3)),
        ("type", json!("any")),
        ("required", json!(true)),
        ("required", json!(false)),
        ("required", json!("id")),
        ("required", json!([1])),
        ("required", json!(["id", "id"])),
        ("additionalProperties", json!("object")),
        ("additionalProperties", json!("any")),
        ("additionalProperties", json!(3)),
        ("items", json!("string")),
        ("items", json!([])),
        ("enum", json!("x")),
        ("anyOf", json!([])),
        ("anyOf", json!("x")),
        ("anyOf", json!([3])),
        ("oneOf", json!(["string", {"type": "integer"}])),
        ("properties", json!({"a": "string"})),
        ("properties", json!({"a": 3})),
        ("properties", json!("x")),
        ("minLength", json!(-1)),
        ("minLength", json!("3")),
        ("maxItems", json!(1.5)),
        ("description", Value::Null),
        ("description", json!(3)),
        ("examples", json!("x")),
        ("exclusiveMinimum", json!(true)),
        ("exclusiveMaximum", json!(false)),
        ("multipleOf", json!(0)),
        ("$anchor", json!("1a")),
        ("uniqueItems", json!("yes")),
        ("format", Value::Null),
        ("dependentRequired", json!({"a": [1]})),
        ("pattern", json!(3)),
    ])
}

/// A whole tool schema: usually an object root with `$defs` (which may refer to each other, to
/// themselves, or to `D3`, never defined), sometimes a draft-07 document (`definitions`), sometimes
/// a non-object root.
pub fn document() -> impl Strategy<Value = Value> {
    (
        prop_oneof![
            6 => object(node(3)).prop_map(|mut o| {
                o["type"] = json!("object");
                o
            }),
            1 => node(3),
        ],
        prop::collection::vec(node(2), 0..4),
        prop::sample::select(&["none", "2020-12", "draft-07"][..]),
    )
        .prop_map(|(root, defs, draft)| {
            let Value::Object(mut root) = root else {
                return root;
            };
            if !defs.is_empty() {
                let defs: Map<String, Value> = defs
                    .into_iter()
                    .enumerate()
                    .map(|(i, d)| (format!("D{i}"), d))
                    .collect();
                root.insert("$defs".into(), Value::Object(defs));
            }
            match draft {
                "2020-12" => {
                    root.insert(
                        "$schema".into(),
                        json!("https://json-schema.org/draft/2020-12/schema"),
                    );
                }
                "draft-07" => {
                    root.insert(
                        "$schema".into(),
                        json!("http://json-schema.org/draft-07/schema#"),
                    );
                    let mut doc = Value::Object(root);
                    to_draft_07(&mut doc);
                    let text = doc
                        .to_string()
                        .replace("\"$defs\"", "\"definitions\"")
                        .replace("#/$defs/", "#/definitions/");
                    return serde_json::from_str(&text).expect("still JSON");
                }
                _ => {}
            }
            Value::Object(root)
        })
}

/// Tuples in draft-07's form: `items` as an array of positions, `additionalItems` for the rest.
fn to_draft_07(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if let Some(positions) = m.shift_remove("prefixItems") {
                if let Some(rest) = m.shift_remove("items") {
                    m.insert("additionalItems".into(), rest);
                }
                m.insert("items".into(), positions);
            }
            m.values_mut().for_each(to_draft_07);
        }
        Value::Array(a) => a.iter_mut().for_each(to_draft_07),
        _ => {}
    }
}
