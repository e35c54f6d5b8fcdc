//! `toolschema adapt` and `toolschema convert` as a user runs them.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/tools")
        .join(name)
}

fn run(args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolschema"));
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let input = stdin.to_owned();
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn json_out(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

const SCHEMA: &str = r#"{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
  "properties": {"q": {"type": "string", "maxLength": 10}, "n": {"type": "integer", "default": 5}},
  "required": ["q"]}"#;

#[test]
fn adapt_prints_the_schema_or_the_report() {
    let out = run(&["adapt", "--to", "openai-strict"], SCHEMA, &[]);
    assert_eq!(out.status.code(), Some(0));
    let schema = json_out(&out);
    assert_eq!(schema["additionalProperties"], json!(false));
    assert_eq!(schema["required"], json!(["q", "n"]));

    let out = run(
        &["adapt", "--to", "openai-strict", "--report", "-"],
        SCHEMA,
        &[],
    );
    let report = json_out(&out);
    assert_eq!(report["target"], "openai-strict");
    assert_eq!(report["strict"], json!(true));
    assert_eq!(report["fallback"], json!(false));
    let losses = report["losses"].as_array().unwrap();
    assert!(
        losses
            .iter()
            .any(|l| l["pointer"] == "/properties/q/maxLength"
                && l["kind"] == "spilled"
                && l["keyword"] == "maxLength")
    );
    assert!(
        losses
            .iter()
            .all(|l| l["detail"].as_str().is_some_and(|d| !d.is_empty()))
    );
    // MCP has no strict flag.
    let report = json_out(&run(&["adapt", "--to", "mcp", "--report"], SCHEMA, &[]));
    assert_eq!(report["strict"], Value::Null);
}

#[test]
fn no_strict_environment_variable_disables_strict() {
    for value in ["1", "true", "yes", "on"] {
        let report = json_out(&run(
            &["adapt", "--to", "openai-strict", "--report"],
            SCHEMA,
            &[("TOOLSCHEMA_NO_STRICT", value)],
        ));
        assert_eq!(report["strict"], json!(false), "{value}");
        assert_eq!(report["losses"][0]["keyword"], "strict");
        assert!(
            report["losses"][0]["detail"]
                .as_str()
                .unwrap()
                .contains("TOOLSCHEMA_NO_STRICT")
        );
    }
    let report = json_out(&run(
        &["adapt", "--to", "openai-strict", "--report"],
        SCHEMA,
        &[("TOOLSCHEMA_NO_STRICT", "0")],
    ));
    assert_eq!(report["strict"], json!(true));
}

#[test]
fn convert_writes_each_wire_format() {
    let path = fixture("mcp-server-filesystem.json");
    let path = path.to_str().unwrap();
    let openai = json_out(&run(&["convert", "--to", "openai-strict", path], "", &[]));
    let first = &openai[0];
    assert_eq!(first["type"], "function");
    assert!(first["function"]["parameters"].is_object());
    assert_eq!(first["function"]["strict"], json!(true));
    let responses = json_out(&run(
        &["convert", "--to", "openai-responses", path],
        "",
        &[],
    ));
    assert!(responses[0]["name"].is_string() && responses[0]["parameters"].is_object());
    let anthropic = json_out(&run(&["convert", "--to", "anthropic", path], "", &[]));
    assert!(anthropic[0]["input_schema"].is_object());
    assert!(anthropic[0].get("strict").is_none());
    let mcp = json_out(&run(&["convert", "--to", "mcp", path], "", &[]));
    assert_eq!(mcp["tools"].as_array().unwrap().len(), 14);
    assert!(mcp["tools"][0]["inputSchema"].is_object());
    let with_report = json_out(&run(
        &["convert", "--to", "anthropic-strict", "--report", path],
        "",
        &[],
    ));
    assert_eq!(with_report["report"]["tools"].as_array().unwrap().len(), 14);
    assert_eq!(with_report["report"]["target"], "anthropic-strict");
}

#[test]
fn bad_input_exits_2_never_panics() {
    let out = run(&["adapt", "--to", "gemeni"], SCHEMA, &[]);
    assert_eq!(out.status.code(), Some(2), "clap rejects an unknown target");
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected one of"));
    let out = run(&["adapt", "--to", "openai"], "{nope", &[]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(
        &["adapt", "--to", "openai"],
        r#"[{"name": "a", "inputSchema": {"type": "object"}}]"#,
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "a catalog of 1 tools (a): pick one with `--tool NAME`, or convert them all with `toolschema convert`"
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&["convert", "--to", "openai"], "12", &[]);
    assert_eq!(out.status.code(), Some(2));
    // A non-object root is not an error: that tool falls back, and the report says so.
    let report = json_out(&run(
        &["adapt", "--to", "openai", "--report"],
        r#"{"type": "array"}"#,
        &[],
    ));
    assert_eq!(report["fallback"], json!(true));
    assert_eq!(
        report["schema"],
        json!({"type": "object", "properties": {}})
    );
}

#[test]
fn openai_conservative_spills_what_the_default_keeps() {
    let schema = r#"{"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}, "required": ["n"]}"#;
    let kept = json_out(&run(&["adapt", "--to", "openai-strict"], schema, &[]));
    assert_eq!(
        kept["properties"]["n"],
        json!({"type": "integer", "minimum": 1})
    );
    let spilled = json_out(&run(
        &["adapt", "--to", "openai-strict", "--openai-conservative"],
        schema,
        &[],
    ));
    assert_eq!(
        spilled["properties"]["n"],
        json!({"type": "integer", "description": "At least 1."})
    );
    let catalog = format!(r#"[{{"name": "t", "inputSchema": {schema}}}]"#);
    let out = json_out(&run(
        &["convert", "--to", "openai-strict", "--openai-conservative"],
        &catalog,
        &[],
    ));
    let text = out.to_string();
    assert!(text.contains("At least 1."), "{text}");
}

/// `adapt --tool NAME` adapts one tool of a catalog, exactly as `convert` adapts it there; a name
/// that is not there lists the tools; `--tool` on a bare schema says to leave it out.
#[test]
fn adapt_picks_one_tool_of_a_catalog() {
    let catalog = fixture("mcp-server-everything.json");
    let catalog = catalog.to_str().unwrap();
    let out = run(
        &[
            "adapt", "--to", "gemini", "--report", "--tool", "get-sum", catalog,
        ],
        "",
        &[],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let adapted = json_out(&out);
    let out = run(&["convert", "--to", "gemini", "--report", catalog], "", &[]);
    let converted = json_out(&out);
    let declaration = (converted["declarations"]["functionDeclarations"]
        .as_array()
        .unwrap())
    .iter()
    .find(|d| d["name"] == "get-sum")
    .expect("converted");
    assert_eq!(adapted["schema"], declaration["parametersJsonSchema"]);
    let reported = (converted["report"]["tools"].as_array().unwrap().iter())
        .find(|t| t["tool"] == "get-sum")
        .unwrap();
    assert_eq!(adapted["losses"], reported["losses"]);

    let out = run(
        &["adapt", "--to", "gemini", "--tool", "get-summ", catalog],
        "",
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no tool is named `get-summ`; the tools are: echo, get-annotated-message,"),
        "{stderr}"
    );
    assert!(stderr.contains("… 3 more"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");

    let out = run(&["adapt", "--to", "gemini", "--tool", "x"], SCHEMA, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("leave `--tool` out"));
}

/// The README's table of `convert`'s output per target: for every target it lists, the tool's
/// schema (and strict flag) are where the table says, and they are what `adapt` gives.
#[test]
fn the_readme_says_where_convert_puts_each_schema() {
    let readme =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .unwrap();
    let rows: Vec<Vec<String>> = (readme.lines())
        .skip_while(|l| !l.contains("<!-- convert-shapes"))
        .skip(3)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().trim_matches('`').to_owned())
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), toolschema::Target::ALL.len(), "{rows:?}");
    // Follows `a[].b.c` (a `[]` for the one tool here).
    fn at<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
        let mut here = value;
        for part in path.split('.') {
            let (key, list) = match part.strip_suffix("[]") {
                Some(key) => (key, true),
                None => (part, false),
            };
            if !key.is_empty() {
                here = here.get(key)?;
            }
            if list {
                here = here.as_array()?.first()?;
            }
        }
        Some(here)
    }
    let catalog = r#"[{"name": "t", "description": "d", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}]"#;
    for row in &rows {
        let (target, schema_at, strict_at) = (&row[0], &row[2], &row[3]);
        let out = run(&["convert", "--to", target], catalog, &[]);
        assert_eq!(out.status.code(), Some(0), "{target}");
        let converted = json_out(&out);
        let adapted = run(&["adapt", "--to", target, "--tool", "t"], catalog, &[]);
        assert_eq!(
            at(&converted, schema_at),
            Some(&json_out(&adapted)),
            "{target}: the schema at {schema_at} in {converted}"
        );
        match strict_at.as_str() {
            "none" => assert!(
                !converted.to_string().contains("\"strict\""),
                "{target}: {converted}"
            ),
            path => assert_eq!(at(&converted, path), Some(&json!(true)), "{target}"),
        }
    }
}

/// An invalid schema is never sent on as it is, on any target: a value with one meaning is
/// repaired (listed in the report's `repaired` and its changes), anything else makes the tool the
/// target's fallback with a loss naming the place; every output is valid JSON Schema 2020-12
/// (Gemini's legacy `parameters` is an OpenAPI `Schema`, checked by its own validator elsewhere).
#[test]
fn invalid_schemas_are_repaired_or_sent_as_the_fallback() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/invalid/published-mistakes.json");
    let path = path.to_str().unwrap();
    let targets = json_out(&run(&["targets", "--json"], "", &[]));
    let names: Vec<String> = targets
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["target"].as_str().unwrap().to_owned())
        .collect();
    assert!(names.len() >= 16, "{names:?}");
    let repaired = [
        ("int_type", "/properties/count/type", json!("integer")),
        ("boolean_required", "/required", json!(["path"])),
        (
            "string_additional_properties",
            "/properties/env/additionalProperties",
            json!({"type": "object"}),
        ),
    ];
    for target in &names {
        for (tool, place, value) in &repaired {
            let out = json_out(&run(
                &["adapt", "--to", target, "--tool", tool, "--report", path],
                "",
                &[],
            ));
            assert_eq!(out["fallback"], json!(false), "{target} {tool}: {out:#}");
            assert!(
                out["changes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|c| c["rule"] == "valid-keywords"),
                "{target} {tool}: {out:#}"
            );
            if target == "mcp" {
                // MCP sends the schema as the server wrote it but for the repairs: exact.
                assert_eq!(out["schema"].pointer(place), Some(value), "{tool}: {out:#}");
            }
            if target != "gemini-openapi" {
                assert!(
                    jsonschema::meta::is_valid(&out["schema"]),
                    "{target} {tool}: {:#}",
                    out["schema"]
                );
            }
        }
        for (tool, place) in [
            ("misspelt_type", "/properties/name/type"),
            ("enum_not_a_list", "/properties/color/enum"),
        ] {
            let out = json_out(&run(
                &["adapt", "--to", target, "--tool", tool, "--report", path],
                "",
                &[],
            ));
            assert_eq!(out["fallback"], json!(true), "{target} {tool}: {out:#}");
            let loss = &out["losses"][0];
            assert_eq!(loss["kind"], "fallback");
            assert_eq!(loss["pointer"], *place, "{target} {tool}: {loss:#}");
            assert!(
                loss["detail"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("not valid JSON Schema 2020-12 at {place}")),
                "{loss:#}"
            );
        }
    }
    // `convert --report` lists the repairs per tool.
    let converted = json_out(&run(
        &["convert", "--to", "openai-strict", "--report", path],
        "",
        &[],
    ));
    let tools = converted["report"]["tools"].as_array().unwrap();
    assert_eq!(tools[0]["repaired"][0]["pointer"], "/properties/count/type");
    assert_eq!(tools[1]["repaired"].as_array().unwrap().len(), 2);
    assert!(tools[3].get("repaired").is_none());
    assert_eq!(tools[3]["fallback"], json!(true));
}
