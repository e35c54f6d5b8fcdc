use serde_json::Value;
use toolschema::{Target, catalog::Catalog};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let target: Target = args[1].parse().unwrap();
    let reps: usize = args[2].parse().unwrap();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/tools");
    let mut schemas: Vec<Value> = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|e| e == "json") && !p.ends_with("SOURCES.json") {
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            schemas.extend(
                Catalog::from_value(v)
                    .unwrap()
                    .tools
                    .into_iter()
                    .map(|t| t.schema),
            );
        }
    }
    let t = std::time::Instant::now();
    for _ in 0..reps {
        for s in &schemas {
            drop(std::hint::black_box(target.adapt(s)));
        }
    }
    eprintln!(
        "{:.2} µs per schema",
        t.elapsed().as_secs_f64() * 1e6 / (reps * schemas.len()) as f64
    );
}
