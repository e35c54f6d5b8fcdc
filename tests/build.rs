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

/// The `.rs` cases of `ui-tests/<dir>`, sorted; the build reruns when the folder changes.
fn cases(dir: &str) -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ui-tests")
        .join(dir);
    println!("cargo::rerun-if-changed={}", dir.display());
    let mut entries: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    entries.sort();
    entries
}

fn main() {
    let entries = cases("fail");
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
    pass_shapes();
}

/// The names of the non-generic types a source derives `ProviderSafe` or `ToolParams` on.
fn derived_types(source: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut deriving = false;
    for line in source.lines().map(str::trim_start) {
        if line.starts_with("#[derive(") {
            deriving |= line.contains("ProviderSafe") || line.contains("ToolParams");
            continue;
        }
        if line.starts_with("#[") || line.starts_with("///") {
            continue;
        }
        let item = line.strip_prefix("pub ").unwrap_or(line);
        let name = item
            .strip_prefix("struct ")
            .or_else(|| item.strip_prefix("enum "))
            .map(|rest| {
                rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or_default()
            });
        if let (true, Some(name)) = (deriving, name) {
            let generic = item[item.find(name).unwrap() + name.len()..].starts_with('<');
            if !generic {
                names.push(name.to_owned());
            }
        }
        deriving = false;
    }
    names
}

/// Builds the shape test: every `ui-tests/pass` case compiled with our derives, and for each
/// non-generic type deriving them, its `ProviderSafe::SHAPE` compared with the top level of the
/// schema schemars publishes (`tests/tests/shapes.rs`). A derive that silently falls back to a
/// neutral shape (issue 50) fails it.
fn pass_shapes() {
    let entries = cases("pass");
    let mut out = String::new();
    for path in entries {
        println!("cargo::rerun-if-changed={}", path.display());
        let source = fs::read_to_string(&path).unwrap();
        let types = derived_types(&source);
        let stem = path
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .replace('-', "_");
        let body: String = source
            .lines()
            .filter(|l| !l.trim_start().starts_with("#!["))
            // The file's own docs, inner in the file, are plain comments inside the module.
            .map(|l| match l.strip_prefix("//!") {
                Some(rest) => format!("//{rest}\n"),
                None => format!("{l}\n"),
            })
            .collect();
        let checks: String = types
            .iter()
            .map(|t| format!("        same_shape::<{t}>({t:?});\n"))
            .collect();
        writeln!(
            out,
            "#[allow(dead_code, unused_imports, clippy::all)]\nmod {stem} {{\n    use super::same_shape;\n{body}\n    #[test]\n    fn shapes_match_the_published_schema() {{\n{checks}    }}\n}}\n"
        )
        .unwrap();
    }
    let dest = Path::new(&env::var("OUT_DIR").unwrap()).join("pass_shapes.rs");
    fs::write(dest, out).unwrap();
}
