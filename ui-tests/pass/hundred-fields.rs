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

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Wide {
    /// Field number 0.
    f0: String,
    /// Field number 1.
    f1: u32,
    /// Field number 2.
    f2: Option<bool>,
    /// Field number 3.
    f3: Vec<String>,
    /// Field number 4.
    f4: f64,
    /// Field number 5.
    f5: String,
    /// Field number 6.
    f6: u32,
    /// Field number 7.
    f7: Option<bool>,
    /// Field number 8.
    f8: Vec<String>,
    /// Field number 9.
    f9: f64,
    /// Field number 10.
    f10: String,
    /// Field number 11.
    f11: u32,
    /// Field number 12.
    f12: Option<bool>,
    /// Field number 13.
    f13: Vec<String>,
    /// Field number 14.
    f14: f64,
    /// Field number 15.
    f15: String,
    /// Field number 16.
    f16: u32,
    /// Field number 17.
    f17: Option<bool>,
    /// Field number 18.
    f18: Vec<String>,
    /// Field number 19.
    f19: f64,
    /// Field number 20.
    f20: String,
    /// Field number 21.
    f21: u32,
    /// Field number 22.
    f22: Option<bool>,
    /// Field number 23.
    f23: Vec<String>,
    /// Field number 24.
    f24: f64,
    /// Field number 25.
    f25: String,
    /// Field number 26.
    f26: u32,
    /// Field number 27.
    f27: Option<bool>,
    /// Field number 28.
    f28: Vec<String>,
    /// Field number 29.
    f29: f64,
    /// Field number 30.
    f30: String,
    /// Field number 31.
    f31: u32,
    /// Field number 32.
    f32: Option<bool>,
    /// Field number 33.
    f33: Vec<String>,
    /// Field number 34.
    f34: f64,
    /// Field number 35.
    f35: String,
    /// Field number 36.
    f36: u32,
    /// Field number 37.
    f37: Option<bool>,
    /// Field number 38.
    f38: Vec<String>,
    /// Field number 39.
    f39: f64,
    /// Field number 40.
    f40: String,
    /// Field number 41.
    f41: u32,
    /// Field number 42.
    f42: Option<bool>,
    /// Field number 43.
    f43: Vec<String>,
    /// Field number 44.
    f44: f64,
    /// Field number 45.
    f45: String,
    /// Field number 46.
    f46: u32,
    /// Field number 47.
    f47: Option<bool>,
    /// Field number 48.
    f48: Vec<String>,
    /// Field number 49.
    f49: f64,
    /// Field number 50.
    f50: String,
    /// Field number 51.
    f51: u32,
    /// Field number 52.
    f52: Option<bool>,
    /// Field number 53.
    f53: Vec<String>,
    /// Field number 54.
    f54: f64,
    /// Field number 55.
    f55: String,
    /// Field number 56.
    f56: u32,
    /// Field number 57.
    f57: Option<bool>,
    /// Field number 58.
    f58: Vec<String>,
    /// Field number 59.
    f59: f64,
    /// Field number 60.
    f60: String,
    /// Field number 61.
    f61: u32,
    /// Field number 62.
    f62: Option<bool>,
    /// Field number 63.
    f63: Vec<String>,
    /// Field number 64.
    f64: f64,
    /// Field number 65.
    f65: String,
    /// Field number 66.
    f66: u32,
    /// Field number 67.
    f67: Option<bool>,
    /// Field number 68.
    f68: Vec<String>,
    /// Field number 69.
    f69: f64,
    /// Field number 70.
    f70: String,
    /// Field number 71.
    f71: u32,
    /// Field number 72.
    f72: Option<bool>,
    /// Field number 73.
    f73: Vec<String>,
    /// Field number 74.
    f74: f64,
    /// Field number 75.
    f75: String,
    /// Field number 76.
    f76: u32,
    /// Field number 77.
    f77: Option<bool>,
    /// Field number 78.
    f78: Vec<String>,
    /// Field number 79.
    f79: f64,
    /// Field number 80.
    f80: String,
    /// Field number 81.
    f81: u32,
    /// Field number 82.
    f82: Option<bool>,
    /// Field number 83.
    f83: Vec<String>,
    /// Field number 84.
    f84: f64,
    /// Field number 85.
    f85: String,
    /// Field number 86.
    f86: u32,
    /// Field number 87.
    f87: Option<bool>,
    /// Field number 88.
    f88: Vec<String>,
    /// Field number 89.
    f89: f64,
    /// Field number 90.
    f90: String,
    /// Field number 91.
    f91: u32,
    /// Field number 92.
    f92: Option<bool>,
    /// Field number 93.
    f93: Vec<String>,
    /// Field number 94.
    f94: f64,
    /// Field number 95.
    f95: String,
    /// Field number 96.
    f96: u32,
    /// Field number 97.
    f97: Option<bool>,
    /// Field number 98.
    f98: Vec<String>,
    /// Field number 99.
    f99: f64,
}

fn main() {
    assert_clean::<Wide>();
}
