//! `toolschema adapt` (one schema) and `toolschema convert` (a catalog).

use serde_json::{Value, json};
use toolschema::adapt::{self, Target};
use toolschema::catalog::{Catalog, Layout};

use crate::input::{self, InputError};
use crate::{AdaptArgs, ConvertArgs, SnapshotArgs};

fn print(value: &Value) {
    crate::say!(
        "{}",
        serde_json::to_string_pretty(value).expect("a Value serializes")
    );
}

fn fail(InputError(message): InputError) -> u8 {
    eprintln!("toolschema: {message}");
    2
}

pub fn run_adapt(args: &AdaptArgs) -> u8 {
    let source = args.input.as_deref();
    let value = match input::read_json(source) {
        Ok(v) => v,
        Err(e) => return fail(e),
    };
    let schema = match Catalog::from_value(value) {
        Ok(c) if c.layout == Layout::Schema => {
            c.tools.into_iter().next().expect("one schema").schema
        }
        Ok(c) => {
            return fail(InputError(format!(
                "{}: `adapt` takes one JSON Schema, this is a catalog of {} tools: use `toolschema convert`",
                input::name(source),
                c.tools.len()
            )));
        }
        Err(e) => return fail(InputError(format!("{}: {e}", input::name(source)))),
    };
    let options = adapt::AdaptOptions::default().openai_conservative(args.openai_conservative);
    let adapted = args.to.settings().with_options(options).adapt_owned(schema);
    if args.report {
        print(&json!({
            "target": adapted.target,
            "schema": adapted.schema,
            "strict": adapted.strict,
            "fallback": adapted.fallback,
            "losses": adapted.losses,
            "changes": adapted.changes,
        }));
    } else {
        print(&adapted.schema);
    }
    0
}

pub fn run_convert(args: &ConvertArgs) -> u8 {
    let catalog = match args.live.catalog(args.input.as_deref()) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let options = adapt::AdaptOptions::default().openai_conservative(args.openai_conservative);
    let converted = adapt::convert_with(&catalog, args.to, options);
    if args.report {
        print(&json!({"declarations": converted.declarations, "report": converted.report}));
    } else {
        print(&converted.declarations);
    }
    0
}

pub fn run_snapshot(args: &SnapshotArgs) -> u8 {
    let catalog = match args.live.catalog(args.input.as_deref()) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let files = toolschema::snapshot::catalog(&catalog);
    let dir = args.out.as_path();
    if args.check {
        let cmp = match toolschema::snapshot::compare(&files, dir) {
            Ok(c) => c,
            Err(e) => return fail(InputError(format!("cannot read {}: {e}", dir.display()))),
        };
        if cmp.is_clean() {
            crate::say!(
                "snapshots up to date: {} files in {}",
                files.len(),
                dir.display()
            );
            return 0;
        }
        for (what, paths) in [
            ("changed", &cmp.changed),
            ("missing", &cmp.missing),
            ("extra", &cmp.extra),
        ] {
            for p in paths {
                crate::say!("{what}: {}", dir.join(p).display());
            }
        }
        crate::say!(
            "snapshots differ: {} changed, {} missing, {} extra; run `toolschema snapshot --out {}` and review the diff",
            cmp.changed.len(),
            cmp.missing.len(),
            cmp.extra.len(),
            dir.display()
        );
        return 1;
    }
    match toolschema::snapshot::write(&files, dir) {
        Ok(()) => {
            crate::say!(
                "wrote {} files for {} tools in {}",
                files.len(),
                catalog.tools.len(),
                dir.display()
            );
            0
        }
        Err(e) => fail(InputError(format!("cannot write {}: {e}", dir.display()))),
    }
}

/// `--to` values.
pub fn parse_target(s: &str) -> Result<Target, String> {
    s.parse()
        .map_err(|e: toolschema::adapt::UnknownTarget| e.to_string())
}
