#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ToolParams;

/// The published schema has no structural union and the contract check passes.
fn assert_clean<T: ToolParams>() {
    let schema = T::published_schema();
    let violations = toolschema::contract::check(&schema);
    assert!(
        violations
            .iter()
            .all(|v| v.severity == toolschema::contract::Severity::Warning),
        "{violations:#?}\n{schema:#}"
    );
    T::check_contract().unwrap();
}

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Everything {
    b: bool,
    i8: i8, i16: i16, i32: i32, i64: i64, i128: i128, isize: isize,
    u8: u8, u16: u16, u32: u32, u64: u64, u128: u128, usize: usize,
    f32: f32, f64: f64,
    c: char,
    s: String,
    cow: Cow<'static, str>,
    opt: Option<String>,
    v: Vec<u8>,
    dq: VecDeque<String>,
    arr: [i32; 3],
    boxed: Box<String>,
    arc: Arc<String>,
    rc: Rc<String>,
    hm: HashMap<String, i64>,
    bm: BTreeMap<String, Vec<String>>,
    hs: HashSet<String>,
    bs: BTreeSet<u32>,
    unit: (),
    any: serde_json::Value,
    map: serde_json::Map<String, serde_json::Value>,
    pair: (String, u32),
    nested: Vec<Option<HashMap<String, Vec<bool>>>>,
    nz: std::num::NonZeroU32,
    path: std::path::PathBuf,
}

fn main() {
    assert_clean::<Everything>();
}
