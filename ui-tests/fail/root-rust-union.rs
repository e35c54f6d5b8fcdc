#![allow(dead_code)]
use toolschema::ProviderSafe;

/// A Rust `union` has no schema at all.
#[derive(ProviderSafe)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
