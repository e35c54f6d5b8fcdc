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
            if !pp.keys().any(|k| has_lookaround(k)) {
                return;
            }
            // The patterns with a lookaround taken out in one pass, in order, and the existing
            // `.*` after them; each then joins `.*` in turn, which goes last (entries taken out
            // one at a time would shift every later entry each time: quadratic).
            let mut bad: Vec<(String, Value)> = Vec::new();
            let mut kept = Map::new();
            for (key, schema) in std::mem::take(pp) {
                if has_lookaround(&key) {
                    bad.push((key, schema));
                } else {
                    kept.insert(key, schema);
                }
            }
            let mut star = kept.shift_remove(".*");
            for (key, moved) in bad {
                let merged = match star.take() {
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
                star = Some(merged);
                report.loss(at().child("patternProperties"), "patternProperties", LossKind::Widened, format!("the key pattern {key:?} uses a lookaround; its schema now applies to every name (`.*`)"));
            }
            if let Some(star) = star {
                kept.insert(".*".into(), star);
            }
            *pp = kept;
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

    /// Several patterns with a lookaround join `.*` in their order, `.*` goes last, the other
    /// patterns keep theirs; one loss each, in order.
    #[test]
    fn lookaround_patterns_join_every_name_in_order() {
        let t = |ty: &str| json!({"type": ty});
        let mut v = json!({"type": "object", "properties": {}, "patternProperties": {
            "^a": t("string"), "(?=b)": t("integer"), ".*": {"anyOf": [t("null")]},
            "^c": t("number"), "(?<!d)": t("boolean")
        }});
        let mut r = RuleReport::default();
        ResponsesPrepass.apply(&mut v, &mut r);
        let pp = v["patternProperties"].as_object().unwrap();
        assert_eq!(pp.keys().collect::<Vec<_>>(), ["^a", "^c", ".*"]);
        assert_eq!(
            pp[".*"],
            json!({"anyOf": [t("null"), t("integer"), t("boolean")]})
        );
        let said: Vec<&str> = r.losses.iter().map(|l| l.detail.as_str()).collect();
        assert!(
            said[0].contains("\"(?=b)\"") && said[1].contains("\"(?<!d)\""),
            "{said:?}"
        );
        // Without a `.*`: the first becomes it, the second makes it a union.
        let mut v = json!({"type": "object", "properties": {}, "patternProperties": {
            "(?=b)": t("integer"), "^a": t("string"), "(?<!d)": t("boolean")
        }});
        ResponsesPrepass.apply(&mut v, &mut RuleReport::default());
        let pp = v["patternProperties"].as_object().unwrap();
        assert_eq!(pp.keys().collect::<Vec<_>>(), ["^a", ".*"]);
        assert_eq!(pp[".*"], json!({"anyOf": [t("integer"), t("boolean")]}));
    }
}
