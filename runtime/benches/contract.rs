//! The contract checker over every tool of the bundled real catalogs (206 schemas), next to the
//! cost of cloning the same values, plus a deep and a wide schema.
//!
//! `cargo bench -p toolschema --bench contract`

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolschema::catalog::Catalog;
use toolschema::contract::check;

fn corpus() -> Vec<Value> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/tools");
    let mut schemas = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/tools")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter(|p| !p.ends_with("SOURCES.json"))
        .collect();
    names.sort();
    for path in names {
        let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let catalog = Catalog::from_value(value).unwrap();
        schemas.extend(catalog.tools.into_iter().map(|t| t.schema));
    }
    schemas
}

fn deep(levels: usize) -> Value {
    let mut node = json!({"anyOf": [{"type": "object"}, {"type": "string"}]});
    for _ in 0..levels {
        let mut props = serde_json::Map::new();
        props.insert("x".into(), node);
        let mut obj = serde_json::Map::new();
        obj.insert("type".into(), json!("object"));
        obj.insert("properties".into(), Value::Object(props));
        node = Value::Object(obj);
    }
    node
}

fn wide(properties: usize) -> Value {
    let props: serde_json::Map<String, Value> = (0..properties)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
            )
        })
        .collect();
    json!({"type": "object", "properties": props})
}

fn bench(c: &mut Criterion) {
    let schemas = corpus();
    let mut group = c.benchmark_group("corpus");
    group.throughput(Throughput::Elements(schemas.len() as u64));
    group.bench_function("check", |b| {
        b.iter(|| {
            for s in &schemas {
                black_box(check(black_box(s)));
            }
        })
    });
    group.bench_function("clone", |b| {
        b.iter(|| {
            for s in &schemas {
                black_box(black_box(s).clone());
            }
        })
    });
    group.finish();

    let deep = deep(1_000);
    c.bench_function("deep_1000_levels/check", |b| {
        b.iter(|| black_box(check(black_box(&deep))))
    });
    let wide = wide(5_000);
    c.bench_function("wide_5000_properties/check", |b| {
        b.iter(|| black_box(check(black_box(&wide))))
    });
    std::mem::forget(deep);
}

criterion_group!(benches, bench);
criterion_main!(benches);
