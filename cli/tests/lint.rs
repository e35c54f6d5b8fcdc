//! `toolschema lint` as a user runs it: the real binary, real catalogs, exit codes.
//!
//! The expected findings on the real catalogs were established by reading the schemas (every
//! `anyOf`/`oneOf` in them, listed by hand), not by recording the command's output.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/tools")
        .join(name)
}

fn toolschema(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolschema"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let input = stdin.unwrap_or("").to_owned();
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn lint_json(args: &[&str], stdin: Option<&str>) -> (i32, Value) {
    let mut all = vec!["lint", "--format", "json"];
    all.extend_from_slice(args);
    let out = toolschema(&all, stdin);
    let text = String::from_utf8(out.stdout).unwrap();
    let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (out.status.code().unwrap(), value)
}

/// `(tool, path, kind)` of every violation.
fn findings(report: &Value) -> Vec<(String, String, String)> {
    report["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["tool"].as_str().unwrap_or("").to_owned(),
                v["path"].as_str().unwrap().to_owned(),
                v["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn owned(items: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    items
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect()
}

#[test]
fn github_catalog_has_exactly_two_structural_unions() {
    let path = fixture("github-mcp-server.json");
    let (code, report) = lint_json(&[path.to_str().unwrap()], None);
    assert_eq!(code, 1);
    let mut got = findings(&report);
    got.sort();
    assert_eq!(
        got,
        owned(&[
            // `items` is a property name here; its `items` is the array's item schema: a oneOf
            // of three object shapes (project item kinds).
            (
                "projects_write",
                "properties.items.items",
                "structural-union"
            ),
            // Two object shapes for a field update.
            (
                "projects_write",
                "properties.updated_field",
                "structural-union"
            ),
            // `string | {object}`: one structured branch, but not first.
            (
                "update_issue_assignees",
                "properties.assignees.items",
                "structured-not-first"
            ),
            (
                "update_issue_labels",
                "properties.labels.items",
                "structured-not-first"
            ),
        ])
    );
    let first = &report["violations"][0];
    assert_eq!(first["severity"], "error");
    assert!(
        first["pointer"]
            .as_str()
            .unwrap()
            .starts_with("/properties/")
    );
    assert!(
        first["message"]
            .as_str()
            .unwrap()
            .contains("structured branches")
    );
    assert_eq!(report["stale_allows"], json!([]));
}

#[test]
fn the_other_catalogs_are_clean() {
    // Their only unions are `anyOf: [scalar, null]` (github's are counted above; playwright's
    // `emulate_media` options are string-or-null).
    for name in [
        "codex-mcp-server.json",
        "mcp-server-everything.json",
        "mcp-server-filesystem.json",
        "mcp-server-memory.json",
        "mcp-server-sequential-thinking.json",
        "playwright-mcp.json",
    ] {
        let path = fixture(name);
        let (code, report) = lint_json(&[path.to_str().unwrap()], None);
        assert_eq!((name, code, findings(&report)), (name, 0, vec![]));
    }
}

#[test]
fn human_output_is_one_line_per_violation_and_a_summary() {
    let path = fixture("github-mcp-server.json");
    let out = toolschema(&["lint", path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    assert!(
        lines[0].starts_with("projects_write: properties."),
        "{text}"
    );
    assert!(lines[2].contains(": warning: "), "{text}");
    assert!(
        lines[4].starts_with("FAILED: 2 error(s), 2 warning(s)"),
        "{text}"
    );
}

#[test]
fn allow_list_covers_and_goes_stale() {
    let dir = std::env::temp_dir().join(format!("toolschema-allow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let allow = dir.join("allow.json");
    let entry = |tool: &str, path: &str| json!({"tool": tool, "path": path, "reason": "being split into parameters", "issue": "#12"});
    let catalog = fixture("github-mcp-server.json");
    let catalog = catalog.to_str().unwrap();

    std::fs::write(
        &allow,
        json!([entry("projects_write", "properties")]).to_string(),
    )
    .unwrap();
    let (code, report) = lint_json(&["--allow", allow.to_str().unwrap(), catalog], None);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["violations"].as_array().unwrap().len(), 2); // the warnings stay

    std::fs::write(
        &allow,
        json!([
            entry("projects_write", "properties"),
            entry("get_me", "properties.x")
        ])
        .to_string(),
    )
    .unwrap();
    let (code, report) = lint_json(&["--allow", allow.to_str().unwrap(), catalog], None);
    assert_eq!(code, 1);
    assert_eq!(
        report["stale_allows"],
        json!([entry("get_me", "properties.x")])
    );

    std::fs::write(
        &allow,
        r##"[{"tool": "t", "path": "p", "reason": "", "issue": "#1"}]"##,
    )
    .unwrap();
    let out = toolschema(&["lint", "--allow", allow.to_str().unwrap(), catalog], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty `reason`"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_input_shape_from_stdin() {
    let union = json!({"type": "object", "properties": {"v": {"anyOf": [{"type": "object"}, {"type": "array"}]}}});
    let tool = json!({"name": "t", "description": "d", "inputSchema": union});
    for input in [
        json!([tool]),
        json!({"tools": [tool]}),
        json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [tool]}}),
    ] {
        for args in [&["-"][..], &[][..]] {
            let (code, report) = lint_json(args, Some(&input.to_string()));
            assert_eq!(code, 1);
            assert_eq!(
                findings(&report),
                owned(&[("t", "properties.v", "structural-union")])
            );
        }
    }
    // A bare schema: `tool` is null.
    let (code, report) = lint_json(&[], Some(&union.to_string()));
    assert_eq!(code, 1);
    assert_eq!(report["violations"][0]["tool"], Value::Null);
}

#[test]
fn unreadable_input_exits_2_with_file_and_position() {
    let out = toolschema(&["lint", "/nonexistent/tools.json"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read /nonexistent/tools.json"));

    let out = toolschema(&["lint"], Some("[\n  {\"name\": \"x\",,}\n]"));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("<stdin>: line 2, column 16"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");

    let out = toolschema(&["lint"], Some("[{\"name\": \"x\"}]"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no `inputSchema`"));

    let out = toolschema(&["lint"], Some("\"a string\""));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn deep_and_hostile_input() {
    // 3,000 nested objects parse and lint (the default JSON parser stops at 128 levels).
    let depth = 3_000;
    let mut text = String::new();
    for _ in 0..depth {
        text.push_str(r#"{"type": "object", "properties": {"x": "#);
    }
    text.push_str(r#"{"anyOf": [{"type": "object"}, {"type": "array"}]}"#);
    for _ in 0..depth {
        text.push_str("}}");
    }
    let (code, report) = lint_json(&[], Some(&text));
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report)[0].1.matches("properties.x").count(),
        depth
    );

    // Past the limit: a clear error, not a crash.
    let text = "[".repeat(30_000);
    let out = toolschema(&["lint"], Some(&text));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nesting deeper than"));

    // Keyword-named properties are names.
    let hostile = json!({"type": "object", "properties": {
        "properties": {"type": "object"}, "$ref": {"type": "string"}, "type": {"type": "string"},
        "anyOf": {"type": "array", "items": {"type": "string"}}
    }});
    let (code, report) = lint_json(&[], Some(&hostile.to_string()));
    assert_eq!((code, findings(&report)), (0, vec![]));
}

#[test]
fn deny_warnings_fails_on_warnings() {
    let warn_only = json!({"type": "object", "properties": {"v": {"anyOf": [{"const": "all"}, {"type": "array"}]}}});
    let (code, _) = lint_json(&[], Some(&warn_only.to_string()));
    assert_eq!(code, 0);
    let (code, report) = lint_json(&["--deny-warnings"], Some(&warn_only.to_string()));
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        owned(&[("", "properties.v", "structured-not-first")])
    );
}

#[test]
fn json_lines_of_a_stdio_session_are_read() {
    // Two `tools/list` pages, answered out of order, among other messages.
    let session = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/sessions/example-server-paged.jsonl");
    let session = session.to_str().unwrap();
    let out = toolschema(&["lint", session], None);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("in 4 tool(s)"));
    let out = toolschema(&["convert", "--to", "mcp", session], None);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "manage_fields",
            "search_entries",
            "tree_size",
            "upsert_entry"
        ],
        "pages in id order"
    );
    // JSON Lines without a listing, and a broken line, say so.
    let out = toolschema(
        &["lint", "-"],
        Some(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n",
        ),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("none of them a `tools/list` response"));
    let out = toolschema(
        &["lint", "-"],
        Some("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}\n{oops\n"),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("line 2 is not JSON"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Issue 48, item 8: a `pattern` that does not compile is a warning in `lint` (the adapters drop
/// it), at the keyword; `--deny-warnings` fails on it.
#[test]
fn a_pattern_that_does_not_compile_is_a_warning() {
    let catalog = json!([{"name": "find", "inputSchema": {"type": "object",
        "properties": {"q": {"type": "string", "pattern": "(unclosed"}}}}]);
    let (code, report) = lint_json(&[], Some(&catalog.to_string()));
    assert_eq!(code, 0);
    assert_eq!(
        findings(&report),
        owned(&[("find", "properties.q.pattern", "invalid-pattern")])
    );
    let (code, _) = lint_json(&["--deny-warnings"], Some(&catalog.to_string()));
    assert_eq!(code, 1);
}

/// Keyword values that are not JSON Schema (issue 59's published mistakes, one tool each): one
/// `invalid-schema` error per tool at the keyword, in the meta-schema's words, and the lint fails.
#[test]
fn invalid_schemas_get_one_error_each() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/invalid/published-mistakes.json");
    let (code, report) = lint_json(&[path.to_str().unwrap()], None);
    assert_eq!(code, 1, "{report:#}");
    let invalid: Vec<(String, String, String)> = findings(&report)
        .into_iter()
        .filter(|(_, _, kind)| kind == "invalid-schema")
        .collect();
    let expected = [
        ("int_type", "properties.count.type"),
        ("boolean_required", "properties.path.required"),
        ("boolean_required", "properties.mode.required"),
        (
            "string_additional_properties",
            "properties.env.additionalProperties",
        ),
        ("misspelt_type", "properties.name.type"),
        ("enum_not_a_list", "properties.color.enum"),
    ];
    let expected: Vec<(String, String, String)> = expected
        .iter()
        .map(|(t, p)| (t.to_string(), p.to_string(), "invalid-schema".to_owned()))
        .collect();
    assert_eq!(invalid, expected);
    for v in report["violations"].as_array().unwrap() {
        if v["kind"] == "invalid-schema" {
            assert_eq!(v["severity"], "error");
            let message = v["message"].as_str().unwrap();
            assert!(message.contains("2020-12 meta-schema"), "{message}");
        }
    }
    // The human form names the place and the rule, as every other violation.
    let out = toolschema(&["lint", path.to_str().unwrap()], None);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("int_type: properties.count.type: not valid JSON Schema: \"int\" is not valid under any of the schemas listed in the 'anyOf' keyword"),
        "{text}"
    );
    assert!(text.contains("[invalid-schema]"), "{text}");
}

/// No bundled real catalog breaks its meta-schema: the new rule adds nothing on valid schemas.
#[test]
fn valid_catalogs_have_no_invalid_schema_error() {
    for entry in std::fs::read_dir(fixture("")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if !name.ends_with(".json") || name == "SOURCES.json" {
            continue;
        }
        let (_, report) = lint_json(&[path.to_str().unwrap()], None);
        let invalid: Vec<_> = findings(&report)
            .into_iter()
            .filter(|(_, _, kind)| kind == "invalid-schema")
            .collect();
        assert!(invalid.is_empty(), "{name}: {invalid:?}");
    }
}
