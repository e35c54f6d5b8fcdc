//! Issue 13's figures as instruction counts instead of wall time: the work `tests/instructions.sh`
//! runs under callgrind, and the table it prints from callgrind's dumps.
//!
//! Wall time on a shared machine moves by several per cent from one run to the next, more than
//! the margins of some of the rows; the instructions an adaptation executes are the same
//! on every run. They are not the time: they do not count cache misses, branch mispredictions or
//! the allocator's waits, so a time ratio runs above its instruction ratio (about 1.2× on the
//! real tools here). The bench `adapt` measures the time.
//!
//! - `instructions real <target|clone>`: for each real tool, one call of [`measured`] that adapts
//!   it (or clones it) and drops the result ten times.
//! - `instructions grow <target|clone>`: for each growth row and size, one call of [`measured`]
//!   that adapts (or clones) that input once and drops the result.
//! - `instructions targets`: the target names, one per line.
//! - `instructions report DIR`: reads the dumps `tests/instructions.sh` left in `DIR` (one per call
//!   of [`measured`], callgrind's `--dump-after`) and prints the table.
//!
//! Run by `cargo bench` without arguments, it does each kind of work once, without printing.

mod inputs;

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::Path;

use inputs::{SHAPES, corpus};
use serde_json::Value;
use toolschema::Target;

/// Real tools are adapted this many times per measured call (the count is divided back out).
const REPEATS: u64 = 10;

/// The work one dump counts: callgrind collects inside this function alone and dumps after each
/// call.
#[inline(never)]
fn measured(f: &mut dyn FnMut()) {
    f();
}

/// Adapts `value` for `target` (clones it for `None`) and drops the result.
fn once(target: Option<Target>, value: &Value) {
    match target {
        Some(t) => drop(black_box(t.adapt(black_box(value)))),
        None => drop(black_box(black_box(value).clone())),
    }
}

fn real(target: Option<Target>) {
    let schemas = corpus();
    // The thread's rule lists are built at the first adaptation: before any measured call.
    if let (Some(t), Some(first)) = (target, schemas.first()) {
        drop(t.adapt(first));
    }
    for schema in &schemas {
        measured(&mut || {
            for _ in 0..REPEATS {
                once(target, schema);
            }
        });
    }
}

fn grow(target: Option<Target>) {
    if let Some(t) = target {
        drop(t.adapt(&inputs::deep(1)));
    }
    for (_, make, sizes) in SHAPES {
        for &n in sizes {
            let value = make(n);
            measured(&mut || once(target, &value));
            // serde_json drops recursively: the deepest inputs are leaked rather than dropped on
            // this stack (the adaptations run on a stack grown for them).
            std::mem::forget(value);
        }
    }
}

/// What one dump counted: all the instructions, and those in the C allocator (glibc's
/// `malloc/` sources: `malloc`, `free` and their internals).
#[derive(Clone, Copy)]
struct Count {
    total: u64,
    allocator: u64,
}

impl Count {
    /// The instructions outside the allocator: this crate's work and serde_json's, whose count
    /// does not depend on the state the allocator's heap is in.
    fn ours(self) -> u64 {
        self.total - self.allocator
    }
}

/// Reads one callgrind dump (`--dump-instr=no`, the one event `Ir`): its `totals:`, and the self
/// cost of the code in the allocator's source files. Names are compressed as `(id) name` at their
/// first use; a cost line right after `calls=` is the call's inclusive cost, not self cost.
fn count(text: &str) -> Count {
    let mut files: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    let mut in_allocator = false;
    let mut after_call = false;
    let mut count = Count {
        total: 0,
        allocator: 0,
    };
    for line in text.lines() {
        if let Some(t) = line.strip_prefix("totals: ") {
            count.total = t.trim().parse().unwrap_or(0);
            continue;
        }
        let file = ["fl=", "fi=", "fe="]
            .iter()
            .find_map(|p| line.strip_prefix(p));
        let called_file = ["cfi=", "cfl="].iter().find_map(|p| line.strip_prefix(p));
        if let Some(spec) = file.or(called_file) {
            let name = match spec.split_once(' ') {
                Some((id, name)) => {
                    files.insert(id, name);
                    name
                }
                None => files.get(spec).copied().unwrap_or(""),
            };
            if file.is_some() {
                in_allocator = name.contains("/malloc/");
            }
            continue;
        }
        if line.starts_with("calls=") {
            after_call = true;
            continue;
        }
        let is_cost = line
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'*'));
        if is_cost {
            if std::mem::take(&mut after_call) {
                continue;
            }
            if in_allocator {
                let cost: u64 = line
                    .split_whitespace()
                    .last()
                    .and_then(|c| c.parse().ok())
                    .unwrap_or(0);
                count.allocator += cost;
            }
        }
    }
    count
}

/// The counts of the dumps in `dir` whose name starts with `prefix.`, in the order of the
/// measured calls (callgrind numbers the dumps `.1`, `.2`, …).
fn counts(dir: &Path, prefix: &str) -> Vec<Count> {
    let mut parts = BTreeMap::new();
    for entry in std::fs::read_dir(dir).expect("the dump directory") {
        let path = entry.expect("a dump").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(prefix).and_then(|r| r.strip_prefix('.')) else {
            continue;
        };
        // `<pid>.<part>`: the final dump at exit (no part number) counts nothing.
        let Some((_, part)) = rest.split_once('.') else {
            continue;
        };
        let part: u64 = part.parse().expect("a part number");
        let text = std::fs::read_to_string(&path).expect("a readable dump");
        parts.insert(part, count(&text));
    }
    parts.into_values().collect()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// The worst factor from one size to the next (the sizes double: linear is 2).
fn worst_doubling(xs: &[u64]) -> f64 {
    xs.windows(2)
        .map(|w| w[1] as f64 / w[0] as f64)
        .fold(0.0, f64::max)
}

fn report(dir: &Path) {
    let floor = counts(dir, "real-clone");
    let per = |xs: &[Count], f: fn(Count) -> u64| -> (f64, f64) {
        let values: Vec<f64> = xs.iter().map(|c| f(*c) as f64).collect();
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        (median(values) / REPEATS as f64, mean / REPEATS as f64)
    };
    let ratio = |xs: &[Count], f: fn(Count) -> u64| -> f64 {
        median(
            xs.iter()
                .zip(&floor)
                .map(|(a, c)| f(*a) as f64 / f(*c) as f64)
                .collect(),
        )
    };
    let total = |c: Count| c.total;
    let ours = |c: Count| c.ours();
    println!(
        "real tools ({} schemas): instructions per schema (adaptation + drop); median ratio to a clone + drop of the same value, counting every instruction and counting those outside the C allocator",
        floor.len()
    );
    println!(
        "{:18} {:>9} {:>9} {:>13} {:>17} {:>16}",
        "target", "median", "mean", "median ratio", "outside allocator", "allocator share"
    );
    let share = |xs: &[Count]| {
        let (a, t): (u64, u64) = xs
            .iter()
            .fold((0, 0), |(a, t), c| (a + c.allocator, t + c.total));
        a as f64 / t as f64 * 100.0
    };
    let (m, mean) = per(&floor, total);
    println!(
        "{:18} {m:>9.0} {mean:>9.0} {:>13} {:>17} {:>15.0}%",
        "clone + drop",
        "",
        "",
        share(&floor)
    );
    for &target in Target::ALL {
        let adapt = counts(dir, &format!("real-{}", target.as_str()));
        assert_eq!(
            adapt.len(),
            floor.len(),
            "{}: one dump per tool",
            target.as_str()
        );
        let (m, mean) = per(&adapt, total);
        println!(
            "{:18} {m:>9.0} {mean:>9.0} {:>12.2}× {:>16.2}× {:>15.0}%",
            target.as_str(),
            ratio(&adapt, total),
            ratio(&adapt, ours),
            share(&adapt)
        );
    }
    let floor = counts(dir, "grow-clone");
    let mut at = 0;
    for (name, _, sizes) in SHAPES {
        println!(
            "\n{name} {sizes:?}: thousands of instructions outside the allocator at each size; worst doubling factor (linear: 2) outside the allocator and counting it; last size ÷ clone + drop (outside the allocator)"
        );
        let row = |label: &str, xs: &[Count], last: Option<Count>| {
            let ours: Vec<u64> = xs.iter().map(|c| c.ours()).collect();
            let all: Vec<u64> = xs.iter().map(|c| c.total).collect();
            let cells: Vec<String> = ours
                .iter()
                .map(|c| format!("{:.0}", *c as f64 / 1e3))
                .collect();
            let last = last
                .map(|f| {
                    format!(
                        "  last ÷ floor {:.1}×",
                        xs[xs.len() - 1].ours() as f64 / f.ours() as f64
                    )
                })
                .unwrap_or_default();
            println!(
                "{label:18} {}  worst ×{:.2} (×{:.2} counting the allocator){last}",
                cells.join(" "),
                worst_doubling(&ours),
                worst_doubling(&all)
            );
        };
        let floor = &floor[at..at + sizes.len()];
        row("clone + drop", floor, None);
        for &target in Target::ALL {
            let all = counts(dir, &format!("grow-{}", target.as_str()));
            row(
                target.as_str(),
                &all[at..at + sizes.len()],
                floor.last().copied(),
            );
        }
        at += sizes.len();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let target = |name: &str| -> Option<Target> {
        (name != "clone").then(|| name.parse().expect("a target or `clone`"))
    };
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["real", t] => real(target(t)),
        ["grow", t] => grow(target(t)),
        ["report", dir] => report(Path::new(dir)),
        ["targets"] => Target::ALL.iter().for_each(|t| println!("{}", t.as_str())),
        // `cargo bench` (its `--bench` flag, maybe a filter): the work once, as a smoke run.
        _ => {
            let schemas = corpus();
            for t in Target::ALL {
                once(Some(*t), &schemas[0]);
            }
            once(None, &schemas[0]);
        }
    }
}
