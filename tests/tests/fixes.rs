//! Every reason a tool is sent non-strict says what to change for it to be strict (issue 62):
//! a change to the Rust type the schema comes from, and encoding where, and only where, turning
//! it on makes that tool strict.

mod support;

use serde_json::{Value, json};
use toolschema::Target;
use toolschema::adapt::{AdaptSettings, convert};

use support::all_catalogs;

const STRICT_TARGETS: [Target; 4] = [
    Target::OpenAiStrict,
    Target::OpenAiResponses,
    Target::AnthropicStrict,
    Target::DeepSeekStrict,
];

const FIX: &str = "To keep the tool strict, ";
const ENCODING: &str = "turn on encoding (`AdaptSettings::with_encoding(true)`, `--encode`";

/// The fail-open loss of a tool sent non-strict (the engine puts it first).
fn fail_open(settings: &AdaptSettings, schema: &Value) -> Option<String> {
    let adapted = settings.adapt(schema);
    (adapted.strict == Some(false)).then(|| {
        let first = &adapted.losses[0];
        assert_eq!(first.keyword, "strict", "{:?}", adapted.losses);
        first.detail.clone()
    })
}

/// Every fixture tool sent non-strict, on every strict target, alone: the reason ends with a
/// fix, and it offers encoding exactly when the same settings with encoding make it strict.
#[test]
fn every_fail_open_reason_of_the_fixtures_says_what_to_change() {
    let mut seen = 0;
    for (name, catalog) in all_catalogs() {
        for tool in &catalog.tools {
            for target in STRICT_TARGETS {
                let Some(detail) = fail_open(&target.settings(), &tool.schema) else {
                    continue;
                };
                seen += 1;
                let at = format!("{name} / {:?} / {target}: {detail}", tool.name);
                assert!(detail.contains(FIX), "no fix: {at}");
                let encoded = target.settings().with_encoding(true).adapt(&tool.schema);
                assert_eq!(
                    detail.contains(ENCODING),
                    encoded.strict == Some(true),
                    "encoding offered iff it works: {at}"
                );
                // With encoding already on, encoding is never the advice.
                if let Some(again) = fail_open(&target.settings().with_encoding(true), &tool.schema)
                {
                    assert!(!again.contains(ENCODING), "{at}\nencoded: {again}");
                }
            }
        }
    }
    assert!(
        seen >= 15,
        "the fixtures hold tools sent non-strict ({seen})"
    );
}

/// Each refusal names the change that removes it from the Rust type.
#[test]
fn each_refusal_names_its_own_change() {
    let object = |property: Value| json!({"type": "object", "properties": {"p": property}, "required": ["p"]});
    let cases: Vec<(Target, Value, &str)> = vec![
        (
            Target::OpenAiStrict,
            object(json!({"type": "object", "additionalProperties": {"type": "integer"}})),
            "with a struct whose fields name its keys",
        ),
        (
            Target::AnthropicStrict,
            object(json!({"type": "object", "additionalProperties": true})),
            "with a struct whose fields name its keys",
        ),
        (
            Target::OpenAiStrict,
            object(json!({"type": "object", "patternProperties": {"^x-": {"type": "string"}}})),
            "pattern-keyed map",
        ),
        (
            Target::OpenAiStrict,
            object(json!({})),
            "instead of `serde_json::Value`",
        ),
        (
            Target::AnthropicStrict,
            json!({"type": "object", "properties": {"node": {"$ref": "#/$defs/Node"}},
                "$defs": {"Node": {"type": "object", "properties": {
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}}),
            "bound the depth in the Rust type",
        ),
        (
            Target::AnthropicStrict,
            object(json!({"enum": [{"a": 1}, {"b": 2}]})),
            "make the enum's values strings",
        ),
        (
            Target::OpenAiStrict,
            object(
                json!({"type": "string", "enum": (0..1001).map(|i| format!("v{i}")).collect::<Vec<_>>()}),
            ),
            "take the long list of values out of the enum",
        ),
    ];
    for (target, schema, change) in cases {
        let detail = fail_open(&target.settings(), &schema)
            .unwrap_or_else(|| panic!("{target}: strict for {schema}"));
        assert!(
            detail.contains(FIX) && detail.contains(change),
            "{target}: {detail}"
        );
    }
}

/// A tool over Anthropic's per-request strict budget says what to change in the request.
#[test]
fn a_tool_over_the_strict_budget_says_what_to_change() {
    let tools: Vec<Value> = (0..21)
        .map(|i| {
            json!({"name": format!("t{i}"), "inputSchema": {"type": "object",
            "properties": {"a": {"type": "string"}}, "required": ["a"]}})
        })
        .collect();
    let catalog = toolschema::catalog::Catalog::from_value(json!({"tools": tools})).unwrap();
    let converted = convert(&catalog, Target::AnthropicStrict);
    let last = converted.report.tools.last().unwrap();
    assert_eq!(last.strict, Some(false));
    assert!(
        last.losses[0]
            .detail
            .contains("send fewer tools in one request"),
        "{:?}",
        last.losses
    );
}
