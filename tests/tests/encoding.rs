//! Encoding (`AdaptSettings::with_encoding`): what a target cannot hold is sent in a form it can
//! (open maps as `{key, value}` pairs, any value as JSON text, recursion past two levels as JSON
//! text) and decoded back by `restore`, so a tool stays strict and its server gets exactly the
//! value it asked for.

mod support;

use std::path::PathBuf;

use serde_json::{Value, json};
use toolschema::Target;
use toolschema::adapt::{Adapted, Encoding};
use toolschema::catalog::Catalog;
use toolschema_tests::fuzz::{ENCODING_TARGETS, check_with};

use support::all_catalogs;

/// `tests/fixtures/encoding/maps.json`: one tool per shape the encoding is for.
fn maps() -> Catalog {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/encoding/maps.json");
    Catalog::from_value(serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap())
        .unwrap()
}

fn tool(name: &str) -> Value {
    let catalog = maps();
    let tool = catalog
        .tools
        .into_iter()
        .find(|t| t.name.as_deref() == Some(name));
    tool.expect("a fixture tool").schema
}

/// With encoding on, every tool of the bundled real catalogs (and every shape of the maps
/// fixture) is strict on the four strict targets, each tool adapted alone (Anthropic's limit of
/// 20 strict tools per request is a request limit, not a schema one). Before and after are
/// printed per catalog; the bound is the 98%.
#[test]
fn encoding_makes_tools_strict() {
    let mut catalogs = all_catalogs();
    catalogs.push(("encoding-maps".to_owned(), maps()));
    for target in [
        Target::OpenAiStrict,
        Target::OpenAiResponses,
        Target::AnthropicStrict,
        Target::DeepSeekStrict,
    ] {
        let (mut total, mut before, mut after) = (0, 0, 0);
        for (name, catalog) in &catalogs {
            let (mut b, mut a) = (0, 0);
            for tool in &catalog.tools {
                let off = target.settings().adapt(&tool.schema);
                let on = target.settings().with_encoding(true).adapt(&tool.schema);
                b += usize::from(off.strict == Some(true));
                a += usize::from(on.strict == Some(true));
                if on.strict != Some(true) {
                    println!(
                        "{target} / {name} / {:?}: {}",
                        tool.name, on.losses[0].detail
                    );
                }
            }
            println!("{target} / {name}: {b} -> {a} of {}", catalog.tools.len());
            if name == "encoding-maps" {
                assert_eq!(
                    a,
                    catalog.tools.len(),
                    "{target}: every map shape is strict"
                );
                // Without encoding only the outline is, where strict mode takes recursion.
                let recursion = usize::from(target != Target::AnthropicStrict);
                assert_eq!(b, recursion, "{target}: strict without encoding");
            }
            total += catalog.tools.len();
            before += b;
            after += a;
        }
        println!("{target}: {before} -> {after} of {total}");
        assert!(after * 100 >= total * 98, "{target}: {after} of {total}");
    }
}

/// Every fixture tool, on every target that encodes, with encoding on: the fuzz suite's
/// invariants (valid for the provider, every promise of the report kept, idempotent) and the
/// round trip: an instance of the input, encoded (`toolschema::encode`), is accepted by the
/// adapted schema and restored to the same value.
#[test]
fn every_fixture_keeps_the_invariants_and_round_trips_encoded() {
    let mut catalogs = all_catalogs();
    catalogs.push(("encoding-maps".to_owned(), maps()));
    for (name, catalog) in &catalogs {
        for tool in &catalog.tools {
            for &target in ENCODING_TARGETS {
                if let Err(e) = check_with(&tool.schema, target, true) {
                    panic!("{name} / {:?} / {target}: {e}", tool.name);
                }
            }
        }
    }
}

fn strict(name: &str, target: Target) -> Adapted<'static> {
    let adapted = target
        .settings()
        .with_encoding(true)
        .adapt_owned(tool(name));
    assert_eq!(
        adapted.strict,
        Some(true),
        "{name} on {target}: {:?}",
        adapted.losses
    );
    adapted
}

/// The map of a MongoDB-style `find`, as the model sends it under OpenAI strict, reaches the
/// server as the map it asked for; the report names each encoded place.
#[test]
fn a_find_call_reaches_the_server_as_maps() {
    let adapted = strict("find", Target::OpenAiStrict);
    let places: Vec<(&str, &Encoding)> = (adapted.encoded.iter())
        .map(|e| (e.pointer.as_str(), &e.encoding))
        .collect();
    assert_eq!(
        places,
        [
            ("/properties/filter", &Encoding::JsonText),
            ("/properties/projection", &Encoding::Pairs)
        ]
    );
    let props = &adapted.schema["properties"];
    assert_eq!(props["filter"]["type"], json!(["string", "null"]));
    assert_eq!(props["projection"]["anyOf"][0]["type"], "array");
    assert_eq!(props["projection"]["anyOf"][1]["type"], "null");
    let sent = json!({"database": "shop", "collection": "orders",
        "filter": "{\"status\": {\"$in\": [\"paid\", \"sent\"]}}",
        "projection": [{"key": "total", "value": 1}, {"key": "_id", "value": 0}],
        "limit": null});
    let back = toolschema::restore(&adapted, sent).unwrap();
    assert_eq!(
        back,
        json!({"database": "shop", "collection": "orders",
            "filter": {"status": {"$in": ["paid", "sent"]}},
            "projection": {"total": 1, "_id": 0}})
    );
}

/// What the decoder refuses, each at its place, in words a model can act on; and what it
/// accepts although the model did not use the encoded form.
#[test]
fn decoding_refuses_what_is_ambiguous_and_accepts_the_original_form() {
    let find = strict("find", Target::OpenAiStrict);
    let base = json!({"database": "d", "collection": "c", "limit": null});
    let with = |extra: Value| {
        let mut v = base.clone();
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v
    };
    // A key listed twice is refused, never merged.
    let err = toolschema::restore(
        &find,
        with(json!({"filter": null, "projection": [{"key": "a", "value": 1}, {"key": "a", "value": 0}]})),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "The tool arguments were rejected:\n- /projection/1/key repeats the key `a`: give each key once.\nFix these arguments and call the tool again."
    );
    // A value the encoded form still checks: the projection's values.
    let err = toolschema::restore(
        &find,
        with(json!({"filter": null, "projection": [{"key": "a", "value": 2}]})),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("/projection/a must be one of 0, 1"),
        "{err}"
    );
    // Text that is not JSON where an object is asked.
    let err = toolschema::restore(
        &find,
        with(json!({"filter": "status = paid", "projection": null})),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("- /filter must be JSON text"),
        "{err}"
    );
    // The original form (an object, a map) is accepted as it is.
    let back = toolschema::restore(
        &find,
        with(json!({"filter": {"a": 1}, "projection": {"a": 1}})),
    )
    .unwrap();
    assert_eq!(back["filter"], json!({"a": 1}));
    assert_eq!(back["projection"], json!({"a": 1}));
    // JSON text encoded twice where an object is asked: read through both layers.
    let twice = Value::String(Value::String("{\"a\":1}".into()).to_string());
    let back =
        toolschema::restore(&find, with(json!({"filter": twice, "projection": null}))).unwrap();
    assert_eq!(back["filter"], json!({"a": 1}));

    // Declared and undeclared properties: a pair may not name a declared one.
    let kubectl = strict("kubectl_run", Target::OpenAiStrict);
    let flags = &kubectl.schema["properties"]["flags"]["anyOf"][0];
    assert!(
        flags["properties"]["additional_properties"].is_object(),
        "{flags:#}"
    );
    let sent = json!({"command": "get pods", "extra": "[1, \"x\"]", "flags": {"namespace": "prod",
        "additional_properties": [{"key": "watch", "value": true}, {"key": "output", "value": "json"}]}});
    assert_eq!(
        toolschema::restore(&kubectl, sent).unwrap(),
        json!({"command": "get pods", "extra": [1, "x"], "flags": {"namespace": "prod", "watch": true, "output": "json"}})
    );
    let clash = json!({"command": "c", "extra": null, "flags": {"namespace": null,
        "additional_properties": [{"key": "namespace", "value": "x"}]}});
    let err = toolschema::restore(&kubectl, clash).unwrap_err();
    assert!(
        err.to_string().contains("/flags/additional_properties/0/key must not be `namespace`, a declared property: set `namespace` itself instead"),
        "{err}"
    );
    // An any-value place takes a plain string that is not JSON as that string.
    let sent = json!({"command": "c", "extra": "just words", "flags": null});
    assert_eq!(
        toolschema::restore(&kubectl, sent).unwrap()["extra"],
        "just words"
    );
}

/// Anthropic strict takes no recursion: with encoding, the outline is unrolled two levels and
/// the rest is JSON text, decoded and checked against the original schema.
#[test]
fn recursion_is_json_text_past_two_levels_on_anthropic_strict() {
    let off = Target::AnthropicStrict.adapt_owned(tool("save_tree"));
    assert_eq!(off.strict, Some(false));
    let adapted = strict("save_tree", Target::AnthropicStrict);
    assert!(
        adapted
            .encoded
            .iter()
            .all(|e| e.encoding == Encoding::JsonText)
    );
    assert!(!adapted.encoded.is_empty());
    let deep = json!({"title": "c", "children": [{"title": "d"}]});
    let value = json!({"root": {"title": "a", "children": [{"title": "b", "children": [deep]}]}});
    let sent = toolschema::encode(&adapted, value.clone());
    let text = &sent["root"]["children"][0]["children"][0];
    assert!(text.is_string(), "{sent:#}");
    assert_eq!(toolschema::restore(&adapted, sent.clone()).unwrap(), value);
    // Deeper text is checked against the original: a child without its title is refused.
    let mut bad = sent;
    bad["root"]["children"][0]["children"][0] = json!("{\"children\": []}");
    let err = toolschema::restore(&adapted, bad).unwrap_err();
    assert!(
        err.to_string()
            .contains("must include the property `title`"),
        "{err}"
    );
}

/// Encoding is off by default, and with it on a tool that needs none is unchanged.
#[test]
fn encoding_is_opt_in_and_changes_nothing_it_need_not() {
    let find = tool("find");
    assert!(Target::OpenAiStrict.adapt(&find).encoded.is_empty());
    for (_, catalog) in all_catalogs() {
        for tool in &catalog.tools {
            for &target in Target::ALL {
                let on = target.settings().with_encoding(true).adapt(&tool.schema);
                if on.encoded.is_empty() {
                    let off = target.adapt(&tool.schema);
                    assert_eq!(on.schema, off.schema, "{target} / {:?}", tool.name);
                }
            }
        }
    }
}

/// A definition that is a union with itself among its members (`Value: anyOf [{$ref Value},
/// ...]`, as generators of recursive types write it) beside an encoded map: encoding a value and
/// restoring what the model sends end, and the server gets the value back. (Both walks entered
/// the union through its own member for the same value without end: fuzz --encode, seed
/// 0x5eed0068.)
#[test]
fn a_union_that_reaches_itself_encodes_and_restores() {
    let schema = json!({
        "type": "object",
        "properties": {
            "labels": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Value"}},
            "choice": {"$ref": "#/$defs/Choice"}
        },
        "required": ["labels"],
        "$defs": {
            "Value": {"anyOf": [{"$ref": "#/$defs/Value"}, {"type": "number"}, {"type": "string"}]},
            "Choice": {"oneOf": [{"type": "string"}, {"allOf": [{"$ref": "#/$defs/Choice"}]}]}
        }
    });
    for target in [
        Target::OpenAiStrict,
        Target::DeepSeekStrict,
        Target::OpenAiResponses,
    ] {
        let adapted = target
            .settings()
            .with_encoding(true)
            .adapt_owned(schema.clone());
        let value = json!({"labels": {"env": "prod", "replicas": 3}, "choice": "a"});
        let sent = toolschema::encode(&adapted, value.clone());
        assert!(sent["labels"].is_array(), "{target}: {sent}");
        assert_eq!(
            toolschema::restore(&adapted, sent).unwrap(),
            value,
            "{target}"
        );
    }
}
