//! A `pattern` the provider cannot compile is not sent: strict grammars compile every pattern,
//! and one that does not compile makes the provider refuse the whole request. The dialect is
//! ECMA-262 (JSON Schema 2020-12 Validation, 6.3.3), checked by
//! [`crate::adapt::rules::pattern_refusal`].

use serde_json::Value;

use super::json_text;
use crate::adapt::report::LossKind;
use crate::adapt::tree::{Keyword, Report, Rule, Slot, Tree};

/// Removes, with a `dropped` loss, every `pattern` that does not compile as ECMA-262.
#[derive(Clone, Copy, Debug, Default)]
pub struct PatternsCompile;

impl Rule for PatternsCompile {
    fn name(&self) -> &'static str {
        "patterns-compile"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds(Keyword::Pattern) {
            return;
        }
        tree.walk(|tree, id| {
            let Some(why) = tree.value(id, Keyword::Pattern).and_then(pattern_refusal) else {
                return;
            };
            let entry = tree.take(id, Keyword::Pattern).expect("present");
            let Slot::Value(value) = &entry.value else {
                return;
            };
            let detail = format!("`pattern: {}` {why}", json_text(value));
            report.loss(entry.origin, Some(id), "pattern", LossKind::Dropped, detail);
        });
    }
}

/// Why `pattern` cannot be sent, or `None` when it compiles as ECMA-262.
pub fn pattern_refusal(pattern: &Value) -> Option<String> {
    match pattern {
        Value::String(p) => regress::Regex::new(p).err().map(|e| {
            format!("does not compile as an ECMA-262 regular expression ({e}); providers that compile patterns refuse the whole request")
        }),
        other => Some(format!(
            "is {}, not a regular expression string",
            json_text(other)
        )),
    }
}
