//! Whole-target behaviour: pipelines, fail-open, fallbacks and hostile input.

use serde_json::{Value, json};

use super::*;

fn kinds(a: &Adapted) -> Vec<(String, LossKind)> {
    a.losses
        .iter()
        .map(|l| (l.keyword.to_string(), l.kind))
        .collect()
}

/// What schemars publishes for a typical tool (draft 2020-12).
fn schemars_like() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Search",
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "description": "What to find"},
            "limit": {"type": ["integer", "null"], "format": "uint32", "minimum": 0, "default": 10},
            "mode": {"oneOf": [
                {"type": "string", "const": "fast", "description": "quick"},
                {"type": "string", "const": "deep", "description": "slow"}
            ]},
            "filter": {"$ref": "#/$defs/Filter", "description": "Optional filter"},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5}
        },
        "required": ["query", "mode"],
        "$defs": {
            "Filter": {"type": "object", "properties": {"field": {"type": "string"}}, "required": ["field"]}
        }
    })
}

#[test]
fn openai_strict_keeps_what_openai_enforces_by_default() {
    let a = Target::OpenAiStrict.adapt_owned(schemars_like());
    assert_eq!(a.strict, Some(true), "{:#?}", a.losses);
    let p = &a.schema["properties"];
    // Kept: number range, array length (OpenAI's Structured Outputs "supported properties").
    // A nullable scalar stays `type: [T, "null"]`, the form OpenAI documents for optional
    // fields.
    assert_eq!(p["limit"]["type"], json!(["integer", "null"]));
    assert_eq!(p["limit"]["minimum"], json!(0));
    assert_eq!(
        p["limit"]["description"],
        "(default: 10)\n\nIn uint32 format."
    );
    assert_eq!(p["tags"]["anyOf"][0]["maxItems"], json!(5));
    // Spilled: not in OpenAI's list (`minLength`, a format outside its list).
    assert_eq!(
        p["query"],
        json!({"type": "string", "description": "What to find\n\nAt least 1 character."})
    );
    let with_format = json!({"type": "object", "properties": {
        "when": {"type": "string", "format": "date-time", "pattern": "^2"},
        "site": {"type": "string", "format": "uri"},
        "step": {"type": "number", "multipleOf": 0.5, "exclusiveMaximum": 10}
    }, "required": ["when", "site", "step"]});
    let a = Target::OpenAiResponses.adapt(&with_format);
    assert_eq!(a.strict, Some(true), "{:#?}", a.losses);
    let p = &a.schema["properties"];
    assert_eq!(
        p["when"],
        json!({"type": "string", "format": "date-time", "pattern": "^2"})
    );
    assert_eq!(
        p["site"],
        json!({"type": "string", "description": "In uri format."})
    );
    assert_eq!(
        p["step"],
        json!({"type": "number", "multipleOf": 0.5, "exclusiveMaximum": 10})
    );
}

#[test]
fn openai_strict_follows_seed_section_2_when_conservative() {
    let a = Target::OpenAiStrict
        .settings()
        .with_options(crate::adapt::AdaptOptions::default().openai_conservative(true))
        .adapt_owned(schemars_like());
    assert_eq!(a.strict, Some(true), "{:#?}", a.losses);
    assert!(!a.fallback);
    let s = &a.schema;
    assert!(s.get("$schema").is_none() && s.get("title").is_none());
    assert_eq!(s["additionalProperties"], json!(false));
    assert_eq!(
        s["required"],
        json!(["query", "limit", "mode", "filter", "tags"])
    );
    // Spilled constraints, default in the description.
    assert_eq!(
        s["properties"]["query"],
        json!({"type": "string", "description": "What to find\n\nAt least 1 character."})
    );
    let limit = &s["properties"]["limit"];
    assert_eq!(limit["type"], json!(["integer", "null"]));
    assert!(limit.get("minimum").is_none());
    assert_eq!(
        limit["description"],
        "(default: 10)\n\nIn uint32 format; at least 0."
    );
    // oneOf of exclusive consts → anyOf, const → enum.
    assert_eq!(
        s["properties"]["mode"]["anyOf"][0],
        json!({"type": "string", "description": "quick", "enum": ["fast"]})
    );
    // `$ref` with a description: inlined, closed, and nullable because optional.
    let filter = &s["properties"]["filter"];
    assert_eq!(filter["description"], "Optional filter");
    assert_eq!(filter["anyOf"][0]["additionalProperties"], json!(false));
    assert_eq!(filter["anyOf"][1], json!({"type": "null"}));
    // `Filter`'s only use was inlined: the definition is not sent (nothing references it).
    assert!(s.get("$defs").is_none(), "{s:#}");
    assert!(
        (a.changes.iter()).any(|c| c.rule == "orphaned-definitions"
            && c.detail == "every use inlined, so not sent: `Filter`"),
        "{:#?}",
        a.changes
    );
    let lost: Vec<(String, LossKind)> = kinds(&a);
    for expected in [
        ("minLength", LossKind::Spilled),
        ("format", LossKind::Spilled),
        ("default", LossKind::Spilled),
        ("maxItems", LossKind::Spilled),
    ] {
        assert!(
            lost.contains(&(expected.0.to_owned(), expected.1)),
            "{expected:?} in {lost:?}"
        );
    }
    assert!(
        a.changes
            .iter()
            .any(|c| c.rule == "close-objects" && c.pointer == "/properties/limit")
    );
}

#[test]
fn strict_fails_open_to_the_non_strict_output() {
    let open_map = json!({"type": "object", "properties": {"labels": {"type": "object", "additionalProperties": {"type": "string"}}}});
    for (strict, relaxed) in [
        (Target::OpenAiStrict, Target::OpenAi),
        (Target::AnthropicStrict, Target::Anthropic),
    ] {
        let a = strict.adapt(&open_map);
        assert_eq!(a.strict, Some(false));
        assert!(!a.fallback);
        assert_eq!(
            a.schema,
            relaxed.adapt(&open_map).schema,
            "never half-strict"
        );
        assert_eq!(a.losses[0].kind, LossKind::Fallback);
        assert_eq!(a.losses[0].keyword, "strict");
        assert!(
            a.losses[0].detail.contains("/properties/labels"),
            "{}",
            a.losses[0].detail
        );
    }
    let r = Target::OpenAiResponses.adapt(&open_map);
    assert_eq!(r.strict, Some(false));
}

/// An object that declares nothing of its members takes any object; strict mode would close it
/// to `{}` (a model could send nothing there): refused, so the tool fails open, unless it is the
/// root (a tool without parameters) or an empty struct (`properties: {}`). With encoding on it is
/// JSON text instead.
#[test]
fn an_object_that_declares_nothing_is_not_closed_to_nothing() {
    let any = json!({"type": "object", "properties": {"schema": {"type": "object"}}});
    for target in [
        Target::OpenAiStrict,
        Target::AnthropicStrict,
        Target::DeepSeekStrict,
    ] {
        let a = target.adapt(&any);
        assert_eq!(a.strict, Some(false), "{target}");
        assert!(
            a.losses[0]
                .detail
                .contains("strict mode would close it to `{}`"),
            "{}",
            a.losses[0].detail
        );
        let encoded = target.settings().with_encoding(true).adapt(&any);
        assert_eq!(encoded.strict, Some(true), "{target}");
        assert_eq!(encoded.encoded[0].pointer.as_str(), "/properties/schema");
        for fine in [
            json!({"type": "object"}),
            json!({"type": "object", "properties": {"unit": {"type": "object", "properties": {}}}}),
        ] {
            assert_eq!(target.adapt(&fine).strict, Some(true), "{target}: {fine}");
        }
    }
}

#[test]
fn non_object_roots_fall_back_per_tool() {
    for root in [
        json!({"type": "array"}),
        json!(false),
        json!({"anyOf": [{"type": "string"}]}),
    ] {
        for &target in Target::ALL {
            let a = target.adapt(&root);
            assert!(a.fallback, "{target} {root}");
            // The empty object as the target sends it, a fixed point of the adaptation.
            let empty = target.adapt_owned(json!({"type": "object", "properties": {}}));
            assert_eq!(a.schema, empty.schema, "{target}");
            assert_eq!(a.strict, empty.strict, "{target}");
            assert_eq!(target.adapt(&a.schema).schema, a.schema, "{target}");
            assert_eq!(a.losses.len(), 1);
            assert_eq!(a.losses[0].kind, LossKind::Fallback);
        }
    }
    // `true` and `{}` are the permissive object: a change, not a fallback.
    assert!(!Target::OpenAi.adapt(&json!(true)).fallback);
}

#[test]
fn keyword_named_properties_survive_every_target() {
    let names = [
        "const",
        "nullable",
        "$defs",
        "definitions",
        "pattern",
        "properties",
        "default",
        "type",
        "enum",
        "anyOf",
        "$ref",
        "items",
        "required",
        "title",
    ];
    let mut props = serde_json::Map::new();
    for n in names {
        props.insert(n.to_owned(), json!({"type": "string", "description": n}));
    }
    let schema = json!({"type": "object", "properties": props, "required": ["const"], "$defs": {"Unused": {"type": "string"}}});
    for &target in Target::ALL {
        let a = target.adapt(&schema);
        let out = a.schema["properties"]
            .as_object()
            .unwrap_or_else(|| panic!("{target}: {}", a.schema));
        for n in names {
            let p = &out[n];
            let inner = if p.get("anyOf").is_some() {
                &p["anyOf"][0]
            } else {
                p
            };
            assert!(
                inner["type"] == "string" || inner["type"] == json!(["string", "null"]),
                "{target}: property `{n}` became {p}"
            );
        }
        assert!(out.get("enum").is_some_and(|e| e.is_object()), "{target}");
    }
}

#[test]
fn mcp_changes_only_schema_uri_unused_definitions_and_order() {
    let input = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"v": {"anyOf": [{"const": "all"}, {"type": "array", "items": {"type": "string"}}], "minLength": 3}},
        "definitions": {"Old": {"type": ["string", "null"]}}
    });
    let a = Target::Mcp.adapt(&input);
    assert_eq!(a.strict, None);
    assert!(a.losses.is_empty(), "{:?}", a.losses);
    let mut expected = input.clone();
    expected.as_object_mut().unwrap().shift_remove("$schema");
    // A definition nothing references is never sent: tokens paid on every request for nothing.
    expected
        .as_object_mut()
        .unwrap()
        .shift_remove("definitions");
    expected["properties"]["v"]["anyOf"] =
        json!([{"type": "array", "items": {"type": "string"}}, {"const": "all"}]);
    assert_eq!(a.schema, expected);
    let rules: Vec<&str> = a.changes.iter().map(|c| c.rule).collect();
    assert_eq!(
        rules,
        [
            "unreferenced-definitions",
            "remove-schema-uri",
            "structured-first"
        ]
    );
}

#[test]
fn anthropic_strict_spills_what_its_grammar_lacks() {
    let schema = json!({"type": "object", "properties": {
        "n": {"type": "integer", "minimum": 1, "maximum": 9},
        "s": {"type": "string", "maxLength": 5, "format": "email"},
        "u": {"type": "string", "format": "uint32", "pattern": "^(?!x)"},
        "one": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
        "opt": {"type": "boolean"}
    }, "required": ["n", "s", "u", "one"]});
    let a = Target::AnthropicStrict.adapt(&schema);
    assert_eq!(a.strict, Some(true), "{:#?}", a.losses);
    let p = &a.schema["properties"];
    assert_eq!(
        p["n"],
        json!({"type": "integer", "description": "At least 1; at most 9."})
    );
    assert_eq!(p["s"]["format"], "email");
    assert!(p["u"].get("format").is_none() && p["u"].get("pattern").is_none());
    assert_eq!(p["one"]["minItems"], 1);
    assert!(p["one"].get("maxItems").is_none());
    assert_eq!(
        a.schema["required"],
        json!(["n", "s", "u", "one"]),
        "optional stays optional"
    );
    assert_eq!(a.schema["additionalProperties"], json!(false));
    // minimum, maximum, maxLength, format uint32, the lookaround pattern, maxItems.
    assert_eq!(
        a.losses
            .iter()
            .filter(|l| l.kind == LossKind::Spilled)
            .count(),
        6
    );
}

#[test]
fn responses_prepass_then_strict() {
    let schema = json!({"type": "object", "properties": {
        "code": {"type": "string", "pattern": "^(?!bad$)[a-z]+$"},
        "target": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
    }, "required": ["code", "target"]});
    let a = Target::OpenAiResponses.adapt(&schema);
    assert_eq!(a.strict, Some(true));
    assert!(a.schema["properties"]["target"].get("oneOf").is_none());
    assert!(
        a.losses
            .iter()
            .any(|l| l.keyword == "pattern" && l.kind == LossKind::Dropped)
    );
}

/// `levels` nested objects, each requiring `x` (so strict adds no per-level change: the report
/// would otherwise hold one full-length pointer per level, quadratic text by nature).
fn nested(levels: usize) -> Value {
    let mut node = json!({"type": "string", "minLength": 1});
    for _ in 0..levels {
        let mut props = serde_json::Map::new();
        props.insert("x".into(), node);
        let mut obj = serde_json::Map::new();
        obj.insert("type".into(), json!("object"));
        obj.insert("properties".into(), Value::Object(props));
        obj.insert("required".into(), json!(["x"]));
        node = Value::Object(obj);
    }
    node
}

#[test]
fn hostile_inputs_never_panic() {
    let cases = vec![
        (
            "root recursion",
            json!({"type": "object", "properties": {"child": {"$ref": "#"}}}),
        ),
        (
            "defs cycle",
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}}),
        ),
        (
            "dangling ref",
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Nope", "description": "x"}}}),
        ),
        (
            "external ref",
            json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}}),
        ),
        (
            "booleans",
            json!({"type": "object", "properties": {"t": true, "f": false}, "additionalProperties": false}),
        ),
        (
            "weird values",
            json!({"type": "object", "properties": {"a": {"type": 7, "enum": "x", "required": 3, "anyOf": {}}}, "required": "a"}),
        ),
        ("200 levels", nested(200)),
    ];
    for (name, schema) in cases {
        for &target in Target::ALL {
            let a = target.adapt(&schema);
            assert_eq!(
                a.schema["type"], "object",
                "{name} / {target}: {}",
                a.schema
            );
            if target.wants_strict() && a.strict == Some(false) {
                assert_eq!(a.losses[0].kind, LossKind::Fallback, "{name} / {target}");
            }
        }
    }
    // Deep nesting exceeds OpenAI's 10 levels: fails open with the reason.
    let a = Target::OpenAiStrict.adapt_owned(nested(200));
    assert_eq!(a.strict, Some(false));
    assert!(
        a.losses[0].detail.contains("levels of object nesting"),
        "{}",
        a.losses[0].detail
    );
    // Recursion is fine for OpenAI strict, not for Anthropic strict.
    let tree = json!({"type": "object", "properties": {"child": {"$ref": "#"}, "name": {"type": "string"}}, "required": ["name"]});
    assert_eq!(Target::OpenAiStrict.adapt(&tree).strict, Some(true));
    assert_eq!(Target::AnthropicStrict.adapt(&tree).strict, Some(false));
    assert_eq!(
        Target::OpenAiStrict.adapt(&tree).schema["properties"]["child"],
        json!({"anyOf": [{"$ref": "#"}, {"type": "null"}]})
    );
    // A dangling reference is never strict.
    let dangling =
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Nope"}}, "required": ["a"]});
    assert_eq!(Target::OpenAiStrict.adapt(&dangling).strict, Some(false));
}

#[test]
fn huge_schemas_are_linear_enough_to_finish() {
    let props: serde_json::Map<String, Value> = (0..5_000)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"type": ["string", "null"], "maxLength": 10}),
            )
        })
        .collect();
    let wide = json!({"type": "object", "properties": props});
    let a = Target::OpenAiStrict.adapt(&wide);
    assert_eq!(a.strict, Some(true));
    assert_eq!(a.schema["required"].as_array().unwrap().len(), 5_000);
    let deep = nested(2_000);
    for &target in Target::ALL {
        let a = target.adapt(&deep);
        assert!(!a.fallback, "{target}");
        std::mem::forget(a);
    }
    std::mem::forget(deep);
}

#[test]
fn target_names_round_trip() {
    for &t in Target::ALL {
        assert_eq!(t.as_str().parse::<Target>(), Ok(t));
        assert_eq!(serde_json::to_value(t).unwrap(), json!(t.as_str()));
    }
    assert!(
        "gemeni"
            .parse::<Target>()
            .unwrap_err()
            .to_string()
            .contains("expected one of")
    );
}

#[test]
fn gemini_follows_seed_section_3() {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": ["string", "null"], "pattern": "^a", "description": "Name"},
            "kind": {"const": "fixed"},
            "level": {"type": "integer", "enum": [1, 2]},
            "node": {"$ref": "#/$defs/Node"},
            "extra": {"type": "object", "additionalProperties": {"type": "string"}}
        },
        "required": ["kind"],
        "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}, "v": {"type": "string"}}}}
    });
    let a = Target::GeminiCompat.adapt(&schema);
    assert_eq!(a.strict, None);
    assert!(!a.fallback);
    let p = &a.schema["properties"];
    assert_eq!(
        p["name"],
        json!({"type": "string", "description": "Name\n\nMatching the pattern `^a`.", "nullable": true})
    );
    assert_eq!(p["kind"], json!({"enum": ["fixed"], "type": "string"}));
    assert_eq!(p["level"]["type"], "integer");
    assert!(p["level"].get("enum").is_none(), "only string enums");
    assert_eq!(
        p["node"]["properties"]["next"]["properties"]["v"],
        json!({"type": "string"})
    );
    assert!(a.schema.get("$defs").is_none());
    assert_eq!(p["extra"], json!({"type": "object", "properties": {}}));
    assert_eq!(
        a.schema["propertyOrdering"],
        json!(["name", "kind", "level", "node", "extra"])
    );
    let kinds: Vec<(String, LossKind)> = kinds(&a);
    for k in [
        ("pattern", LossKind::Spilled),
        ("enum", LossKind::Spilled),
        ("$ref", LossKind::Inlined),
        ("additionalProperties", LossKind::Dropped),
    ] {
        assert!(kinds.contains(&(k.0.to_owned(), k.1)), "{k:?} in {kinds:?}");
    }
}

#[test]
fn gemini_openapi_sends_only_schema_fields() {
    let schema = json!({"type": "object", "properties": {
        "when": {"type": "string", "format": "date-time"},
        "uri": {"type": "string", "format": "uri", "maxLength": 200},
        "pick": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        "pair": {"type": "array", "prefixItems": [{"type": "string"}]}
    }});
    let a = Target::GeminiOpenApi.adapt(&schema);
    let p = &a.schema["properties"];
    assert_eq!(p["when"]["format"], "date-time");
    assert_eq!(
        p["uri"],
        json!({"type": "string", "maxLength": 200, "description": "In uri format."})
    );
    assert!(p["pick"].get("anyOf").is_some() && p["pick"].get("oneOf").is_none());
    // The legacy `Schema` has no `prefixItems`: a tuple is sent as `items`.
    assert_eq!(
        p["pair"],
        json!({"type": "array", "items": {"type": "string"}})
    );
    assert!(a.changes.iter().any(|c| c.rule == "tuple-items"));
}

/// Every target that has `items` but no `prefixItems` gets the tuple as `items` (same schema per
/// position) or `items.anyOf` with a widened loss; OpenAI strict refuses an untyped array.
#[test]
fn tuples_per_target() {
    let schema = json!({"type": "object", "properties": {
        "point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "minItems": 2, "maxItems": 2},
        "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "minItems": 2, "maxItems": 2}
    }, "required": ["point", "pair"]});
    for target in [
        Target::OpenAiStrict,
        Target::OpenAiResponses,
        Target::AnthropicStrict,
        Target::GeminiCompat,
        Target::GeminiOpenApi,
        Target::CcaClaude,
    ] {
        let a = target.adapt(&schema);
        let text = a.schema.to_string();
        assert!(!text.contains("prefixItems"), "{target}: {text}");
        assert_eq!(
            a.schema["properties"]["point"]["items"]["type"], "number",
            "{target}"
        );
        assert!(
            a.losses.iter().any(|l| l.pointer == "/properties/pair/prefixItems"
                && l.kind == LossKind::Widened),
            "{target}: {:?}",
            a.losses
        );
        if target.wants_strict() {
            assert_eq!(a.strict, Some(true), "{target}: {:?}", a.losses);
        }
    }
    let untyped =
        json!({"type": "object", "properties": {"xs": {"type": "array"}}, "required": ["xs"]});
    for target in [Target::OpenAiStrict, Target::OpenAiResponses] {
        let a = target.adapt(&untyped);
        assert_eq!(a.strict, Some(false), "{target}");
        assert!(a.losses[0].detail.contains("no `items`"), "{:?}", a.losses);
    }
}

#[test]
fn cca_claude_follows_seed_section_4() {
    let schema = json!({"type": "object", "properties": {
        "maybe": {"type": ["string", "null"]},
        "lines": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
        "shape": {"oneOf": [
            {"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"]},
            {"type": "object", "properties": {"w": {"type": "number"}}, "required": ["w"]}
        ]},
        "ref": {"allOf": [{"$ref": "#/$defs/X"}], "description": "documented"}
    }, "required": ["maybe", "lines", "shape"], "$defs": {"X": {"type": "string"}}});
    let a = Target::CcaClaude.adapt(&schema);
    assert!(!a.fallback, "{:#?}", a.losses);
    let p = &a.schema["properties"];
    assert_eq!(p["maybe"], json!({"type": "string"}));
    // The array form was moved first, so the collapse keeps it.
    assert_eq!(
        p["lines"],
        json!({"type": "array", "items": {"type": "string"}})
    );
    assert_eq!(
        p["shape"]["properties"],
        json!({"r": {"type": "number"}, "w": {"type": "number"}})
    );
    assert_eq!(
        p["ref"],
        json!({"type": "string", "description": "documented"})
    );
    // Nullable properties are optional, not required.
    assert_eq!(a.schema["required"], json!(["shape"]));
    assert!(
        a.changes
            .iter()
            .any(|c| c.rule == "nullable-properties-optional" && c.pointer == "/properties/maybe")
    );
    assert!(a.losses.iter().any(|l| l.kind == LossKind::Collapsed));

    // Per-tool fallback with the reason: `not` cannot be expressed.
    let a = Target::CcaClaude
        .adapt_owned(json!({"type": "object", "properties": {"x": {"not": {"type": "string"}}}}));
    assert!(a.fallback);
    assert_eq!(a.schema, json!({"type": "object", "properties": {}}));
    assert!(
        a.losses[0].detail.contains("`not`"),
        "{}",
        a.losses[0].detail
    );
    // An invalid schema is refused before any rule runs (a misspelt type name has no one
    // meaning to repair).
    let a = Target::CcaClaude
        .adapt_owned(json!({"type": "object", "properties": {"x": {"type": "strng"}}}));
    assert!(a.fallback);
    assert!(
        a.losses[0].detail.contains("2020-12"),
        "{}",
        a.losses[0].detail
    );
}

#[test]
fn cca_deep_nesting_is_linear() {
    // The reference's fixpoint takes seconds at 20 levels; 200 levels finish here at once.
    let mut node = json!({"type": "string"});
    for _ in 0..200 {
        node = json!({"anyOf": [{"type": "object", "properties": {"x": node}, "required": ["x"]}, {"type": "null"}]});
    }
    let schema = json!({"type": "object", "properties": {"root": node}});
    let a = Target::CcaClaude.adapt(&schema);
    assert!(!a.fallback, "{:?}", a.losses.first());
    std::mem::forget(a);
    std::mem::forget(schema);
}

#[test]
fn each_provider_is_a_value() {
    for &target in Target::ALL {
        let settings = target.settings();
        assert_eq!(settings.target, target);
        assert_eq!(settings.wants_strict(), target.wants_strict());
        // The default settings are what `adapt` runs.
        let schema = json!({"type": "object", "properties": {"n": {"type": ["integer", "null"], "minimum": 1}}});
        assert_eq!(settings.adapt(&schema), target.adapt(&schema), "{target}");
        assert_eq!(
            target.adapt_owned(schema.clone()),
            target.adapt(&schema),
            "{target}"
        );
    }
}

#[test]
fn a_kept_keyword_is_neither_stripped_nor_reported() {
    let schema = json!({"type": "object", "properties": {"s": {"type": "string", "minLength": 2}}, "required": ["s"]});
    let default = AdaptSettings::openai_strict().adapt(&schema);
    assert!(default.schema["properties"]["s"].get("minLength").is_none());
    assert!(default.losses.iter().any(|l| l.keyword == "minLength"));
    let kept = AdaptSettings::openai_strict()
        .keep_keyword("minLength")
        .adapt(&schema);
    assert_eq!(kept.schema["properties"]["s"]["minLength"], 2);
    assert!(
        !kept.losses.iter().any(|l| l.keyword == "minLength"),
        "{:?}",
        kept.losses
    );
}

/// The shallow check answers as the full depth count does, at and around the limit, for
/// arrays, objects, empty containers and scalars at the bottom.
#[test]
fn the_shallow_check_agrees_with_the_depth_count() {
    // Each with its own depth.
    let bottoms = [
        (json!(1), 1),
        (json!([]), 1),
        (json!({}), 1),
        (json!({"a": "b"}), 2),
        (json!([null]), 2),
    ];
    for (bottom, depth) in bottoms {
        for levels in [0usize, 1, 126, 127, 128, 129, 300] {
            for in_objects in [true, false] {
                let mut v = bottom.clone();
                for _ in 0..levels {
                    v = if in_objects {
                        json!({"items": v, "x": 1})
                    } else {
                        json!([0, v])
                    };
                }
                assert_eq!(
                    super::json_depth(&v),
                    levels + depth,
                    "{levels} over {bottom}"
                );
                for limit in [0usize, 1, 127, 128, 129] {
                    assert_eq!(
                        super::nests_deeper_than(&v, limit),
                        super::json_depth(&v) > limit,
                        "{levels} levels over {bottom}, limit {limit}"
                    );
                }
            }
        }
    }
}

/// A caller's rule by name: taken out of every list, standing in place of the target's rule of
/// its name, or run after the target's rules in each form it sends.
#[test]
fn a_rule_is_taken_out_replaced_or_added_by_name() {
    use crate::adapt::rules::{Keyword, Report, Rule, Tree};

    /// Marks the root's description with its name.
    #[derive(Clone)]
    struct Mark(&'static str);
    impl Rule for Mark {
        fn name(&self) -> &'static str {
            self.0
        }
        fn apply(&mut self, tree: &mut Tree, _: &mut Report) {
            let root = tree.root;
            tree.set_value(root, Keyword::Description, json!(self.0));
        }
    }

    let names = |rules: Vec<Box<dyn Rule>>| -> Vec<&'static str> {
        rules.iter().map(|r| r.name()).collect()
    };
    let schema = json!({"type": "object", "properties": {"v": {"anyOf": [
        {"type": "string"}, {"type": "object", "properties": {}}
    ]}}});
    let first_branch = |a: &Adapted| a.schema["properties"]["v"]["anyOf"][0]["type"].clone();

    let plain = AdaptSettings::openai();
    assert_eq!(first_branch(&plain.adapt(&schema)), "object");

    let without = AdaptSettings::openai()
        .without_rule("structured-first")
        .unwrap();
    assert!(!names(without.rules()).contains(&"structured-first"));
    assert_eq!(first_branch(&without.adapt(&schema)), "string");

    let replaced = AdaptSettings::openai().with_rule(Mark("structured-first"));
    assert_eq!(names(replaced.rules()), names(plain.rules()));
    let adapted = replaced.adapt(&schema);
    assert_eq!(adapted.schema["description"], "structured-first");
    assert_eq!(first_branch(&adapted), "string");

    let added = AdaptSettings::openai_strict().with_rule(Mark("tail"));
    for list in [added.rules(), added.relaxed_rules()] {
        assert_eq!(names(list).last(), Some(&"tail"));
    }
    let adapted = added.adapt(&schema);
    assert_eq!(adapted.strict, Some(true));
    assert_eq!(adapted.schema["description"], "tail");
    // Taken out, then added again: the caller's rule stands where the target's stood.
    let back = AdaptSettings::openai()
        .without_rule("structured-first")
        .unwrap()
        .with_rule(Mark("structured-first"));
    assert_eq!(names(back.rules()), names(plain.rules()));
    assert_eq!(
        back.adapt(&schema).schema["description"],
        "structured-first"
    );
    // Added once: a second rule of the same name replaces the first.
    let twice = AdaptSettings::openai()
        .with_rule(Mark("tail"))
        .with_rule(Mark("tail"));
    assert_eq!(names(twice.rules()).len(), names(plain.rules()).len() + 1);
}

/// An unreferenced definition is never sent, on any target (issue 49: a published server's
/// tools each carried 2.3 KB of `$defs` nothing references, paid in tokens on every request);
/// one that is referenced stays where the target keeps definitions.
#[test]
fn no_target_sends_a_definition_nothing_references() {
    let input = json!({
        "type": "object",
        "properties": {"item": {"$ref": "#/$defs/Used"}},
        "required": ["item"],
        "$defs": {
            "Used": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
            "Unused": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Unused"}}}
        }
    });
    for &target in Target::ALL {
        let a = target.adapt(&input);
        let text = a.schema.to_string();
        assert!(!text.contains("Unused"), "{target}: {text}");
        assert!(
            (a.changes.iter()).any(|c| c.rule == "unreferenced-definitions"
                && c.detail == "1 definition nothing references removed: `Unused`"),
            "{target}: {:#?}",
            a.changes
        );
        if let Some(defs) = a.schema.get("$defs") {
            assert!(defs.get("Used").is_some(), "{target}: {text}");
        }
    }
}

/// A union of null branches alone has no Google form either: sent as `nullable` with no type,
/// it accepts any value, and the report says so at that node (issue 48 item 9; a fuzz finding:
/// `prefixItems: [{"anyOf": [{"type": "null"}]}]` was sent as items `{nullable: true}` with no
/// entry there). A union with a branch that already accepted anything is no widening.
#[test]
fn a_union_of_null_alone_sent_untyped_on_google_is_a_widening() {
    for target in [Target::GeminiCompat, Target::GeminiOpenApi] {
        let input = json!({"type": "object", "properties": {
            "gone": {"anyOf": [{"type": "null"}, {"const": null}]},
            "any": {"anyOf": [{}, {"type": "null"}]}
        }});
        let a = target.adapt(&input);
        assert_eq!(
            a.schema["properties"]["gone"],
            json!({"nullable": true}),
            "{target}"
        );
        let widened: Vec<_> = (a.losses.iter())
            .filter(|l| l.kind == LossKind::Widened)
            .map(|l| l.at.as_ref().map(|p| p.as_str().to_owned()))
            .collect();
        assert_eq!(
            widened,
            [Some("/properties/gone".to_owned())],
            "{target}: {:#?}",
            a.losses
        );
    }
}

/// Issue 49, item 8: schemars' integer formats are noise where a provider cannot take `format`
/// (Gemini, Anthropic strict): the bounds are written in words a model reads, and a format that
/// only restates the type and bounds (`u64`'s `uint64` beside `minimum: 0`, `u8`'s `uint8`
/// beside 0 and 255) is not written at all; a format that says more (`u32`'s upper limit) is.
#[test]
fn integer_formats_that_restate_their_bounds_are_not_written() {
    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Counts {
        /// How many.
        total: u64,
        level: u8,
        size: usize,
        offset: i64,
        id: u32,
        rgb: [u8; 3],
    }
    let schema = serde_json::to_value(schemars::schema_for!(Counts)).unwrap();
    for target in [Target::GeminiCompat, Target::AnthropicStrict] {
        let a = target.adapt(&schema);
        let p = &a.schema["properties"];
        let description = |name: &str| p[name].get("description").and_then(Value::as_str);
        assert_eq!(
            description("total"),
            Some("How many.\n\nAt least 0."),
            "{target}"
        );
        assert_eq!(
            description("level"),
            Some("At least 0; at most 255."),
            "{target}"
        );
        assert_eq!(description("size"), Some("At least 0."), "{target}");
        assert_eq!(description("offset"), None, "{target}");
        assert_eq!(
            description("id"),
            Some("In uint32 format; at least 0."),
            "{target}"
        );
        if target == Target::GeminiCompat {
            // Equal bounds read as one.
            assert_eq!(description("rgb"), Some("Exactly 3 items."), "{target}");
        }
        for name in ["total", "level", "size", "offset", "id"] {
            assert!(p[name].get("format").is_none(), "{target}: {name}");
        }
        // The formats not written are dropped losses that say why.
        let dropped: Vec<&str> = (a.losses.iter())
            .filter(|l| l.keyword == "format" && l.kind == LossKind::Dropped)
            .map(|l| l.pointer.as_str())
            .collect();
        assert_eq!(
            dropped,
            [
                "/properties/total/format",
                "/properties/level/format",
                "/properties/size/format",
                "/properties/offset/format",
                "/properties/rgb/items/format"
            ],
            "{target}"
        );
        assert!(
            (a.losses.iter())
                .filter(|l| l.keyword == "format" && l.kind == LossKind::Dropped)
                .all(|l| l
                    .detail
                    .contains("only restates the node's type and bounds")),
            "{target}"
        );
    }
}

/// Issue 59: a node with no `type` whose `pattern` (and `enum`/`const`, where they agree) says
/// it holds strings is sent strict, typed, instead of failing open.
#[test]
fn an_untyped_pattern_is_strict_on_every_strict_target() {
    for target in [
        Target::OpenAiStrict,
        Target::OpenAiResponses,
        Target::AnthropicStrict,
        Target::DeepSeekStrict,
    ] {
        for node in [
            json!({"pattern": "^a"}),
            json!({"pattern": "^a", "enum": ["ab"]}),
        ] {
            let input = json!({"type": "object", "properties": {"a": node}, "required": ["a"]});
            let a = target.adapt(&input);
            assert_eq!(a.strict, Some(true), "{target}: {:#?}", a.losses);
            assert_eq!(
                a.schema["properties"]["a"]["type"],
                json!("string"),
                "{target}"
            );
        }
    }
}

/// Issue 61: `gemini` follows Google's documented keyword list for its JSON Schema fields: the
/// listed keywords are sent (bounds, item counts, `prefixItems`, `additionalProperties`, type
/// lists with `null`, `$ref` through optional properties), the rest spilled or dropped with a
/// loss, `oneOf` read as `anyOf` (widened), `const` as `enum`, a `$ref` with siblings inlined.
#[test]
fn gemini_follows_google_documentation() {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": ["string", "null"], "minLength": 1, "pattern": "^a", "description": "Name"},
            "kind": {"const": "fixed"},
            "level": {"type": "integer", "minimum": 1, "maximum": 5, "multipleOf": 1, "exclusiveMaximum": 9},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3, "uniqueItems": true},
            "point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}]},
            "extra": {"type": "object", "additionalProperties": false, "properties": {"a": {"type": "string"}}},
            "either": {"oneOf": [{"type": "number"}, {"type": "integer"}]},
            "node": {"$ref": "#/$defs/Node"},
            "noted": {"$ref": "#/$defs/Node", "description": "A node."}
        },
        "required": ["kind"],
        "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}, "v": {"type": "string"}}}}
    });
    let a = Target::Gemini.adapt(&schema);
    assert!(!a.fallback);
    let p = &a.schema["properties"];
    assert_eq!(p["name"]["type"], json!(["string", "null"]));
    assert!(p["name"].get("nullable").is_none());
    assert_eq!(p["kind"], json!({"enum": ["fixed"], "type": "string"}));
    assert_eq!(p["level"]["minimum"], json!(1));
    assert_eq!(p["level"]["maximum"], json!(5));
    assert!(p["level"].get("multipleOf").is_none() && p["level"].get("exclusiveMaximum").is_none());
    assert_eq!(
        (&p["tags"]["minItems"], &p["tags"]["maxItems"]),
        (&json!(1), &json!(3))
    );
    assert_eq!(
        p["point"]["prefixItems"],
        json!([{"type": "number"}, {"type": "number"}])
    );
    assert_eq!(p["extra"]["additionalProperties"], json!(false));
    assert!(p["either"].get("anyOf").is_some() && p["either"].get("oneOf").is_none());
    // Recursion through an optional property stays a reference; one with siblings is inlined.
    assert_eq!(p["node"], json!({"$ref": "#/$defs/Node"}));
    assert!(p["noted"].get("$ref").is_none() && p["noted"]["description"] == json!("A node."));
    assert!(a.schema["$defs"]["Node"].is_object());
    let lost = |keyword: &str, kind: LossKind| {
        a.losses
            .iter()
            .any(|l| l.keyword == keyword && l.kind == kind)
    };
    for keyword in [
        "minLength",
        "pattern",
        "multipleOf",
        "exclusiveMaximum",
        "uniqueItems",
    ] {
        assert!(
            lost(keyword, LossKind::Spilled),
            "{keyword}: {:#?}",
            a.losses
        );
    }
    assert!(lost("oneOf", LossKind::Widened), "{:#?}", a.losses);
}

#[test]
fn no_target_sends_the_root_title_and_each_says_so_as_a_change() {
    // The type's name at the root, as schemars writes it; a title below the root is the
    // author's and stays where the target takes titles. A root that is only a `$ref` is replaced
    // by its definition, whose title is then the root's.
    let plain = json!({"title": "CreateEvent", "type": "object",
        "properties": {"when": {"title": "When", "type": "string"}}, "required": ["when"]});
    let by_ref = json!({"title": "Outer", "$ref": "#/$defs/Inner",
        "$defs": {"Inner": {"title": "Inner", "type": "object", "properties": {}}}});
    for &target in Target::ALL {
        for schema in [&plain, &by_ref] {
            let a = target.adapt(schema);
            assert!(a.schema.get("title").is_none(), "{target}: {}", a.schema);
            assert!(
                a.changes
                    .iter()
                    .any(|c| c.rule == "remove-root-title" && c.pointer.as_str() == "/title"),
                "{target}: {:#?}",
                a.changes
            );
            assert!(
                !a.losses.iter().any(|l| l.pointer.as_str() == "/title"),
                "{target}: {:#?}",
                a.losses
            );
        }
    }
}

#[test]
fn annotations_a_target_does_not_take_are_changes_not_losses() {
    // Annotations constrain nothing: a provider without them enforces as much as before.
    let schema = json!({"type": "object", "$comment": "root note",
        "properties": {"when": {"type": "string", "title": "When", "examples": ["today"],
            "deprecated": true, "readOnly": false, "writeOnly": false, "$comment": "a note"},
            "list": {"type": "array", "items": {"type": "integer", "title": "Item"},
                "examples": [[1, 2]]}},
        "required": ["when", "list"]});
    for &target in Target::ALL {
        let a = target.adapt(&schema);
        let annotation_losses: Vec<_> = (a.losses.iter())
            .filter(|l| {
                [
                    "title",
                    "examples",
                    "deprecated",
                    "readOnly",
                    "writeOnly",
                    "$comment",
                ]
                .contains(&&*l.keyword)
            })
            .collect();
        assert!(
            annotation_losses.is_empty(),
            "{target}: {annotation_losses:#?}"
        );
    }
}
