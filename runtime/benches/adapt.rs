//! Each target over every tool of the bundled real catalogs (206 schemas, and one made tool
//! beside nine recursive definitions nothing references), next to the time to
//! clone the same values (the floor: every adapter starts with a clone), plus a 1,000-level
//! nested object and a 5,000-property object per target.
//!
//! First it prints the figures issue 13 asks for, measured in the same run: per target the median
//! and mean µs per real schema and the median ratio to a clone + drop of the same value (timed
//! in turns with it, schema by schema, the fastest of [`ROUNDS`] rounds kept), with the same
//! ratio for a clone + drop of the target's own
//! output (what building that output costs at the least) and the adapter's ratio to that; then
//! growth rows (each doubling's time factor) for a 1-property object nested 100 → 3,200 deep, an
//! object of 1,250 → 20,000 optional properties (each `"type": ["string", "null"]` with a
//! `maxLength` and a description), and the same nesting with the property optional
//! (strict modes wrap it nullable at every level) 250 → 4,000 deep, and a hostile nesting (every
//! level a nullable type array with a `oneOf`, which several targets rewrite and report at every
//! level) 250 → 4,000 deep, and a nesting of unions (every level `anyOf` of a string and an
//! object, which most targets reorder and Cloud Code Assist collapses, with a report entry per
//! level whose position those moves change) 250 → 4,000 deep.
//!
//! `cargo bench -p toolschema --bench adapt` (figures, then criterion);
//! `cargo bench -p toolschema --bench adapt -- figures` (figures only);
//! `cargo bench -p toolschema --bench adapt -- encoding` (encoding's cost only: off and on per
//! target that encodes, and a growing object of maps).
//!
//! Wall time on a shared machine moves by several per cent between runs; `tests/instructions.sh`
//! gives the same figures as instruction counts (callgrind), which do not.

mod inputs;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput};
use inputs::{SHAPES, corpus, deep, map_tools, maps, wide};
use serde_json::Value;
use toolschema::Target;
use toolschema::adapt::rules;

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
    for &target in Target::ALL {
        group.bench_function(BenchmarkId::new("adapt", target.as_str()), |b| {
            b.iter(|| {
                for s in &schemas {
                    black_box(target.adapt(black_box(s)));
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
        for &target in Target::ALL {
            group.bench_function(BenchmarkId::new("adapt", target.as_str()), |b| {
                b.iter(|| std::mem::forget(target.adapt(black_box(input))))
            });
        }
        group.finish();
    }
    std::mem::forget(deep);
}

/// The fastest of `rounds` timings of `f` run `reps` times, per run.
fn time(rounds: usize, reps: usize, f: &mut dyn FnMut()) -> Duration {
    (0..rounds)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..reps {
                f();
            }
            start.elapsed() / reps as u32
        })
        .min()
        .expect("rounds > 0")
}

/// The fastest of `rounds` timings of each of `fs` run `reps` times, per run; the functions take
/// turns round by round, so that a slower spell of a shared machine falls on all of them rather
/// than on one.
fn time_in_turns(rounds: usize, reps: usize, fs: &mut [&mut dyn FnMut()]) -> Vec<Duration> {
    let mut fastest = vec![Duration::MAX; fs.len()];
    for _ in 0..rounds {
        for (f, best) in fs.iter_mut().zip(&mut fastest) {
            let start = Instant::now();
            for _ in 0..reps {
                f();
            }
            *best = (*best).min(start.elapsed() / reps as u32);
        }
    }
    fastest
}

fn clone_and_drop(v: &Value) {
    drop(black_box(black_box(v).clone()));
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Rounds per real schema and per growth row's size: the fastest of these is kept (with 5, a
/// run's median ratios moved by up to 15% from one run to the next on a shared 2-core machine;
/// with 11 in turns, by about 5%).
const ROUNDS: usize = 11;

/// The targets that encode something with encoding on.
const ENCODING: &[Target] = &[
    Target::OpenAiStrict,
    Target::OpenAiResponses,
    Target::AnthropicStrict,
    Target::DeepSeekStrict,
    Target::Xai,
    Target::GeminiCompat,
    Target::GeminiOpenApi,
    Target::CcaClaude,
];

/// Encoding's cost (issue 60: at most 20% more per tool, linear): per target that encodes, the
/// mean µs per schema with encoding off and on (timed in turns, schema by schema), over the real
/// tools and over the maps fixture; then an object of N typed maps, doubling, with encoding on.
fn encoding_figures(real: &[Value]) {
    println!(
        "\nencoding (`with_encoding(true)`): mean µs per schema off → on (ratio of the means), timed in turns"
    );
    println!(
        "{:18} {:>26} {:>26}",
        "target", "real tools", "maps fixture"
    );
    let fixture = map_tools();
    for &target in ENCODING {
        let off = target.settings();
        let on = target.settings().with_encoding(true);
        let mut cells = Vec::new();
        for set in [real, &fixture[..]] {
            let (mut a, mut b) = (0.0, 0.0);
            for s in set {
                let timed = time_in_turns(
                    ROUNDS,
                    20,
                    &mut [
                        &mut || drop(black_box(off.adapt(black_box(s)))),
                        &mut || drop(black_box(on.adapt(black_box(s)))),
                    ],
                );
                a += timed[0].as_secs_f64() * 1e6;
                b += timed[1].as_secs_f64() * 1e6;
            }
            let n = set.len() as f64;
            cells.push(format!("{:>7.2} → {:>7.2} ({:.2}×)", a / n, b / n, b / a));
        }
        println!("{:18} {:>26} {:>26}", target.as_str(), cells[0], cells[1]);
    }
    let sizes = [1_250, 2_500, 5_000, 10_000];
    println!(
        "\nmaps {sizes:?} (each property a typed map, all encoded): ms at each size with encoding on; worst doubling factor of the time (linear: 2), and of the time ÷ clone + drop of the same value, timed in turns (linear: 1)"
    );
    let values: Vec<Value> = sizes.iter().map(|n| maps(*n)).collect();
    let worst_doubling = |xs: &[f64]| {
        (xs.windows(2))
            .zip(sizes.windows(2))
            .map(|(t, n)| (t[1] / t[0]) / (n[1] as f64 / n[0] as f64) * 2.0)
            .fold(0.0, f64::max)
    };
    for &target in ENCODING {
        let on = target.settings().with_encoding(true);
        let (mut times, mut ratios) = (Vec::new(), Vec::new());
        for v in &values {
            let timed = time_in_turns(
                5,
                1,
                &mut [&mut || clone_and_drop(v), &mut || {
                    drop(black_box(on.adapt(black_box(v))))
                }],
            );
            times.push(timed[1].as_secs_f64());
            ratios.push(timed[1].as_secs_f64() / timed[0].as_secs_f64());
        }
        let cells: Vec<String> = times.iter().map(|t| format!("{:.2}", t * 1e3)).collect();
        println!(
            "{:18} {}  worst ×{:.2}, ÷ floor ×{:.2}",
            target.as_str(),
            cells.join(" "),
            worst_doubling(&times),
            // Each step doubles the size: a ratio that stays put is linear.
            (ratios.windows(2)).map(|r| r[1] / r[0]).fold(0.0, f64::max)
        );
    }
}

fn figures() {
    let schemas = corpus();
    println!(
        "real tools ({} schemas): µs per schema, ratio to clone + drop of the same value",
        schemas.len()
    );
    println!(
        "(output copy: the median ratio of a clone + drop of the target's own output to that of the input, a floor for any adapter that must build that output; over output copy: the adapter's median ratio to it)"
    );
    println!(
        "{:18} {:>9} {:>9} {:>13} {:>11} {:>12} {:>12} {:>17}",
        "target",
        "median",
        "mean",
        "median ratio",
        "mean ratio",
        "worst ratio",
        "output copy",
        "over output copy"
    );
    for &target in Target::ALL {
        let (mut us, mut ratios, mut floor) = (Vec::new(), Vec::new(), Vec::new());
        let (mut output_copy, mut over_output) = (Vec::new(), Vec::new());
        for s in &schemas {
            // The floor, the adapter and the output's copy in turns, schema by schema.
            let output = target.adapt(s).schema;
            let timed = time_in_turns(
                ROUNDS,
                20,
                &mut [
                    &mut || clone_and_drop(s),
                    &mut || drop(black_box(target.adapt(black_box(s)))),
                    &mut || clone_and_drop(&output),
                ],
            );
            let (base, took, copy) = (timed[0], timed[1], timed[2]);
            us.push(took.as_secs_f64() * 1e6);
            floor.push(base.as_secs_f64() * 1e6);
            ratios.push(took.as_secs_f64() / base.as_secs_f64());
            output_copy.push(copy.as_secs_f64() / base.as_secs_f64());
            over_output.push(took.as_secs_f64() / copy.as_secs_f64());
        }
        let mean = us.iter().sum::<f64>() / us.len() as f64;
        let mean_ratio = mean / (floor.iter().sum::<f64>() / floor.len() as f64);
        let worst = ratios.iter().copied().fold(0.0, f64::max);
        println!(
            "{:18} {:>9.2} {:>9.2} {:>12.2}× {:>10.2}× {:>11.2}× {:>11.2}× {:>16.2}×",
            target.as_str(),
            median(us),
            mean,
            median(ratios),
            mean_ratio,
            worst,
            median(output_copy),
            median(over_output)
        );
    }
    println!(
        "\nstrict refused (real tools strict mode cannot represent): µs per schema and ratio to the relaxed form alone (`without_strict`)"
    );
    for &target in Target::ALL.iter().filter(|t| t.wants_strict()) {
        let strict = target.settings();
        let relaxed = target.settings().without_strict();
        let refused: Vec<&Value> = schemas
            .iter()
            .filter(|s| {
                let a = strict.adapt(s);
                a.strict == Some(false) && !a.fallback
            })
            .collect();
        let (mut us, mut ratios) = (Vec::new(), Vec::new());
        for s in &refused {
            let base = time(5, 20, &mut || drop(black_box(relaxed.adapt(black_box(s)))));
            let took = time(5, 20, &mut || drop(black_box(strict.adapt(black_box(s)))));
            us.push(took.as_secs_f64() * 1e6);
            ratios.push(took.as_secs_f64() / base.as_secs_f64());
        }
        if refused.is_empty() {
            println!("{:18} none refused", target.as_str());
        } else {
            println!(
                "{:18} {:>4} schemas  median {:>7.2} µs  median ratio {:.2}×  worst {:.2}×",
                target.as_str(),
                refused.len(),
                median(us),
                median(ratios.clone()),
                ratios.iter().copied().fold(0.0, f64::max)
            );
        }
    }
    println!(
        "\nwhere the time goes: the main attempt's rules run as growing lists over the real tools (a rule's cost is the list up to it less the list before it, µs per schema); `read + write` is the empty list"
    );
    for &target in Target::ALL {
        let settings = target.settings();
        let names: Vec<&str> = settings.rules().iter().map(|r| r.name()).collect();
        // spent[0]: no rule (read and write); spent[i + 1]: the first i + 1 rules.
        let mut spent = vec![0f64; names.len() + 1];
        for s in &schemas {
            for (n, total) in spent.iter_mut().enumerate() {
                let took = time(3, 5, &mut || {
                    let mut list = settings.rules();
                    list.truncate(n);
                    drop(black_box(rules::apply(&mut list, s)));
                });
                *total += took.as_secs_f64() * 1e6;
            }
        }
        let n = schemas.len() as f64;
        let each: Vec<f64> = spent
            .windows(2)
            .map(|w| (w[1] - w[0]).max(0.0) / n)
            .collect();
        let mut order: Vec<usize> = (0..names.len()).collect();
        order.sort_by(|a, b| each[*b].total_cmp(&each[*a]));
        let top: Vec<String> = order
            .iter()
            .take(5)
            .map(|&i| format!("{} {:.2}", names[i], each[i]))
            .collect();
        println!(
            "{:18} {:>2} rules {:>6.2} µs (read + write {:.2}); most: {}",
            target.as_str(),
            names.len(),
            spent[names.len()] / n,
            spent[0] / n,
            top.join(", ")
        );
    }
    encoding_figures(&schemas);
    for (name, make, sizes) in SHAPES {
        println!(
            "\n{name} {sizes:?}: ms at each size; worst doubling factor of the time (linear: 2), and of the time ÷ clone + drop of the same value timed alternately (linear: 1); last size ÷ clone + drop"
        );
        let values: Vec<Value> = sizes.iter().map(|n| make(*n)).collect();
        let floors: Vec<f64> = values
            .iter()
            .map(|v| time(5, 1, &mut || clone_and_drop(v)).as_secs_f64())
            .collect();
        let cells: Vec<String> = floors.iter().map(|t| format!("{:.2}", t * 1e3)).collect();
        println!("{:18} {}", "clone + drop", cells.join(" "));
        let worst_doubling = |xs: &[f64]| {
            xs.windows(2)
                .zip(sizes.windows(2))
                .map(|(t, n)| (t[1] / t[0]) / (n[1] as f64 / n[0] as f64) * 2.0)
                .fold(0.0, f64::max)
        };
        for &target in Target::ALL {
            let (mut times, mut ratios) = (Vec::new(), Vec::new());
            for v in &values {
                let timed = time_in_turns(
                    ROUNDS,
                    1,
                    &mut [&mut || clone_and_drop(v), &mut || {
                        drop(black_box(target.adapt(black_box(v))))
                    }],
                );
                let (floor, took) = (timed[0].as_secs_f64(), timed[1].as_secs_f64());
                times.push(took);
                ratios.push(took / floor);
            }
            let cells: Vec<String> = times.iter().map(|t| format!("{:.2}", t * 1e3)).collect();
            println!(
                "{:18} {}  worst ×{:.2}, ÷ floor ×{:.2}  last ÷ floor {:.1}×",
                target.as_str(),
                cells.join(" "),
                worst_doubling(&times),
                worst_doubling(&ratios),
                ratios.last().unwrap()
            );
        }
        // serde_json drops recursively: leak the deepest inputs rather than risk the stack.
        std::mem::forget(values);
    }
}

fn main() {
    // `-- encoding`: only encoding's figures.
    if std::env::args().any(|a| a == "encoding") {
        encoding_figures(&corpus());
        return;
    }
    let only_figures = std::env::args().any(|a| a == "figures");
    if !std::env::args().any(|a| a == "--list") {
        figures();
    }
    if only_figures {
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
