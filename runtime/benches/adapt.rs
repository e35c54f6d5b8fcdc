//! Each target over every tool of the bundled real catalogs (206 schemas), next to the time to
//! clone the same values (the floor: every adapter starts with a clone), plus a 1,000-level
//! nested object and a 5,000-property object per target.
//!
//! `cargo bench -p toolschema --bench adapt`

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolschema::Target;
use toolschema::adapt::adapt;
use toolschema::catalog::Catalog;

fn corpus() -> Vec<Value> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/tools");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json") && !p.ends_with("SOURCES.json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .flat_map(|p| {
            let value: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
            Catalog::from_value(value)
                .unwrap()
                .tools
                .into_iter()
                .map(|t| t.schema)
        })
        .collect()
}

/// `levels` nested objects, each requiring its one property.
fn deep(levels: usize) -> Value {
    let mut node = json!({"type": "string", "maxLength": 8});
    for _ in 0..levels {
        let mut props = serde_json::Map::new();
        props.insert("x".into(), node);
        let mut obj = serde_json::Map::new();
        obj.insert("type".into(), json!("object"));
        obj.insert("properties".into(), Value::Object(props));
        obj.insert("required".into(), json!(["x"]));
        node = Value::Object(obj);
    }
    node
}

fn wide(n: usize) -> Value {
    let props: serde_json::Map<String, Value> = (0..n)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"type": ["string", "null"], "maxLength": 8, "description": "a field"}),
            )
        })
        .collect();
    json!({"type": "object", "properties": props})
}

fn bench(c: &mut Criterion) {
    let schemas = corpus();
    let mut group = c.benchmark_group("corpus");
    group.throughput(Throughput::Elements(schemas.len() as u64));
    group.bench_function("clone", |b| {
        b.iter(|| {
            for s in &schemas {
                black_box(black_box(s).clone());
            }
        })
    });
    for target in Target::ALL {
        group.bench_function(BenchmarkId::new("adapt", target.as_str()), |b| {
            b.iter(|| {
                for s in &schemas {
                    black_box(adapt(black_box(s), target));
                }
            })
        });
    }
    group.finish();

    let deep = deep(1_000);
    let wide = wide(5_000);
    for (name, input) in [("deep_1000_levels", &deep), ("wide_5000_properties", &wide)] {
        let mut group = c.benchmark_group(name);
        group.sample_size(10);
        group.bench_function("clone", |b| {
            b.iter(|| std::mem::forget(black_box(input).clone()))
        });
        for target in Target::ALL {
            group.bench_function(BenchmarkId::new("adapt", target.as_str()), |b| {
                b.iter(|| std::mem::forget(adapt(black_box(input), target)))
            });
        }
        group.finish();
    }
    std::mem::forget(deep);
}

criterion_group!(benches, bench);
criterion_main!(benches);
