//! `toolschema adapt` (one schema) and `toolschema convert` (a catalog).

use serde::Serialize;
use toolschema::adapt::{self, Target};
use toolschema::catalog::{Catalog, Layout};

use crate::input::{self, InputError};
use crate::{AdaptArgs, ConvertArgs, SnapshotArgs};

/// Writes `value` as pretty JSON and a newline to standard output, through a buffer (no copy of
/// the document, no string of all of it).
fn print(value: &impl Serialize) {
    use std::io::Write as _;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    // A closed pipe (`| head`) is not an error of ours.
    let _ = serde_json::to_writer_pretty(&mut out, value)
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(out))
        .and_then(|()| out.flush());
}

fn fail(InputError(message): InputError) -> u8 {
    eprintln!("toolschema: {message}");
    2
}

pub fn run_adapt(args: &AdaptArgs) -> u8 {
    let source = args.input.as_deref();
    let catalog = match args.live.catalog(source) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let name = match args.live.server() {
        Some(server) => server.name(),
        None => input::name(source),
    };
    let schema = match pick(catalog, args.tool.as_deref()) {
        Ok(schema) => schema,
        Err(why) => return fail(InputError(format!("{name}: {why}"))),
    };
    let options = adapt::AdaptOptions::default().openai_conservative(args.openai_conservative);
    let settings = args.to.settings().with_options(options);
    let adapted = settings.with_encoding(args.encode).adapt_owned(schema);
    if args.report {
        // `{"target", "schema", "strict", "fallback", "losses", "changes"}`: the adaptation
        // as it serializes (its input is not part of it).
        print(&adapted);
    } else {
        print(&adapted.schema);
    }
    0
}

/// The one schema `adapt` works on: a bare schema, or the tool named `tool` of a catalog.
fn pick(catalog: Catalog, tool: Option<&str>) -> Result<serde_json::Value, String> {
    // The first ten names (a catalog may hold thousands).
    let names = |c: &Catalog| {
        let mut names: Vec<String> = (c.tools.iter())
            .filter_map(|t| t.name.clone())
            .take(10)
            .collect();
        if c.tools.len() > names.len() {
            names.push(format!("… {} more", c.tools.len() - names.len()));
        }
        names.join(", ")
    };
    match (catalog.layout, tool) {
        (Layout::Schema, None) => Ok(catalog.tools.into_iter().next().expect("one schema").schema),
        (Layout::Schema, Some(tool)) => Err(format!(
            "`--tool {tool}` picks a tool of a catalog, and this is one JSON Schema: leave `--tool` out"
        )),
        (_, None) => Err(format!(
            "`adapt` takes one JSON Schema, this is a catalog of {} tools ({}): pick one with `--tool NAME`, or convert them all with `toolschema convert`",
            catalog.tools.len(),
            names(&catalog)
        )),
        (_, Some(tool)) => {
            let all = names(&catalog);
            (catalog.tools.into_iter())
                .find(|t| t.name.as_deref() == Some(tool))
                .map(|t| t.schema)
                .ok_or_else(|| format!("no tool is named `{tool}`; the tools are: {all}"))
        }
    }
}

pub fn run_convert(args: &ConvertArgs) -> u8 {
    let options = adapt::AdaptOptions::default().openai_conservative(args.openai_conservative);
    // Each tool is parsed, adapted and kept as compact text before the next is read; the
    // declarations are printed one at a time.
    let converted = match args.live.convert(
        args.input.as_deref(),
        &args.choose,
        &(args.to.settings().with_options(options)).with_encoding(args.encode),
    ) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    if args.report {
        #[derive(Serialize)]
        struct WithReport<'a> {
            declarations: &'a adapt::CompactConverted,
            report: &'a adapt::ConvertReport,
        }
        print(&WithReport {
            declarations: &converted,
            report: &converted.report,
        });
    } else {
        print(&converted);
    }
    // The process ends here: freeing a large catalog's report entry by entry would only cost time.
    std::mem::forget(converted);
    0
}

pub fn run_snapshot(args: &SnapshotArgs) -> u8 {
    let catalog =
        match (args.live.catalog(args.input.as_deref())).and_then(|c| args.choose.apply(c)) {
            Ok(c) => c,
            Err(e) => return fail(e),
        };
    // Every target's request is checked before anything is written: a catalog over one
    // provider's tool limit is an error naming each such target, never a snapshot of a request
    // the provider refuses.
    let over: Vec<String> = (toolschema::Target::ALL.iter())
        .filter_map(|&t| crate::choose::within_limit(catalog.tools.len(), t).err())
        .map(|e| e.0)
        .collect();
    if !over.is_empty() {
        return fail(InputError(over.join("\n")));
    }
    let files = toolschema::snapshot::catalog_encoded(&catalog, args.encode);
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
        let mut budget = DIFF_LINES;
        for p in &cmp.changed {
            let old = std::fs::read_to_string(dir.join(p)).unwrap_or_default();
            let new = files.get(p).map_or("", String::as_str);
            crate::say!("{}", diff(p, &old, new, &mut budget));
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

/// How many lines of diff `snapshot --check` prints in all; each file gets at most
/// [`FILE_DIFF_LINES`] of them (the rest is counted, not printed).
const DIFF_LINES: usize = 200;
const FILE_DIFF_LINES: usize = 60;

/// The unified diff of a changed snapshot file (`a/` the file on disk, `b/` the new one), cut to
/// what is left of `budget`.
fn diff(path: &str, old: &str, new: &str, budget: &mut usize) -> String {
    let text = similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string();
    let lines: Vec<&str> = text.lines().collect();
    let shown = lines.len().min(FILE_DIFF_LINES).min(*budget);
    *budget -= shown;
    let mut out = lines[..shown].join("\n");
    if shown < lines.len() {
        out.push_str(&format!(
            "\n... {} more diff lines of {path} not shown",
            lines.len() - shown
        ));
    }
    out
}

/// `--to` values.
pub fn parse_target(s: &str) -> Result<Target, String> {
    s.parse()
        .map_err(|e: toolschema::adapt::UnknownTarget| e.to_string())
}
