//! The OpenAI Responses pre-pass (omp-rules section 6), before strict enforcement.

use serde_json::{Map, Value, json};

use super::{Held, NodeRule, Rule, RuleReport, has_type};
use crate::adapt::holds::{TYPE_LIST, TYPE_OBJECT};
use crate::adapt::report::LossKind;
use crate::adapt::visit::Path;
use crate::keys::Keys;

/// Objects get a `properties` map; a `pattern` with a lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`)
/// is removed (the Responses API rejects it), and `patternProperties` keys with one are folded
/// into `".*"`. Each removal is reported.
#[derive(Clone, Copy, Debug, Default)]
pub struct ResponsesPrepass;

/// A lookaround group not preceded by an odd number of backslashes.
pub(crate) fn has_lookaround(pattern: &str) -> bool {
    let bytes = pattern.as_bytes();
    for (i, window) in bytes.windows(3).enumerate() {
        if window[0] != b'(' || window[1] != b'?' {
            continue;
        }
        let rest = &pattern[i + 2..];
        if !(rest.starts_with('=')
            || rest.starts_with('!')
            || rest.starts_with("<=")
            || rest.starts_with("<!"))
        {
            continue;
        }
        let backslashes = bytes[..i].iter().rev().take_while(|b| **b == b'\\').count();
        if backslashes % 2 == 0 {
            return true;
        }
    }
    false
}

impl Rule for ResponsesPrepass {
    fn name(&self) -> &'static str {
        "responses-prepass"
    }

    fn adds(&self, held: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        // `properties: {}` on an object without them; a key pattern with a lookaround joins
        // `.*` in a union.
        if held.may_hold("patternProperties") {
            add("anyOf");
        }
        super::adds_these(&["properties"], add)
    }

    /// Only where an object type (a string, or in a list), a `pattern` or `patternProperties`
    /// may be.
    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold_any(&[TYPE_OBJECT, TYPE_LIST, "pattern", "patternProperties"])
    }

    /// It writes its own node's `properties` and `pattern`; a key pattern folded into `.*`
    /// stays below its node.
    fn keeps_root_and_below(&self, _: &Held<'_>) -> bool {
        true
    }

    // Most tools: the root's `type: "object"` alone.
    super::fused::node_rule_walks!();
}

/// Reads and changes its node's own `type`, `properties`, `pattern` and `patternProperties`.
impl NodeRule for ResponsesPrepass {
    /// A key pattern folded into `.*` may make a union of schemas there.
    fn grows_below(&self, held: &Held<'_>) -> bool {
        held.may_hold("patternProperties")
    }

    fn node(&mut self, node: &mut Value, path: &Path<'_>, report: &mut RuleReport) {
        let Value::Object(map) = node else { return };
        let at = || path.pointer();
        if has_type(map, "object") && !map.has("properties") {
            map.insert("properties".into(), json!({}));
            report.change(at(), "`properties: {}` added to an object");
        }
        if let Some(Value::String(p)) = map.key("pattern") {
            if has_lookaround(p) {
                let p = p.clone();
                map.take_key("pattern");
                report.loss(
                    path.child("pattern"),
                    "pattern",
                    LossKind::Dropped,
                    format!("`pattern: {p:?}` uses a lookaround, which the Responses API rejects"),
                );
            }
        }
        if let Some(Value::Object(pp)) = map.key_mut("patternProperties") {
            let bad: Vec<String> = pp.keys().filter(|k| has_lookaround(k)).cloned().collect();
            for key in bad {
                let moved = pp.shift_remove(&key).expect("listed");
                let merged = match pp.take_key(".*") {
                    None => moved,
                    Some(Value::Object(mut existing))
                        if existing.len() == 1 && existing.has("anyOf") =>
                    {
                        if let Some(Value::Array(bs)) = existing.key_mut("anyOf") {
                            bs.push(moved);
                        }
                        Value::Object(existing)
                    }
                    Some(existing) => {
                        let mut m = Map::new();
                        m.insert("anyOf".into(), Value::Array(vec![existing, moved]));
                        Value::Object(m)
                    }
                };
                pp.insert(".*".into(), merged);
                report.loss(at().child("patternProperties"), "patternProperties", LossKind::Widened, format!("the key pattern {key:?} uses a lookaround; its schema now applies to every name (`.*`)"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookarounds() {
        assert!(has_lookaround("^(?!bad$)"));
        assert!(has_lookaround("a(?<=b)"));
        assert!(!has_lookaround("\\(?!literal"));
        assert!(has_lookaround("\\\\(?!x)"));
        assert!(!has_lookaround("(?:group)"));
    }

    #[test]
    fn prepass() {
        let mut v = json!({"type": "object", "properties": {
            "a": {"type": "string", "pattern": "^(?!x)"},
            "o": {"type": "object"},
            "m": {"type": "object", "patternProperties": {"^(?!_)": {"type": "string"}, ".*": {"type": "integer"}}}
        }});
        let mut r = RuleReport::default();
        ResponsesPrepass.apply(&mut v, &mut r);
        assert!(v["properties"]["a"].key("pattern").is_none());
        assert_eq!(v["properties"]["o"]["properties"], json!({}));
        assert_eq!(
            v["properties"]["m"]["patternProperties"],
            json!({".*": {"anyOf": [{"type": "integer"}, {"type": "string"}]}})
        );
        assert_eq!(r.losses.len(), 2);
    }
}
