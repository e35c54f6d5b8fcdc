//! Every fixture catalog (the schemars output of types covering every serde representation and
//! std type, plus the real MCP catalogs) converted for every target:
//! - each tool's schema passes the target's validator, written from the provider rules
//!   (`support/validators.rs`), or is a reported fallback;
//! - every constraint of the input is either still in the output or has a loss entry;
//! - the declarations and report are snapshotted (`tests/snapshots`, reviewed like code:
//!   regenerate with `INSTA_UPDATE=always cargo test -p toolschema-tests --test providers`).

mod support;

use serde_json::{Value, json};
use toolschema::Target;
use toolschema::adapt::{LossKind, convert};
use toolschema::walk::{Walk, pointer};

use support::{all_catalogs, validators::validate};

/// Keywords that constrain or describe values: each must survive or be reported.
const ACCOUNTED: &[&str] = &[
    "pattern",
    "format",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "default",
    "examples",
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
    "propertyNames",
    "dependentSchemas",
    "dependentRequired",
    "title",
];

fn occurrences(schema: &Value) -> Vec<(String, String, Value)> {
    let walk = Walk::new(schema);
    let mut out = Vec::new();
    for (i, (node, _)) in walk.nodes.iter().enumerate() {
        let Some(m) = node.as_object() else { continue };
        for k in ACCOUNTED {
            if let Some(v) = m.get(*k) {
                out.push((pointer(&walk.steps(i)), (*k).to_owned(), v.clone()));
            }
        }
    }
    out
}

/// Every `description` string anywhere in a schema.
fn descriptions(schema: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    let mut stack = vec![schema];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(d)) = m.get("description") {
                    out.push(d.as_str());
                }
                stack.extend(m.values());
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
    out
}

/// What a `spilled` loss says the description holds: the backticked `keyword: value` at the
/// start of its detail (`keyword:` when the detail names the keyword alone).
fn spilled_text(detail: &str) -> String {
    let quoted = detail.split('`').nth(1).unwrap_or(detail);
    if quoted.contains(": ") {
        quoted.to_owned()
    } else {
        format!("{quoted}:")
    }
}

#[test]
fn every_catalog_converts_for_every_target() {
    let mut checked = 0;
    for (name, catalog) in all_catalogs() {
        for target in Target::ALL {
            let converted = convert(&catalog, target);
            assert_eq!(converted.adapted.len(), catalog.tools.len());
            for ((tool, adapted), input) in converted
                .report
                .tools
                .iter()
                .zip(&converted.adapted)
                .zip(&catalog.tools)
            {
                let context = format!("{name} / {target} / {}", tool.tool);
                if adapted.fallback {
                    assert!(
                        adapted.losses.iter().any(|l| l.kind == LossKind::Fallback),
                        "{context}: fallback without a loss entry"
                    );
                } else {
                    let problems = validate(target, &adapted.schema, adapted.strict);
                    assert!(
                        problems.is_empty(),
                        "{context}: {problems:#?}\n{:#}",
                        adapted.schema
                    );
                }
                if adapted.strict == Some(false) && target.wants_strict() && !adapted.fallback {
                    assert!(
                        adapted
                            .losses
                            .iter()
                            .any(|l| l.kind == LossKind::Fallback && l.keyword == "strict"),
                        "{context}"
                    );
                }
                // Nothing is lost without an entry.
                let output = occurrences(&adapted.schema);
                for (at, key, value) in occurrences(&input.schema) {
                    let kept = output.iter().any(|(_, k, v)| *k == key && *v == value);
                    // Reported at the keyword itself, or with a whole subtree that holds it (a
                    // dropped `prefixItems`, a cut recursion), or by a per-tool fallback.
                    let own = format!("{at}/{key}");
                    let reported = adapted.losses.iter().any(|l| {
                        (l.keyword == key && l.pointer == own)
                            || (l.kind != LossKind::Spilled
                                && l.pointer != own
                                && (at == l.pointer || at.starts_with(&format!("{}/", l.pointer))))
                            || (l.kind == LossKind::Fallback && l.keyword == "root")
                            // Inlined definitions are reported where they were inlined, with
                            // the value.
                            || (l.keyword == key && l.detail.contains(&value.to_string()))
                    });
                    assert!(
                        kept || reported,
                        "{context}: `{key}` at `{at}` vanished without a loss entry"
                    );
                }
                // Every position names a place the caller can find: `pointer` in the schema it
                // passed, `at` in the one it got.
                for (pointer, at, what) in adapted
                    .losses
                    .iter()
                    .map(|l| (&l.pointer, &l.at, format!("{:?} {}", l.kind, l.keyword)))
                    .chain(
                        adapted
                            .changes
                            .iter()
                            .map(|c| (&c.pointer, &c.at, c.rule.to_owned())),
                    )
                {
                    assert!(
                        input.schema.pointer(pointer).is_some(),
                        "{context}: {what} at `{pointer}` is not in the input"
                    );
                    if let Some(at) = at {
                        assert!(
                            adapted.schema.pointer(at).is_some(),
                            "{context}: {what} `at` `{at}` is not in the output"
                        );
                    }
                }
                // A keyword removed from the input is named where it stood.
                for l in adapted.losses.iter().filter(|l| {
                    matches!(l.kind, LossKind::Spilled | LossKind::Dropped)
                        && input.schema.pointer(&l.pointer).is_some()
                }) {
                    let named = l.pointer.rsplit('/').next().unwrap_or_default();
                    assert!(
                        named == l.keyword.replace('~', "~0").replace('/', "~1"),
                        "{context}: {:?} `{}` is reported at `{}`, not at the keyword",
                        l.kind,
                        l.keyword,
                        l.pointer
                    );
                }
                // A report is a promise: what it says is in the description is there.
                let descriptions = descriptions(&adapted.schema);
                for loss in adapted
                    .losses
                    .iter()
                    .filter(|l| l.kind == LossKind::Spilled)
                {
                    let text = spilled_text(&loss.detail);
                    // `(default: stats)`: a string default is written without JSON quotes.
                    let plain = text
                        .replacen(": \"", ": ", 1)
                        .trim_end_matches('"')
                        .to_owned();
                    assert!(
                        descriptions
                            .iter()
                            .any(|d| d.contains(&text) || d.contains(&plain)),
                        "{context}: spilled `{text}` ({}) is in no description of the output:\n{:#}",
                        loss.pointer,
                        adapted.schema
                    );
                }
                checked += 1;
            }
            let snapshot =
                json!({"declarations": converted.declarations, "report": converted.report});
            insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
                insta::assert_json_snapshot!(format!("{name}@{target}"), snapshot);
            });
        }
    }
    // 7 fixture types + 206 real tools, for every target.
    assert_eq!(checked, (7 + 206) * Target::ALL.len());
    assert_eq!(Target::ALL.len(), 9);
}

#[test]
fn strict_flags_follow_enforcement() {
    let (_, github) = all_catalogs()
        .into_iter()
        .find(|(n, _)| n == "github-mcp-server")
        .unwrap();
    let converted = convert(&github, Target::OpenAiStrict);
    let flags: Vec<Option<bool>> = converted
        .declarations
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["function"].get("strict").and_then(Value::as_bool))
        .collect();
    // A mixed catalog: `true` only where enforced, an explicit `false` elsewhere.
    assert!(flags.iter().all(Option::is_some));
    for (flag, adapted) in flags.iter().zip(&converted.adapted) {
        assert_eq!(*flag, adapted.strict);
    }
    assert!(flags.contains(&Some(false)) && flags.contains(&Some(true)));
    // Non-strict targets never send the flag.
    let plain = convert(&github, Target::OpenAi);
    assert!(
        plain
            .declarations
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["function"].get("strict").is_none())
    );
}

#[test]
fn anthropic_strict_budget_is_shared_by_the_catalog() {
    let (_, playwright) = all_catalogs()
        .into_iter()
        .find(|(n, _)| n == "playwright-mcp")
        .unwrap();
    let converted = convert(&playwright, Target::AnthropicStrict);
    let strict = converted
        .adapted
        .iter()
        .filter(|a| a.strict == Some(true))
        .count();
    assert_eq!(strict, 20, "20 strict tools per request");
    let demoted = converted
        .report
        .tools
        .iter()
        .filter(|t| t.losses.iter().any(|l| l.detail.contains("per request")))
        .count();
    assert!(demoted > 0);
}

#[test]
fn tool_names_are_rewritten_for_the_provider() {
    let catalog = toolschema::catalog::Catalog::from_value(json!([
        {"name": "fs.read", "inputSchema": {"type": "object"}},
        {"name": "fs_read", "inputSchema": {"type": "object"}},
        {"name": "ok-name", "inputSchema": {"type": "object"}}
    ]))
    .unwrap();
    let converted = convert(&catalog, Target::Anthropic);
    let names: Vec<&str> = converted
        .declarations
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["fs_read", "fs_read_2", "ok-name"]);
    assert_eq!(
        converted.report.tools[0].renamed_from.as_deref(),
        Some("fs.read")
    );
    // MCP has no such rule: names pass through.
    let mcp = convert(&catalog, Target::Mcp);
    assert_eq!(mcp.declarations["tools"][0]["name"], "fs.read");
    // Google allows dots, not a leading digit.
    let catalog = toolschema::catalog::Catalog::from_value(json!([
        {"name": "fs.read", "inputSchema": {"type": "object"}},
        {"name": "2fa", "inputSchema": {"type": "object"}}
    ]))
    .unwrap();
    let gemini = convert(&catalog, Target::Gemini);
    let decls = gemini.declarations["functionDeclarations"]
        .as_array()
        .unwrap();
    assert_eq!(decls[0]["name"], "fs.read");
    assert_eq!(decls[1]["name"], "_2fa");
    assert!(decls[0]["parametersJsonSchema"].is_object() && decls[0].get("parameters").is_none());
    let legacy = convert(&catalog, Target::GeminiOpenApi);
    assert!(legacy.declarations["functionDeclarations"][0]["parameters"].is_object());
    let cca = convert(&catalog, Target::CcaClaude);
    assert!(cca.declarations["functionDeclarations"][1]["parameters"].is_object());
}
