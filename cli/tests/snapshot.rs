//! `toolschema snapshot`: writes per-tool, per-provider files; `--check` passes on them and fails,
//! naming the files, on every kind of difference.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn toolschema(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolschema"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/tools")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn write_then_check_both_ways() {
    let dir = std::env::temp_dir().join(format!("toolschema-snap-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let catalog = fixture("mcp-server-everything.json");
    let out = toolschema(&["snapshot", "--out", d, &catalog]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // One directory per tool, one file per target, pretty JSON with a trailing newline.
    let echo = dir.join("echo");
    let mut names: Vec<String> = std::fs::read_dir(&echo)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), toolschema::Target::ALL.len(), "{names:?}");
    let gemini = std::fs::read_to_string(echo.join("gemini.json")).unwrap();
    assert!(
        gemini.ends_with("}\n") && gemini.contains("\n  \"declaration\": {"),
        "{gemini}"
    );
    let doc: serde_json::Value = serde_json::from_str(&gemini).unwrap();
    assert_eq!(doc["declaration"]["name"], "echo");
    assert!(doc["declaration"].get("parametersJsonSchema").is_some());

    let check = |expect: i32| {
        let out = toolschema(&["snapshot", "--check", "--out", d, &catalog]);
        assert_eq!(out.status.code(), Some(expect), "{}", stdout(&out));
        stdout(&out)
    };
    assert!(check(0).contains("up to date"));
    // Each kind of difference is named.
    std::fs::write(echo.join("mcp.json"), "{}\n").unwrap();
    std::fs::remove_file(echo.join("openai.json")).unwrap();
    let gone = dir.join("a-tool-that-was-removed");
    std::fs::create_dir_all(&gone).unwrap();
    std::fs::write(gone.join("mcp.json"), "{}\n").unwrap();
    let report = check(1);
    let p = |rel: &str| Path::new(d).join(rel).display().to_string();
    assert!(
        report.contains(&format!("changed: {}", p("echo/mcp.json"))),
        "{report}"
    );
    assert!(
        report.contains(&format!("missing: {}", p("echo/openai.json"))),
        "{report}"
    );
    assert!(
        report.contains(&format!("extra: {}", p("a-tool-that-was-removed/mcp.json"))),
        "{report}"
    );
    assert!(report.contains("1 changed, 1 missing, 1 extra"), "{report}");
    // A changed file's unified diff: the file on disk against what the tools give now.
    assert!(
        report.contains("--- a/echo/mcp.json\n+++ b/echo/mcp.json\n@@ "),
        "{report}"
    );
    assert!(report.contains("\n-{}\n"), "{report}");
    assert!(report.contains("\n+  \"tool\": \"echo\","), "{report}");
    // One line edited: that line, with three lines of context each side, and nothing else.
    let edited = gemini.replace("\"name\": \"echo\"", "\"name\": \"echo2\"");
    std::fs::write(echo.join("gemini.json"), &edited).unwrap();
    let report = check(1);
    let diff: Vec<&str> = (report.lines())
        .skip_while(|l| !l.starts_with("--- a/echo/gemini.json"))
        .take_while(|l| !l.starts_with("--- a/echo/mcp.json"))
        .collect();
    assert_eq!(
        diff.iter().filter(|l| l.starts_with('-')).count(),
        2,
        "{report}"
    );
    assert!(diff.contains(&"-    \"name\": \"echo2\","), "{report}");
    assert!(diff.contains(&"+    \"name\": \"echo\","), "{report}");
    assert_eq!(
        diff.len(),
        3 + 3 + 2 + 3,
        "headers, context, the change, context: {report}"
    );
    // A diff is bounded: a file replaced whole shows its first lines and counts the rest.
    let big = "x\n".repeat(500);
    std::fs::write(echo.join("anthropic.json"), big).unwrap();
    let report = check(1);
    assert!(
        report.contains("more diff lines of echo/anthropic.json not shown"),
        "{report}"
    );
    assert!(report.lines().count() < 300, "{}", report.lines().count());
    // Writing again brings the directory back in line, the removed tool's directory included.
    let out = toolschema(&["snapshot", "--out", d, &catalog]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!gone.exists());
    check(0);
    let _ = std::fs::remove_dir_all(&dir);
}
