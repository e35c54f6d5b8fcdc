//! Builds the agreement test: every `ui-tests/fail` case marked
//! `// agreement: without the toolschema derives, schemars' schema of `T` has KIND at `PATH``
//! is compiled again with our derives and attributes removed, and the runtime contract checker
//! must find KIND at PATH in `schema_for!(T)`. So each compile-fail case is shown to fail for the
//! reason it claims, on the schema schemars really publishes.

use std::fmt::Write as _;
use std::path::Path;
use std::{env, fs};

fn strip(source: &str) -> String {
    let mut out = String::new();
    for line in source.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("use toolschema")
            || trimmed.starts_with("#[tool_schema(")
            || trimmed.starts_with("#![")
            || trimmed == "fn main() {}"
        {
            continue;
        }
        if let Some(list) = trimmed
            .strip_prefix("#[derive(")
            .and_then(|rest| rest.strip_suffix(")]"))
        {
            let kept: Vec<&str> = list
                .split(',')
                .map(str::trim)
                .filter(|d| !d.is_empty() && *d != "ToolParams" && *d != "ProviderSafe")
                .collect();
            if !kept.is_empty() {
                let indent = &line[..line.len() - trimmed.len()];
                writeln!(out, "{indent}#[derive({})]", kept.join(", ")).unwrap();
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn marker(source: &str) -> Option<(String, String, String)> {
    let line = source.lines().find(|l| l.starts_with("// agreement: "))?;
    let mut ticks = line.split('`').skip(1).step_by(2);
    let ty = ticks.next()?.to_owned();
    let path = ticks.next()?.to_owned();
    let kind = line.split(" has ").nth(1)?.split(' ').next()?.to_owned();
    Some((ty, kind, path))
}

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui-tests/fail");
    println!("cargo::rerun-if-changed={}", dir.display());
    let mut entries: Vec<_> = fs::read_dir(&dir)
        .expect("ui-tests/fail exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    entries.sort();
    let mut out = String::new();
    for path in entries {
        println!("cargo::rerun-if-changed={}", path.display());
        let source = fs::read_to_string(&path).unwrap();
        let Some((ty, kind, at)) = marker(&source) else {
            continue;
        };
        let stem = path
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .replace('-', "_");
        writeln!(
            out,
            "#[allow(dead_code, clippy::all)]\nmod {stem} {{\n    use super::*;\n{}\n    #[test]\n    fn schemars_publishes_what_the_case_claims() {{\n        assert_flagged(&schemars::schema_for!({ty}).to_value(), {kind:?}, {at:?});\n    }}\n}}\n",
            strip(&source)
        )
        .unwrap();
    }
    let dest = Path::new(&env::var("OUT_DIR").unwrap()).join("agreement_cases.rs");
    fs::write(dest, out).unwrap();
}
