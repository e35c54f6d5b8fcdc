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
        "summary": target.summary(),
    })
}

/// The markdown table the README shows.
pub fn table() -> String {
    let mut out = String::from(
        "| target | schema at | strict | `--encode` | what it does |\n|---|---|---|---|---|\n",
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
            "| `{}` | `{}` | {strict} | {encodes} | {} |\n",
            target.as_str(),
            settings.wire.places().0,
            target.summary()
        ));
    }
    out
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
