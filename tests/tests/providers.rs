//! Every fixture catalog (the schemars output of types covering every serde representation and
//! std type, plus the real MCP catalogs) converted for every target:
//! - each tool's schema passes the target's validator, written from the provider rules
//!   (`toolschema_tests::validators`), or is a reported fallback;
//! - every constraint of the input is either still in the output or has a loss entry;
//! - the declarations and report are snapshotted (`tests/snapshots`, reviewed like code:
//!   regenerate with `INSTA_UPDATE=always cargo test -p toolschema-tests --test providers`).

mod support;

use serde_json::{Value, json};
use toolschema::Target;
use toolschema::adapt::convert;
use toolschema::adapt::convert_for;
use toolschema_tests::fuzz::ENCODING_TARGETS;
use toolschema_tests::promises::{Positions, report_problems};

use support::all_catalogs;

#[test]
fn every_catalog_converts_for_every_target() {
    let mut checked = 0;
    for (name, catalog) in all_catalogs() {
        for &target in Target::ALL {
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
                let problems = report_problems(&input.schema, adapted, Positions::AtTheKeyword);
                assert!(
                    problems.is_empty(),
                    "{context}: {problems:#?}\n{:#}",
                    adapted.schema
                );
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
    assert_eq!(Target::ALL.len(), 20);
}

/// With encoding on (`AdaptSettings::with_encoding`), for each target that encodes, every
/// catalog whose conversion it changes (and the maps fixture of `tests/tests/encoding.rs`): the
/// same checks, and a snapshot beside the plain one (`<catalog>@<target>+encoded`), the encoded
/// places listed in the report. The plain snapshots are unchanged by encoding's existence.
#[test]
fn encoded_catalogs_convert_and_are_snapshotted() {
    let maps: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures/encoding/maps.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let mut catalogs = all_catalogs();
    catalogs.push((
        "encoding-maps".to_owned(),
        toolschema::catalog::Catalog::from_value(maps).unwrap(),
    ));
    let mut snapshots = 0;
    for (name, catalog) in &catalogs {
        for &target in ENCODING_TARGETS {
            let encoded = convert_for(catalog, &target.settings().with_encoding(true));
            if encoded.adapted.iter().all(|a| a.encoded.is_empty()) {
                continue;
            }
            for ((tool, adapted), input) in (encoded.report.tools.iter())
                .zip(&encoded.adapted)
                .zip(&catalog.tools)
            {
                let problems = report_problems(&input.schema, adapted, Positions::AtTheKeyword);
                assert!(
                    problems.is_empty(),
                    "{name} / {target} (encoded) / {}: {problems:#?}\n{:#}",
                    tool.tool,
                    adapted.schema
                );
            }
            let snapshot = json!({"declarations": encoded.declarations, "report": encoded.report});
            insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
                insta::assert_json_snapshot!(format!("{name}@{target}+encoded"), snapshot);
            });
            snapshots += 1;
        }
    }
    assert!(
        snapshots >= ENCODING_TARGETS.len(),
        "{snapshots} encoded snapshots"
    );
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
    // A name the provider accepts is never the one changed: `fs_read` keeps its name (a client
    // or proxy calls it by it), and the refused `fs.read` takes another.
    assert_eq!(names, ["fs_read_2", "fs_read", "ok-name"]);
    assert_eq!(
        converted.report.tools[0].renamed_from.as_deref(),
        Some("fs.read")
    );
    assert_eq!(converted.report.tools[1].renamed_from, None);
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

/// Issue 48, item 11: a `required` name with no matching property (a tool's stale name, an array
/// item's `required` without `properties`; published servers emit both) never reaches Google,
/// which refuses the whole request ("`…required[0]`: property is not defined"). On every Google
/// target the name is removed with a `dropped` loss at its place in the input, and the whole
/// request passes the validator; names that are properties stay.
#[test]
fn required_names_that_are_not_properties_never_reach_google() {
    let catalog = toolschema::catalog::Catalog::from_value(json!([
        {"name": "stale", "inputSchema": {"type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path", "recursive"]}},
        {"name": "rows", "inputSchema": {"type": "object",
            "properties": {"rows": {"type": "array", "items": {"type": "object", "required": ["id"]}}},
            "required": ["rows"]}}
    ]))
    .unwrap();
    for target in [
        Target::Gemini,
        Target::GeminiCompat,
        Target::GeminiOpenApi,
        Target::CcaClaude,
    ] {
        let converted = convert(&catalog, target);
        let field = match target {
            Target::Gemini | Target::GeminiCompat => "parametersJsonSchema",
            _ => "parameters",
        };
        let decls = converted.declarations["functionDeclarations"]
            .as_array()
            .unwrap();
        assert_eq!(decls[0][field]["required"], json!(["path"]), "{target}");
        assert_eq!(decls[1][field]["required"], json!(["rows"]), "{target}");
        let item = &decls[1][field]["properties"]["rows"]["items"];
        assert!(
            item.get("required").is_none_or(|r| r == &json!([])),
            "{target}: {item}"
        );
        for (decl, adapted) in decls.iter().zip(&converted.adapted) {
            let problems =
                toolschema_tests::validators::validate(target, &decl[field], adapted.strict);
            assert!(problems.is_empty(), "{target}: {problems:?}");
        }
        let losses = |i: usize| -> Vec<(String, String)> {
            converted.report.tools[i]
                .losses
                .iter()
                .filter(|l| &*l.keyword == "required")
                .map(|l| (l.pointer.to_string(), format!("{:?}", l.kind)))
                .collect()
        };
        assert_eq!(
            losses(0),
            [("/required".to_owned(), "Dropped".to_owned())],
            "{target}"
        );
        assert_eq!(
            losses(1),
            [(
                "/properties/rows/items/required".to_owned(),
                "Dropped".to_owned()
            )],
            "{target}"
        );
    }
}

/// Issue 48, item 10: a node with `properties` and no `type` (a union branch, an array's items, a
/// property, a definition) keeps a tool strict on Anthropic as on OpenAI: the type is inferred
/// before Anthropic's checks, and the request passes the strict validator.
#[test]
fn untyped_object_nodes_are_typed_for_anthropic_strict() {
    let object = json!({"properties": {"x": {"type": "string"}}, "required": ["x"]});
    let catalog = toolschema::catalog::Catalog::from_value(json!([
        {"name": "shapes", "inputSchema": {"type": "object",
            "properties": {
                "branch": {"anyOf": [object.clone(), {"type": "null"}]},
                "list": {"type": "array", "items": object.clone()},
                "plain": object.clone(),
                "named": {"$ref": "#/$defs/Named"}
            },
            "required": ["branch", "list", "plain", "named"],
            "$defs": {"Named": object.clone()}}}
    ]))
    .unwrap();
    for target in [Target::AnthropicStrict, Target::OpenAiStrict] {
        let converted = convert(&catalog, target);
        let adapted = &converted.adapted[0];
        assert_eq!(adapted.strict, Some(true), "{target}: {:?}", adapted.losses);
        let problems =
            toolschema_tests::validators::validate(target, &adapted.schema, adapted.strict);
        assert!(problems.is_empty(), "{target}: {problems:?}");
        let walk = toolschema::walk::Walk::new(&adapted.schema);
        let untyped: Vec<&Value> = walk
            .nodes
            .iter()
            .map(|(node, _)| *node)
            .filter(|node| node.get("properties").is_some() && node.get("type").is_none())
            .collect();
        assert!(untyped.is_empty(), "{target}: {untyped:?}");
    }
}

/// Issue 61: `gemini` keeps what Google documents for its JSON Schema fields. Over every real
/// catalog, of the input's `minimum`, `maximum`, `minItems`, `maxItems`,
/// `additionalProperties: false` and `prefixItems` (none of which `gemini-compat`, the seed's
/// contract, sends), at least 95% reach the declaration, and each one that does not has a loss
/// naming it; every declaration passes the validator written from Google's list.
#[test]
fn gemini_keeps_what_google_documents() {
    const KEPT: [&str; 6] = [
        "minimum",
        "maximum",
        "minItems",
        "maxItems",
        "additionalProperties",
        "prefixItems",
    ];
    fn count(v: &Value, out: &mut std::collections::BTreeMap<&'static str, usize>) {
        match v {
            Value::Object(m) => {
                for k in KEPT {
                    let counted = match m.get(k) {
                        Some(Value::Bool(false)) => k == "additionalProperties",
                        Some(_) => k != "additionalProperties",
                        None => false,
                    };
                    if counted {
                        *out.entry(k).or_default() += 1;
                    }
                }
                m.values().for_each(|c| count(c, out));
            }
            Value::Array(a) => a.iter().for_each(|c| count(c, out)),
            _ => {}
        }
    }
    let (mut input, mut sent, mut compat) = Default::default();
    let mut lost = 0;
    for (name, catalog) in support::corpus() {
        for tool in &catalog.tools {
            count(&tool.schema, &mut input);
        }
        let gemini = convert(&catalog, Target::Gemini);
        for (decl, adapted) in gemini.declarations["functionDeclarations"]
            .as_array()
            .unwrap()
            .iter()
            .zip(&gemini.adapted)
        {
            let schema = &decl["parametersJsonSchema"];
            count(schema, &mut sent);
            let problems = toolschema_tests::validators::validate(Target::Gemini, schema, None);
            assert!(problems.is_empty(), "{name}: {problems:?}");
            lost += (adapted.losses.iter())
                .filter(|l| KEPT.contains(&&*l.keyword))
                .count();
        }
        let old = convert(&catalog, Target::GeminiCompat);
        for decl in old.declarations["functionDeclarations"].as_array().unwrap() {
            count(&decl["parametersJsonSchema"], &mut compat);
        }
    }
    let total = |m: &std::collections::BTreeMap<&str, usize>| m.values().sum::<usize>();
    assert!(total(&input) >= 150, "{input:?}");
    assert_eq!(total(&compat), 0, "{compat:?}");
    assert!(
        total(&sent) * 100 >= total(&input) * 95,
        "kept {sent:?} of {input:?}"
    );
    // Each one not sent is a loss (a keyword copied by inlining may be sent more than once).
    assert!(
        total(&sent) + lost >= total(&input),
        "kept {sent:?} of {input:?}, {lost} losses"
    );
}
