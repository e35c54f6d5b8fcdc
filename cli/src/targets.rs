//! `toolschema targets`: one row per target, generated from the providers list (each target's
//! documentation and settings), as the README's table (markdown) or, with `--json`, for tools.

use serde_json::{Value, json};
use toolschema::Target;

/// One target's row: name, where the schema and the strict flag go, its strict attempt and
/// budget, and what it does.
fn row(target: Target) -> Value {
    let settings = target.settings();
    let (schema_at, strict_at) = settings.wire.places();
    let budget = settings.budget.map(|b| {
        json!({"provider": b.provider, "strict_tools": b.tools, "optional": b.optional,
               "unions": b.unions, "relaxed": b.relaxed.as_str()})
    });
    json!({
        "target": target.as_str(),
        "schema_at": schema_at,
        "strict_at": strict_at,
        "strict": settings.attempts_strict(),
        "budget": budget,
        "encodes": settings.encodings(),
        "request_limits": target.request_limits(),
        "summary": target.summary(),
    })
}

/// The markdown table the README shows.
pub fn table() -> String {
    let mut out = String::from(
        "| target | schema at | strict | `--encode` | per request | what it does |\n|---|---|---|---|---|---|\n",
    );
    for &target in Target::ALL {
        let settings = target.settings();
        let strict = match (settings.attempts_strict(), settings.budget) {
            (false, _) => "no".to_owned(),
            (true, None) => "when representable".to_owned(),
            (true, Some(b)) => format!(
                "when representable, within {} strict tools, {} optional and {} union parameters per request",
                b.tools, b.optional, b.unions
            ),
        };
        let encodes = match settings.encodings() {
            e if e.is_empty() => "—".to_owned(),
            e => e.join(", "),
        };
        out.push_str(&format!(
            "| `{}` | `{}` | {strict} | {encodes} | {} | {} |\n",
            target.as_str(),
            settings.wire.places().0,
            per_request(target),
            target.summary()
        ));
    }
    out
}

/// The request limits in a few words: tools and description length, each marked `(reported)`
/// where only the errors users report give it, and the name rule.
fn per_request(target: Target) -> String {
    let limits = target.request_limits();
    let reported = |source: &str| {
        if source.starts_with("known only from reported errors") {
            " (reported)"
        } else {
            ""
        }
    };
    let mut parts = Vec::new();
    if let Some(l) = limits.tools {
        parts.push(format!("≤ {} tools{}", l.max, reported(l.source)));
    }
    if let Some(l) = limits.description {
        parts.push(format!(
            "descriptions ≤ {} characters{}",
            l.max,
            reported(l.source)
        ));
    }
    match target.settings().names {
        toolschema::adapt::NameRule::Any => {}
        toolschema::adapt::NameRule::Plain => parts.push("names `[a-zA-Z0-9_-]{1,64}`".into()),
        toolschema::adapt::NameRule::Google => {
            parts.push("names `[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}`".into())
        }
        _ => {}
    }
    if parts.is_empty() {
        "—".to_owned()
    } else {
        parts.join("; ")
    }
}

/// Prints the table, or the rows as JSON.
pub fn run(json: bool) -> u8 {
    if json {
        let rows: Vec<Value> = Target::ALL.iter().map(|&t| row(t)).collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&rows).unwrap_or_default()
        );
    } else {
        print!("{}", table());
    }
    0
}
