//! Reviewable snapshots of your own tools, per provider: for each tool and target, the
//! declaration that would be sent and what that provider no longer enforces, as stable,
//! diff-friendly JSON (pretty, sorted file names, a trailing newline). Commit them; a change in a
//! type, in schemars or in a provider rule then shows up in review.
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use toolschema::ToolParams;
//!
//! #[derive(Deserialize, JsonSchema, ToolParams)]
//! struct Search {
//!     /// Words to look for.
//!     query: String,
//!     /// At most this many results.
//!     limit: Option<u32>,
//! }
//!
//! let files = toolschema::snapshot::of::<Search>("search");
//! assert!(files.contains_key("search/openai-strict.json"));
//! assert!(files["search/gemini.json"].ends_with("}\n"));
//! ```
//!
//! With the `insta` feature, one line in a test reviews them with `cargo insta`:
//! `toolschema::assert_tool_snapshots!(Search, "search");`. The `toolschema snapshot` command
//! writes the same files for any catalog or live server, and `--check` compares (the CI mode).

use std::collections::{BTreeMap, HashSet};

use serde_json::{Value, json};

use crate::adapt::{Target, convert_for};
use crate::catalog::{Catalog, Layout, Tool};
use crate::traits::ToolParams;

/// Relative file path (`<tool>/<target>.json`) → file content, in sorted order.
pub type Files = BTreeMap<String, String>;

/// The snapshot files of one Rust tool named `name`.
pub fn of<T: ToolParams>(name: &str) -> Files {
    catalog(&Catalog {
        layout: Layout::ToolsList,
        tools: vec![Tool {
            name: Some(name.to_owned()),
            description: None,
            schema: T::published_schema(),
            allowed_unions: Vec::new(),
        }],
    })
}

/// The snapshot files of every tool of a catalog, for every target.
pub fn catalog(catalog: &Catalog) -> Files {
    catalog_encoded(catalog, false)
}

/// [`catalog`], with encoding on or off ([`crate::adapt::AdaptSettings::with_encoding`]); a
/// file then lists the encoded places under `encoded`.
pub fn catalog_encoded(catalog: &Catalog, encode: bool) -> Files {
    let mut files = Files::new();
    let dirs = directory_names(catalog);
    for &target in Target::ALL {
        let converted = convert_for(catalog, &target.settings().with_encoding(encode));
        let declarations = declarations_of(&converted.declarations);
        for (i, tool) in converted.report.tools.iter().enumerate() {
            let adapted = &converted.adapted[i];
            let mut document = json!({
                "tool": catalog.tools[i].name,
                "target": target,
                "declaration": declarations.get(i).cloned().unwrap_or(Value::Null),
                "strict": adapted.strict,
                "fallback": adapted.fallback,
                "renamed_from": tool.renamed_from,
                "losses": adapted.losses,
                "changes": adapted.changes,
            });
            if !adapted.encoded.is_empty() {
                document["encoded"] = json!(adapted.encoded);
            }
            let mut text = serde_json::to_string_pretty(&document).expect("a report serializes");
            text.push('\n');
            files.insert(format!("{}/{}.json", dirs[i], target.as_str()), text);
        }
    }
    files
}

/// The declarations, whatever the wire envelope (`{"tools": [...]}`,
/// `{"functionDeclarations": [...]}` or a bare array).
fn declarations_of(wire: &Value) -> Vec<Value> {
    let list = match wire {
        Value::Array(items) => Some(items),
        Value::Object(map) => map.values().find_map(Value::as_array),
        _ => None,
    };
    list.cloned().unwrap_or_default()
}

/// One directory per tool: its name with anything but letters, digits, `_`, `-` and `.` replaced
/// by `_` (so that a name never reaches outside the snapshot directory), made unique.
fn directory_names(catalog: &Catalog) -> Vec<String> {
    let mut taken = HashSet::new();
    catalog
        .tools
        .iter()
        .map(|tool| {
            let name = tool.name.as_deref().unwrap_or("schema");
            let mut base: String = name
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            // Never empty, never hidden, never `.` or `..`.
            if base.is_empty() || base.starts_with('.') {
                base = format!("_{base}");
            }
            let mut candidate = base.clone();
            let mut n = 2;
            while !taken.insert(candidate.to_ascii_lowercase()) {
                candidate = format!("{base}_{n}");
                n += 1;
            }
            candidate
        })
        .collect()
}

/// Compares `files` with what a directory holds: the relative paths that differ, are missing
/// from the directory, or are in it but not in `files` (each list sorted). All empty: up to date.
#[derive(Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Comparison {
    /// In both, with different content.
    pub changed: Vec<String>,
    /// Expected, not in the directory.
    pub missing: Vec<String>,
    /// In the directory (as a `.json` file), not expected.
    pub extra: Vec<String>,
}

impl Comparison {
    /// Nothing differs.
    pub fn is_clean(&self) -> bool {
        self.changed.is_empty() && self.missing.is_empty() && self.extra.is_empty()
    }
}

/// Compares `files` with the snapshot directory `dir`.
pub fn compare(files: &Files, dir: &std::path::Path) -> std::io::Result<Comparison> {
    let mut out = Comparison::default();
    for (path, content) in files {
        match std::fs::read_to_string(dir.join(path)) {
            Ok(existing) if existing == *content => {}
            Ok(_) => out.changed.push(path.clone()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => out.missing.push(path.clone()),
            Err(e) => return Err(e),
        }
    }
    if dir.exists() {
        for entry in std::fs::read_dir(dir)? {
            let tool = entry?;
            if !tool.file_type()?.is_dir() {
                continue;
            }
            for file in std::fs::read_dir(tool.path())? {
                let file = file?;
                let name = file.file_name().to_string_lossy().into_owned();
                if !name.ends_with(".json") {
                    continue;
                }
                let rel = format!("{}/{name}", tool.file_name().to_string_lossy());
                if !files.contains_key(&rel) {
                    out.extra.push(rel);
                }
            }
        }
    }
    out.extra.sort();
    Ok(out)
}

/// Writes `files` under `dir` (creating directories), and removes the `.json` files of tool
/// directories there that `files` no longer has.
pub fn write(files: &Files, dir: &std::path::Path) -> std::io::Result<()> {
    let stale = compare(files, dir)?.extra;
    for path in stale {
        let path = dir.join(path);
        std::fs::remove_file(&path)?;
        // A tool that is gone: its directory too, once empty.
        if let Some(parent) = path.parent() {
            let _ = std::fs::remove_dir(parent);
        }
    }
    for (path, content) in files {
        let path = dir.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, content)?;
    }
    Ok(())
}

/// One `insta` snapshot per target for a Rust tool type: `assert_tool_snapshots!(Type, "name")`
/// in a test (feature `insta`; review with `cargo insta review`).
#[cfg(feature = "insta")]
#[macro_export]
macro_rules! assert_tool_snapshots {
    ($ty:ty, $name:expr) => {
        for (path, content) in $crate::snapshot::of::<$ty>($name) {
            let snapshot_name = path.trim_end_matches(".json").replace('/', "__");
            $crate::__private::insta::assert_snapshot!(snapshot_name, content);
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_names_stay_inside_the_directory_and_are_unique() {
        let tool = |name: &str| Tool {
            name: Some(name.to_owned()),
            description: None,
            schema: json!({"type": "object", "properties": {}}),
            allowed_unions: Vec::new(),
        };
        let catalog = Catalog {
            layout: Layout::ToolsList,
            tools: vec![
                tool("../etc/passwd"),
                tool(".."),
                tool("a/b"),
                tool("a_b"),
                tool("A_B"),
            ],
        };
        assert_eq!(
            directory_names(&catalog),
            ["_.._etc_passwd", "_..", "a_b", "a_b_2", "A_B_3"]
        );
        let files = super::catalog(&catalog);
        assert_eq!(files.len(), 5 * Target::ALL.len());
        assert!(
            files
                .keys()
                .all(|k| !k.starts_with('.') && k.matches('/').count() == 1)
        );
    }
}
