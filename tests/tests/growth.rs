//! Growth checked without a clock: the bytes an adaptation allocates (and the number of
//! allocations) when its input doubles in size, for every target, on shapes that make rules act
//! at every level or on every property. A rule that renders a node's whole path as text at each
//! node, or copies a subtree per level, allocates quadratically in the depth: it shows here as a
//! factor near 4 per doubling where linear work gives 2.
//!
//! Where every level of a nesting has a report entry whose position the rules rewrote (a union's
//! branch reordered, a null branch removed, a branch merged into its node, a tuple sent as
//! `items`), the entries are placed in the output on one tree of positions
//! (`runtime/src/adapt/pointers/places.rs`) and taken back to the input on another, each move's
//! positions found from their parents' links: linear in the depth, on every shape here and every
//! target. Until this test existed some pairs were cubic (79 GB allocated for one 600-level
//! schema for Cloud Code Assist), because every report entry split every move's position into
//! tokens again; until issue 13's item 5 was done several were quadratic (a merged branch's
//! positions logged as text, rewrites found only by `follow`).
//!
//! Work that allocates nothing does not show here: `follow` (in `runtime/src/adapt/pointers.rs`)
//! once asked every union's branches how far they reach at every level, cubic in time on these
//! shapes while their allocations grew ×4; a unit test there counts its steps instead.
//!
//! Allocation counts are the same on every run (the thread's rule lists are built before the
//! first count), so this is an ordinary test; the time figures are in the benches (`cargo bench
//! -p toolschema --bench adapt`, `tests/instructions.sh`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use serde_json::{Map, Value, json};
use toolschema::Target;

/// The system allocator, counting what each thread asks of it.
struct Counting;

thread_local! {
    static BYTES: Cell<u64> = const { Cell::new(0) };
    static CALLS: Cell<u64> = const { Cell::new(0) };
}

fn note(bytes: usize) {
    // `try_with`: a thread being torn down still allocates, uncounted.
    let _ = BYTES.try_with(|b| b.set(b.get() + bytes as u64));
    let _ = CALLS.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: every call is passed to `System` unchanged; the counters are plain thread-local cells
// (no allocation, no destructor).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Bytes and allocations of `target.adapt(value)` on this thread.
fn allocations(target: Target, value: &Value) -> (u64, u64) {
    let before = (BYTES.with(Cell::get), CALLS.with(Cell::get));
    let adapted = target.adapt(value);
    let after = (BYTES.with(Cell::get), CALLS.with(Cell::get));
    // Dropped on a stack sized for any depth here (serde_json drops recursively).
    std::mem::forget(adapted);
    (after.0 - before.0, after.1 - before.1)
}

/// `levels` levels of `wrap` around a string schema.
fn nest(levels: usize, wrap: fn(Value) -> Value) -> Value {
    let mut node = json!({"type": "string", "maxLength": 8});
    for _ in 0..levels {
        node = wrap(node);
    }
    json!({"type": "object", "properties": {"root": node}, "required": ["root"]})
}

fn object(x: Value) -> Value {
    json!({"type": "object", "properties": {"x": x}, "required": ["x"]})
}

/// The shapes: a name and the input for a size.
type Shape = (&'static str, fn(usize) -> Value);

const SHAPES: [Shape; 22] = [
    ("deep arrays", |n| {
        nest(n, |x| json!({"type": "array", "items": x}))
    }),
    ("deep tuples", |n| {
        nest(
            n,
            |x| json!({"type": "array", "prefixItems": [x, {"type": "string"}]}),
        )
    }),
    ("allOf of one", |n| {
        nest(n, |x| json!({"allOf": [object(x)]}))
    }),
    ("nullable type array objects", |n| {
        nest(
            n,
            |x| json!({"type": ["object", "null"], "properties": {"x": x}, "required": ["x"], "description": "d"}),
        )
    }),
    ("const and enum per level", |n| {
        nest(
            n,
            |x| json!({"type": "object", "properties": {"x": x, "c": {"const": "k"}, "e": {"enum": ["a", 1]}}, "required": ["x"]}),
        )
    }),
    ("spilled constraints per level", |n| {
        nest(
            n,
            |x| json!({"type": "object", "minProperties": 1, "properties": {"x": x, "s": {"type": "string", "minLength": 2, "pattern": "^a", "format": "email"}}, "required": ["x"]}),
        )
    }),
    ("patternProperties per level", |n| {
        nest(
            n,
            |x| json!({"type": "object", "patternProperties": {"^p": {"type": "string"}}, "properties": {"x": x}, "required": ["x"]}),
        )
    }),
    ("three object branches", |n| {
        nest(
            n,
            |x| json!({"anyOf": [object(x), {"type": "object", "properties": {"y": {"type": "string"}}}, {"type": "object", "properties": {"z": {"type": "integer"}}}]}),
        )
    }),
    ("ref chain", |n| {
        let mut defs = Map::new();
        for i in 0..n {
            defs.insert(format!("D{i}"), json!({"type": "object", "properties": {"x": {"$ref": format!("#/$defs/D{}", i + 1)}}}));
        }
        defs.insert(format!("D{n}"), json!({"type": "string"}));
        json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/D0"}}, "$defs": defs})
    }),
    ("oneOf with a null and a nullable object", |n| {
        nest(
            n,
            |x| json!({"oneOf": [{"type": "null"}, {"type": ["object", "null"], "properties": {"x": x}}]}),
        )
    }),
    ("nested objects", |n| nest(n, object)),
    ("nested optional properties", |n| {
        nest(n, |x| json!({"type": "object", "properties": {"x": x}}))
    }),
    (
        "nullable unions (a null branch removed or kept at every level)",
        |n| nest(n, |x| json!({"anyOf": [object(x), {"type": "null"}]})),
    ),
    ("structured branch second (reordered at every level)", |n| {
        nest(n, |x| json!({"anyOf": [{"type": "string"}, object(x)]}))
    }),
    ("oneOf of a scalar and an object", |n| {
        nest(n, |x| json!({"oneOf": [{"type": "integer"}, object(x)]}))
    }),
    ("unions of one branch", |n| {
        nest(n, |x| json!({"anyOf": [object(x)]}))
    }),
    (
        "unions of two objects (merged where a target merges)",
        |n| {
            nest(
                n,
                |x| json!({"oneOf": [object(x), {"type": "object", "properties": {"y": {"type": "string"}}}]}),
            )
        },
    ),
    ("nullable type arrays with untyped oneOf branches", |n| {
        nest(
            n,
            |x| json!({"type": ["object", "null"], "oneOf": [{"minProperties": 1}, {"maxProperties": 3}], "properties": {"x": x}, "required": ["x"]}),
        )
    }),
    ("a reference to one definition at every level", |n| {
        let mut schema = nest(
            n,
            |x| json!({"type": "object", "properties": {"x": x, "r": {"$ref": "#/$defs/L"}}}),
        );
        schema["$defs"] = json!({"L": {"type": "string", "maxLength": 3}});
        schema
    }),
    ("a reference with a sibling keyword at every level", |n| {
        let mut schema = nest(
            n,
            |x| json!({"type": "object", "properties": {"x": x, "r": {"$ref": "#/$defs/L", "description": "d"}}}),
        );
        schema["$defs"] = json!({"L": {"type": "string", "maxLength": 3}});
        schema
    }),
    ("unions of an object and an array", |n| {
        nest(
            n,
            |x| json!({"anyOf": [object(x), {"type": "array", "items": {"type": "string"}}]}),
        )
    }),
    ("wide object of nullable type arrays", |n| {
        let props: Map<String, Value> = (0..n * 4)
            .map(|i| {
                (
                    format!("p{i}"),
                    json!({"type": ["string", "null"], "maxLength": 8, "description": "a field"}),
                )
            })
            .collect();
        json!({"type": "object", "properties": props})
    }),
];

/// Linear work doubles; a little more allows for tables and vectors that grow by doubling.
const LINEAR: f64 = 2.3;

/// The doublings of `target` on every shape that grow faster than linear work.
fn too_fast(target: Target) -> Vec<String> {
    let mut failures = Vec::new();
    // The thread's rule lists, built once.
    drop(target.adapt(&json!({"type": "object"})));
    for (name, make) in &SHAPES {
        let sizes = [64, 128, 256];
        let inputs: Vec<Value> = sizes.iter().map(|&n| make(n)).collect();
        let counts: Vec<(u64, u64)> = inputs.iter().map(|v| allocations(target, v)).collect();
        for (pair, n) in counts.windows(2).zip(sizes.windows(2)) {
            let bytes = pair[1].0 as f64 / pair[0].0 as f64;
            let calls = pair[1].1 as f64 / pair[0].1 as f64;
            if bytes > LINEAR || calls > LINEAR {
                failures.push(format!(
                    "{target}, {name}: {} → {}: bytes ×{bytes:.2} ({} → {}), allocations ×{calls:.2}",
                    n[0], n[1], pair[0].0, pair[1].0
                ));
            }
        }
        std::mem::forget(inputs);
    }
    failures
}

#[test]
fn allocations_grow_linearly_on_every_shape_and_target() {
    // The targets on two threads (the counters are per thread): the debug build takes about a
    // minute for all of them on one.
    let targets = Target::ALL;
    let (first, second) = targets.split_at(targets.len() / 2);
    let failures: Vec<String> = std::thread::scope(|scope| {
        let other = scope.spawn(|| second.iter().flat_map(|&t| too_fast(t)).collect::<Vec<_>>());
        let mut failures: Vec<String> = first.iter().flat_map(|&t| too_fast(t)).collect();
        failures.extend(other.join().expect("the other half ran"));
        failures
    });
    assert!(
        failures.is_empty(),
        "allocations grow faster than ×{LINEAR} per doubling:\n{}",
        failures.join("\n")
    );
}
