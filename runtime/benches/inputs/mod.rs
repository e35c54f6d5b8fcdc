//! The inputs the benches share: the bundled real tools and the growth shapes of issue 13.

#![allow(dead_code)] // each bench uses its own part of this module

use std::path::PathBuf;

use serde_json::{Map, Value, json};
use toolschema::catalog::Catalog;

/// Every tool schema of the bundled real catalogs (`tests/fixtures/tools`), in file order, and
/// [`unused_recursive_definitions`] last.
pub fn corpus() -> Vec<Value> {
    let mut tools = real_tools();
    tools.push(unused_recursive_definitions());
    tools
}

/// A small tool beside nine mutually recursive definitions that nothing references (the shape
/// of a published server whose every tool carries its crate's whole `$defs`): its cost must
/// follow what reaches the output, not the definitions.
pub fn unused_recursive_definitions() -> Value {
    let mut defs = Map::new();
    for i in 0..9 {
        let next = format!("#/$defs/Node{}", (i + 1) % 9);
        let own = format!("#/$defs/Node{i}");
        defs.insert(
            format!("Node{i}"),
            json!({
                "type": "object",
                "description": format!("Node {i} of a recursive family nothing here uses."),
                "properties": {
                    "id": {"type": "string", "format": "uuid"},
                    "label": {"type": ["string", "null"], "maxLength": 80},
                    "next": {"anyOf": [{"$ref": next}, {"type": "null"}]},
                    "children": {"type": "array", "items": {"$ref": own}, "default": []}
                },
                "required": ["id"]
            }),
        );
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "ReadFileArgs",
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "The file to read, relative to the workspace root."},
            "offset": {"type": ["integer", "null"], "format": "uint64", "minimum": 0, "description": "First line to read."},
            "limit": {"type": ["integer", "null"], "format": "uint64", "minimum": 1, "description": "How many lines."}
        },
        "required": ["path"],
        "$defs": defs
    })
}

/// Every tool schema of the bundled real catalogs (`tests/fixtures/tools`), in file order.
/// The encoding fixture's tools (`tests/fixtures/encoding/maps.json`: one per shape encoding is
/// for).
pub fn map_tools() -> Vec<Value> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/encoding/maps.json");
    let value: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    Catalog::from_value(value)
        .unwrap()
        .tools
        .into_iter()
        .map(|t| t.schema)
        .collect()
}

/// An object of `n` optional properties, each a map with typed values (and a `propertyNames`),
/// every one of which encoding rewrites into key/value pairs.
pub fn maps(n: usize) -> Value {
    let mut properties = Map::new();
    for i in 0..n {
        properties.insert(
            format!("m{i}"),
            json!({"type": "object", "description": "A map.",
                   "propertyNames": {"pattern": "^[a-z]+$"},
                   "additionalProperties": {"type": "string", "maxLength": 9}}),
        );
    }
    json!({"type": "object", "properties": properties})
}

pub fn real_tools() -> Vec<Value> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/tools");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/tools")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json") && !p.ends_with("SOURCES.json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .flat_map(|p| {
            let value: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
            Catalog::from_value(value)
                .unwrap()
                .tools
                .into_iter()
                .map(|t| t.schema)
        })
        .collect()
}

/// An object of one property `name`, `schema` (moved in, not copied), required or not.
fn object_of(name: &str, schema: Value, required: bool) -> Value {
    let mut props = Map::new();
    props.insert(name.into(), schema);
    let mut obj = Map::new();
    obj.insert("type".into(), json!("object"));
    obj.insert("properties".into(), Value::Object(props));
    if required {
        obj.insert("required".into(), json!([name]));
    }
    Value::Object(obj)
}

/// `levels` nested objects of one property `x`, required or not.
fn nested(levels: usize, required: bool) -> Value {
    let mut node = json!({"type": "string", "maxLength": 8});
    for _ in 0..levels {
        node = object_of("x", node, required);
    }
    node
}

/// `levels` nested objects, each requiring its one property.
pub fn deep(levels: usize) -> Value {
    nested(levels, true)
}

/// `levels` nested objects whose one property is optional (strict modes make it required and
/// nullable at every level: a wrapper per level).
pub fn deep_optional(levels: usize) -> Value {
    nested(levels, false)
}

/// An object of `n` optional properties, each a nullable type array with a constraint and a
/// description (strict modes split and wrap each; others rewrite the type array).
pub fn wide(n: usize) -> Value {
    let props: Map<String, Value> = (0..n)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"type": ["string", "null"], "maxLength": 8, "description": "a field"}),
            )
        })
        .collect();
    json!({"type": "object", "properties": props})
}

/// [`wide`] with every property required, and one required name that is no property: a rule
/// that matches the required names against the properties (or against the ones it made
/// optional) one pair at a time is quadratic here (Cloud Code Assist was, until a set replaced
/// the pairwise look-up).
pub fn wide_required(n: usize) -> Value {
    let mut schema = wide(n);
    let mut names: Vec<Value> = (0..n).map(|i| Value::String(format!("p{i}"))).collect();
    names.push(json!("gone"));
    schema["required"] = Value::Array(names);
    schema
}

/// An object property that is the `allOf` of two objects defining the same `n` properties:
/// Cloud Code Assist merges the two, every property defined twice (it moved each one to the
/// end of the map as it went, shifting every other: quadratic, until the map was put in order
/// once).
pub fn merged_twice(n: usize) -> Value {
    let branch = || {
        let props: Map<String, Value> = (0..n)
            .map(|i| {
                (
                    format!("p{i}"),
                    json!({"type": "string", "description": "a field"}),
                )
            })
            .collect();
        json!({"type": "object", "properties": props})
    };
    object_of("x", json!({"allOf": [branch(), branch()]}), true)
}

/// A property that is the union of two string enums of `n` values each: Cloud Code Assist
/// unites them into one enum (each value was once looked for among all the others: quadratic).
pub fn two_enums(n: usize) -> Value {
    let values = |p: &str| Value::Array((0..n).map(|i| json!(format!("{p}{i}"))).collect());
    let union = json!({"anyOf": [
        {"type": "string", "enum": values("a")},
        {"type": "string", "enum": values("b")}
    ]});
    object_of("x", union, true)
}

/// A property that is a tuple of `n` positions, each a different schema: targets without
/// `prefixItems` send `items.anyOf` of the distinct ones (each position was once compared with
/// every distinct one before it: quadratic).
pub fn long_tuple(n: usize) -> Value {
    let positions = (0..n)
        .map(|i| json!({"type": "string", "maxLength": i}))
        .collect();
    let tuple = json!({"type": "array", "prefixItems": Value::Array(positions)});
    object_of("t", tuple, true)
}

/// A property that is the `allOf` of `n` objects, each requiring its own property: Cloud Code
/// Assist merges them (the set of required names was once made again for each branch).
pub fn many_all_of(n: usize) -> Value {
    let branches = (0..n)
        .map(|i| object_of(&format!("k{i}"), json!({"type": "string"}), true))
        .collect();
    object_of("x", json!({"allOf": Value::Array(branches)}), true)
}

/// Every level a nullable type array with a `oneOf` of two object constraints.
pub fn hostile(levels: usize) -> Value {
    let mut node = json!({"type": "string", "maxLength": 8});
    for _ in 0..levels {
        let mut props = Map::new();
        props.insert("x".into(), node);
        let mut obj = Map::new();
        obj.insert("type".into(), json!(["object", "null"]));
        obj.insert(
            "oneOf".into(),
            json!([{"minProperties": 1}, {"maxProperties": 3}]),
        );
        obj.insert("properties".into(), Value::Object(props));
        obj.insert("required".into(), json!(["x"]));
        node = Value::Object(obj);
    }
    node
}

/// Every level a union of a string and an object, the structured branch second, below a root
/// object: most targets reorder each union, Cloud Code Assist collapses it, and each level's
/// report entry names a position those moves change (issue 13: linear even when every node
/// records a change).
pub fn unions(levels: usize) -> Value {
    let mut node = json!({"type": "string", "maxLength": 8});
    for _ in 0..levels {
        let mut union = Map::new();
        union.insert(
            "anyOf".into(),
            Value::Array(vec![json!({"type": "string"}), object_of("x", node, true)]),
        );
        node = Value::Object(union);
    }
    object_of("root", node, true)
}

/// A growth row: its name, how to make the input of a size, and the sizes (each the double of
/// the one before).
pub type Shape = (&'static str, fn(usize) -> Value, &'static [usize]);

/// The sizes of the wide rows (entries of one object or list).
const WIDE_SIZES: &[usize] = &[1_250, 2_500, 5_000, 10_000, 20_000];
/// The sizes of the rows whose entries cost more each (tuple positions, `allOf` branches).
const LIST_SIZES: &[usize] = &[625, 1_250, 2_500, 5_000, 10_000];

/// The growth rows the benches print.
pub const SHAPES: [Shape; 10] = [
    ("nested", deep, &[100, 200, 400, 800, 1_600, 3_200]),
    (
        "nested optional",
        deep_optional,
        &[250, 500, 1_000, 2_000, 4_000],
    ),
    ("wide", wide, WIDE_SIZES),
    ("wide, all required", wide_required, WIDE_SIZES),
    ("two wide branches merged", merged_twice, WIDE_SIZES),
    ("two long enums united", two_enums, WIDE_SIZES),
    ("a long tuple", long_tuple, LIST_SIZES),
    ("allOf of many objects", many_all_of, LIST_SIZES),
    ("hostile nested", hostile, &[250, 500, 1_000, 2_000, 4_000]),
    ("nested unions", unions, &[250, 500, 1_000, 2_000, 4_000]),
];
