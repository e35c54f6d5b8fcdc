#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `ConfigSource` has structural-union at `$defs.OrInline`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ProviderSafe;

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Config {
    path: String,
}

#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum OrInline<T> {
    Ref(T),
    Inline { body: String },
}

/// A newtype publishes its inner schema: here a structural union.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct ConfigSource(OrInline<Config>);

fn main() {}
