//! Requests every provider accepts (issue 64): `convert`, `snapshot` and `lint` check a whole
//! catalog against the provider's request limits before anything is written, and `--tools` /
//! `--exclude` choose the tools. Each request `convert` writes is checked by
//! `toolschema_tests::requests::validate_request`, written from the providers' documentation of
//! the request.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};
use toolschema::Target;
use toolschema_tests::requests::validate_request;

fn toolschema(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolschema"))
        .args(args)
        .output()
        .unwrap()
}

fn fixtures() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/tools");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json") && !p.ends_with("SOURCES.json"))
        .collect();
    files.sort();
    files
}

/// A catalog of `n` small tools named `tool_000`, `tool_001`, ..., written to a temporary file.
fn many_tools(n: usize) -> PathBuf {
    let tools: Vec<Value> = (0..n)
        .map(|i| {
            json!({"name": format!("tool_{i:03}"), "description": format!("Tool number {i}."),
                "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}})
        })
        .collect();
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("tools-{n}.json"));
    std::fs::write(&path, json!({ "tools": tools }).to_string()).unwrap();
    path
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every bundled real catalog, converted for every target: the provider accepts the request.
#[test]
fn every_bundled_catalog_converts_to_a_request_every_provider_accepts() {
    for file in fixtures() {
        for &target in Target::ALL {
            let out = toolschema(&["convert", "--to", target.as_str(), path(&file)]);
            assert!(out.status.success(), "{}: {}", target, text(&out.stderr));
            let declarations: Value = serde_json::from_slice(&out.stdout).unwrap();
            let problems = validate_request(target, &declarations);
            assert!(
                problems.is_empty(),
                "{} / {target}: {problems:?}",
                file.display()
            );
        }
    }
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// 150 tools: more than OpenAI takes (128), within Gemini's 512 and xAI's 200. `convert` says
/// the count, the limit and how to choose, exits 2 and writes nothing; `--tools` makes it pass.
#[test]
fn too_many_tools_is_an_error_and_choosing_makes_it_pass() {
    let file = many_tools(150);
    for target in [Target::OpenAi, Target::OpenAiStrict] {
        let out = toolschema(&["convert", "--to", target.as_str(), path(&file)]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(out.stdout.is_empty());
        assert!(
            err.contains("150 tools; the provider takes at most 128 in one request")
                && err.contains("--tools GLOB")
                && err.contains("\"A max of 128 functions are supported\""),
            "{err}"
        );
        // The request is invalid indeed: the validator, run on all 150 tools converted for
        // another provider in OpenAI's form, says so.
        let deepseek = toolschema(&["convert", "--to", "deepseek", path(&file)]);
        let all: Value = serde_json::from_slice(&deepseek.stdout).unwrap();
        assert!(!validate_request(target, &all).is_empty());

        let chosen = toolschema(&[
            "convert",
            "--to",
            target.as_str(),
            "--tools",
            "tool_0*,tool_14?",
            "--exclude",
            "tool_149",
            path(&file),
        ]);
        assert!(chosen.status.success(), "{}", text(&chosen.stderr));
        let declarations: Value = serde_json::from_slice(&chosen.stdout).unwrap();
        assert_eq!(declarations.as_array().unwrap().len(), 100 + 9);
        assert!(validate_request(target, &declarations).is_empty());
    }
    for target in [Target::Gemini, Target::Xai, Target::Anthropic] {
        let out = toolschema(&["convert", "--to", target.as_str(), path(&file)]);
        assert!(out.status.success(), "{target}: {}", text(&out.stderr));
    }
    // Gemini takes 512.
    let file = many_tools(513);
    let out = toolschema(&["convert", "--to", "gemini", path(&file)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("513 tools; the provider takes at most 512"));
    // xAI takes 200.
    let file = many_tools(201);
    let out = toolschema(&["convert", "--to", "xai", path(&file)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("201 tools; the provider takes at most 200"));
}

/// A pattern that matches no tool is an error (a misspelt name never passes silently).
#[test]
fn a_pattern_that_matches_nothing_is_an_error() {
    let file = many_tools(3);
    let out = toolschema(&[
        "convert",
        "--to",
        "openai",
        "--tools",
        "tool_9*",
        path(&file),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--tools `tool_9*` matches no tool"));
}

/// `snapshot` checks every target's request before writing anything; `lint` lints the chosen
/// tools only.
#[test]
fn snapshot_and_lint_choose_tools_too() {
    let file = many_tools(150);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("limits-snapshot");
    let _ = std::fs::remove_dir_all(&dir);
    let out = toolschema(&["snapshot", "--out", path(&dir), path(&file)]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("openai-strict: 150 tools") && err.contains("openai: 150 tools"));
    assert!(!dir.exists(), "nothing written");
    let out = toolschema(&[
        "snapshot",
        "--out",
        path(&dir),
        "--exclude",
        "tool_1[0-4]?",
        path(&file),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("for 100 tools"));

    let out = toolschema(&[
        "lint",
        "--format",
        "json",
        "--tools",
        "tool_00?",
        path(&file),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// A description over OpenAI's 1,024 characters (github-mcp-server's longest has 1,115) is cut
/// at a sentence boundary, with a loss that quotes what was cut.
#[test]
fn a_long_description_is_cut_at_a_sentence_and_reported() {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/tools/mcp-server-sequential-thinking.json");
    let original = toolschema::catalog::Catalog::from_value(
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap(),
    )
    .unwrap();
    let long = original.tools[0].description.as_deref().unwrap();
    assert!(long.chars().count() > 1024);
    let out = toolschema(&["convert", "--to", "openai-strict", "--report", path(&file)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sent = report["declarations"][0]["function"]["description"]
        .as_str()
        .unwrap();
    assert!(sent.chars().count() <= 1024);
    assert!(long.starts_with(sent), "a prefix of the original");
    // Never mid-word: what follows the kept text in the original is a boundary.
    let next = long[sent.len()..].chars().next().unwrap();
    assert!(next.is_whitespace(), "cut before {next:?}");
    let loss = (report["report"]["tools"][0]["losses"].as_array().unwrap())
        .iter()
        .find(|l| l["rule"] == "description-limit")
        .expect("a loss names the cut");
    let cut = long[sent.len()..].trim_start();
    let quoted = serde_json::to_string(cut).unwrap();
    assert!(loss["detail"].as_str().unwrap().contains(&quoted), "{loss}");
    // Providers without a description limit get it whole.
    let out = toolschema(&["convert", "--to", "anthropic", path(&file)]);
    let declarations: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(declarations[0]["description"], long);
}

/// Bedrock refuses an empty description ("Minimum length of 1"): it is left out.
#[test]
fn bedrock_gets_no_empty_description() {
    let path_ = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("empty-description.json");
    std::fs::write(
        &path_,
        json!({"tools": [{"name": "t", "description": "", "inputSchema": {"type": "object"}}]})
            .to_string(),
    )
    .unwrap();
    let out = toolschema(&["convert", "--to", "bedrock", path(&path_)]);
    let declarations: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(declarations[0]["toolSpec"].get("description").is_none());
    assert!(validate_request(Target::Bedrock, &declarations).is_empty());
    let anthropic = toolschema(&["convert", "--to", "anthropic", path(&path_)]);
    let declarations: Value = serde_json::from_slice(&anthropic.stdout).unwrap();
    assert_eq!(declarations[0]["description"], "");
}
