//! `toolschema targets` lists every target from the providers list, and the README's table is
//! its output, word for word.

use serde_json::Value;

fn run(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolschema"))
        .args(args)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_readme_table_is_the_output_of_targets() {
    let table = run(&["targets"]);
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let block: String = readme
        .lines()
        .skip_while(|l| !l.starts_with("<!-- targets:"))
        .skip(1)
        .take_while(|l| l.starts_with('|'))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        block, table,
        "the README's table differs from `toolschema targets`: paste its output"
    );
    // One row per target, and each row says what the target does.
    assert_eq!(table.lines().count(), 2 + toolschema::Target::ALL.len());
    for line in table.lines().skip(2) {
        let summary = line.trim_end_matches(" |").rsplit(" | ").next().unwrap();
        assert!(summary.len() > 40, "{line}");
    }
}

#[test]
fn targets_as_json_name_where_each_sends_the_schema() {
    let rows: Vec<Value> = serde_json::from_str(&run(&["targets", "--json"])).unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["target"].as_str().unwrap()).collect();
    let expected: Vec<&str> = toolschema::Target::ALL.iter().map(|t| t.as_str()).collect();
    assert_eq!(names, expected);
    let strict: Vec<&str> = (rows.iter())
        .filter(|r| r["strict"] == true)
        .map(|r| r["target"].as_str().unwrap())
        .collect();
    assert_eq!(
        strict,
        [
            "openai-strict",
            "openai-responses",
            "anthropic-strict",
            "deepseek-strict"
        ]
    );
    let anthropic = rows
        .iter()
        .find(|r| r["target"] == "anthropic-strict")
        .unwrap();
    assert_eq!(anthropic["budget"]["strict_tools"], 20);
    assert_eq!(anthropic["schema_at"], "[].input_schema");
    assert_eq!(anthropic["strict_at"], "[].strict");
}
