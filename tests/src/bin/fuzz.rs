//! The long fuzz run: `cargo run --release -p toolschema-tests --bin fuzz -- [--cases N]
//! [--seed S] [--target T]... [--encode]` (`--encode`: with encoding on, the targets that
//! encode). Every target (or the ones named), N generated schemas each
//! (default 1,000,000), every invariant of `toolschema_tests::fuzz::check`. Prints a progress
//! line, then per target the cases and time; exits 1 on the first finding with its minimized case.

use std::time::Instant;

use toolschema::Target;
use toolschema_tests::fuzz::{ENCODING_TARGETS, run_with};

fn main() {
    let mut cases: u32 = 1_000_000;
    let mut seed: u64 = 0x7001_5c4e;
    let mut targets: Vec<Target> = Vec::new();
    let mut encode = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next().unwrap_or_else(|| {
                eprintln!("fuzz: {arg} needs a value");
                std::process::exit(2)
            })
        };
        match arg.as_str() {
            "--cases" => cases = value().parse().expect("--cases takes a number"),
            "--seed" => {
                let v = value();
                seed = match v.strip_prefix("0x") {
                    Some(hex) => u64::from_str_radix(hex, 16),
                    None => v.parse(),
                }
                .expect("--seed takes a number")
            }
            "--encode" => encode = true,
            // One schema from a file through every invariant (a finding replayed).
            "--schema" => {
                let path = value();
                let text = std::fs::read_to_string(&path).expect("--schema takes a file");
                let doc: serde_json::Value = serde_json::from_str(&text).expect("JSON");
                let doc = doc.get("schema").cloned().unwrap_or(doc);
                let targets = if targets.is_empty() {
                    Target::ALL.to_vec()
                } else {
                    targets.clone()
                };
                for target in targets {
                    match toolschema_tests::fuzz::check_with(&doc, target, encode) {
                        Ok(()) => println!("{target}: every invariant held"),
                        Err(e) => println!("{target}: {e}"),
                    }
                }
                return;
            }
            "--target" => targets.push(value().parse().unwrap_or_else(|e| {
                eprintln!("fuzz: {e}");
                std::process::exit(2)
            })),
            other => {
                eprintln!(
                    "fuzz: unknown argument `{other}` (--cases N, --seed S, --target T, --encode)"
                );
                std::process::exit(2);
            }
        }
    }
    if targets.is_empty() {
        targets = if encode {
            ENCODING_TARGETS.to_vec()
        } else {
            Target::ALL.to_vec()
        };
    }
    let total = Instant::now();
    for target in targets {
        let start = Instant::now();
        let mut last = Instant::now();
        let outcome = run_with(target, encode, cases, seed, &mut |n| {
            if last.elapsed().as_secs() >= 10 {
                last = Instant::now();
                eprintln!(
                    "{target}: {n}/{cases} cases, {:.0}/s",
                    f64::from(n) / start.elapsed().as_secs_f64()
                );
            }
        });
        match outcome {
            Ok(()) => println!(
                "{target}{}: {cases} cases, every invariant held, {:.1} s",
                if encode { " (encoded)" } else { "" },
                start.elapsed().as_secs_f64()
            ),
            Err(finding) => {
                println!(
                    "{target}: FINDING (seed {:#x}): {}\n{}",
                    finding.seed,
                    finding.message,
                    serde_json::to_string_pretty(&finding.schema).unwrap()
                );
                std::process::exit(1);
            }
        }
    }
    println!("all targets: {:.1} s", total.elapsed().as_secs_f64());
}
