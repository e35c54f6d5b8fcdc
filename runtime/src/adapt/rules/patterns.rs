//! A `pattern` the provider cannot compile is not sent: strict grammars compile every pattern,
//! and one that does not compile makes the provider refuse the whole request. JSON Schema's
//! `pattern` is an ECMA-262 regular expression (JSON Schema 2020-12 Validation, 6.3.3), the
//! dialect checked here (with the `regress` engine, in its non-Unicode mode, the one JSON Schema
//! validators and JavaScript's `new RegExp(p)` use).

use serde_json::Value;

use super::{Held, NodeRule, Rule, RuleReport, json_text};
use crate::adapt::report::LossKind;
use crate::adapt::visit::Path;
use crate::keys::Keys;

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

/// Removes, with a `dropped` loss, every `pattern` that does not compile as ECMA-262.
#[derive(Clone, Copy, Debug, Default)]
pub struct PatternsCompile;

impl Rule for PatternsCompile {
    fn name(&self) -> &'static str {
        "patterns-compile"
    }

    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold("pattern")
    }

    /// It writes nothing.
    fn adds(&self, _: &Held<'_>, _: &mut dyn FnMut(&str)) -> bool {
        true
    }

    /// It removes its own node's `pattern`.
    fn keeps_root_and_below(&self, _: &Held<'_>) -> bool {
        true
    }

    super::fused::node_rule_walks!();
}

/// It writes no schema.
impl NodeRule for PatternsCompile {
    fn grows_below(&self, _: &Held<'_>) -> bool {
        false
    }

    fn node(&mut self, node: &mut Value, path: &Path<'_>, report: &mut RuleReport) {
        let Value::Object(map) = node else { return };
        let Some(why) = map.key("pattern").and_then(pattern_refusal) else {
            return;
        };
        let value = map.take_key("pattern").expect("present");
        report.loss(
            path.child("pattern"),
            "pattern",
            LossKind::Dropped,
            format!("`pattern: {}` {why}", json_text(&value)),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::*;
    use serde_json::json;

    #[test]
    fn patterns_that_compile_are_kept_and_the_others_dropped_with_why() {
        for ok in [
            "^[a-z]*$",
            "^\\d{1,3}$",
            "^(?!x).*$",
            "(?<=a)b",
            "^(a)\\1$",
            "\\bword\\b",
            "[\\w\\-\\.]+@example\\.com",
            "^#[0-9a-fA-F]{6}$",
        ] {
            let input =
                json!({"type": "object", "properties": {"p": {"type": "string", "pattern": ok}}});
            let (out, report) = run(&mut PatternsCompile, input.clone());
            assert_eq!(out, input, "{ok}");
            assert!(report.losses.is_empty(), "{ok}");
        }
        for bad in ["[", "(unclosed", "a)", "*a", "a{2,1}"] {
            let (out, report) = run(
                &mut PatternsCompile,
                json!({"type": "object", "properties": {"p": {"type": "string", "pattern": bad}}}),
            );
            assert_eq!(
                out,
                json!({"type": "object", "properties": {"p": {"type": "string"}}}),
                "{bad}"
            );
            assert_eq!(report.losses.len(), 1, "{bad}");
            let loss = &report.losses[0];
            assert_eq!(loss.kind, LossKind::Dropped);
            assert_eq!(loss.pointer.to_string(), "/properties/p/pattern");
            assert!(
                loss.detail.contains("does not compile as an ECMA-262"),
                "{}",
                loss.detail
            );
        }
        let (out, report) = run(
            &mut PatternsCompile,
            json!({"type": "string", "pattern": 3}),
        );
        assert_eq!(out, json!({"type": "string"}));
        assert!(
            report.losses[0]
                .detail
                .contains("not a regular expression string")
        );
    }
}
