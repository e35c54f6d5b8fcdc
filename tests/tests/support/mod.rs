//! Shared by the integration tests: fixture catalogs (the validators and the report promises are
//! in the library, `toolschema_tests::{validators, promises}`, shared with the fuzz driver).
#![allow(dead_code)]

pub mod generate;
pub mod types;

use std::path::PathBuf;

use serde_json::Value;
use toolschema::catalog::Catalog;

/// The real catalogs in `tests/fixtures/tools` (copied from the project's shared corpus), by
/// file stem.
pub fn corpus() -> Vec<(String, Catalog)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/tools");
    let mut out: Vec<(String, Catalog)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json") && !p.ends_with("SOURCES.json"))
        .map(|p| {
            let value: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (
                p.file_stem().unwrap().to_string_lossy().into_owned(),
                Catalog::from_value(value).unwrap(),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Every fixture catalog: the schemars output of the fixture types, then the real catalogs.
pub fn all_catalogs() -> Vec<(String, Catalog)> {
    let mut out = vec![("schemars-types".to_owned(), types::catalog())];
    out.extend(corpus());
    out
}
