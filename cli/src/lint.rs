//! `toolschema lint`: the published-schema contract, on any tool catalog.

use serde_json::json;
use toolschema::contract::{AllowList, ContractReport, Severity};

use crate::input::{self, InputError};
use crate::{Format, LintArgs};

pub fn run(args: &LintArgs) -> u8 {
    match lint(args) {
        Ok((report, tools)) => {
            print(args.format, &report, tools);
            let warnings_fail = args.deny_warnings && report.warnings().next().is_some();
            if report.is_ok() && !warnings_fail {
                0
            } else {
                1
            }
        }
        Err(InputError(message)) => {
            eprintln!("toolschema: {message}");
            2
        }
    }
}

fn lint(args: &LintArgs) -> Result<(ContractReport, usize), InputError> {
    let allow = match &args.allow {
        None => AllowList::new(),
        Some(path) => {
            let value = input::read_json(Some(path))?;
            AllowList::from_json(value)
                .map_err(|e| InputError(format!("bad allow-list {}: {e}", path.display())))?
        }
    };
    let catalog = args
        .choose
        .apply(args.live.catalog(args.input.as_deref())?)?;
    Ok((catalog.check(&allow), catalog.tools.len()))
}

fn print(format: Format, report: &ContractReport, tools: usize) {
    match format {
        Format::Json => {
            let out = json!({
                "violations": report.violations,
                "stale_allows": report.stale_allows,
            });
            crate::say!(
                "{}",
                serde_json::to_string_pretty(&out).expect("a Value serializes")
            );
        }
        Format::Human => {
            for v in &report.violations {
                let tool = v.tool.as_deref().unwrap_or("(schema)");
                let path = if v.path.is_empty() { "(root)" } else { &v.path };
                let level = match v.severity {
                    Severity::Error => "",
                    Severity::Warning => "warning: ",
                    _ => "note: ",
                };
                crate::say!("{tool}: {path}: {level}{} [{}]", v.message, v.kind);
            }
            for s in &report.stale_allows {
                crate::say!("{s}");
            }
            let errors = report.errors().count();
            let warnings = report.warnings().count();
            let stale = report.stale_allows.len();
            let verdict = if report.is_ok() { "ok" } else { "FAILED" };
            crate::say!(
                "{verdict}: {errors} error(s), {warnings} warning(s), {stale} stale allow-list entr{} in {tools} tool(s)",
                if stale == 1 { "y" } else { "ies" }
            );
        }
    }
}
