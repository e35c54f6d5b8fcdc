//! Keywords a provider does not accept: removed, and spilled into the description where a person
//! would want them. Every removal is in the report.

use std::borrow::Cow;

use serde_json::Value;

use super::{
    Held, NodeRule, Rule, RuleReport, append_description, json_text, spill, write_json_text,
};
use crate::adapt::report::LossKind;
use crate::adapt::visit::{Order, Path, visit};
use crate::keys::Keys;
use crate::keys::KeywordSet;

/// Removes `keywords` from every schema node; those also in `spill` are written into the node's
/// description in the reference implementation's format (`{pattern: "^a", minLength: 1}`) and reported as spilled,
/// the others reported as dropped. `keep` may exempt a keyword on a node (for example a
/// `format` the provider supports).
#[derive(Clone, Debug)]
pub struct StripKeywords {
    /// A short name for the report.
    pub name: &'static str,
    /// Removed everywhere.
    pub keywords: &'static [&'static str],
    /// Written into the description when removed.
    pub spill: &'static [&'static str],
    /// Why the provider needs it, for the report.
    pub why: &'static str,
    /// Exempts `(keyword, value)` pairs the provider does support.
    pub keep: fn(&str, &Value) -> bool,
    /// Keywords the caller keeps although the table lists them
    /// ([`crate::adapt::AdaptSettings::keep_keyword`]).
    pub also_keep: Vec<String>,
}

/// Keeps nothing: every listed keyword goes.
pub fn keep_none(_: &str, _: &Value) -> bool {
    false
}

/// The keywords a person reading a description wants to know: constraints and formats.
pub const HUMAN_READABLE: &[&str] = &[
    "pattern",
    "format",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "examples",
    "contentEncoding",
    "contentMediaType",
    "minContains",
    "maxContains",
];

impl Rule for StripKeywords {
    fn name(&self) -> &'static str {
        self.name
    }

    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold_any(self.keywords)
    }

    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(&["description"], add)
    }

    /// It takes keys away and spills them into the description of their own node.
    fn keeps_root_and_below(&self, _: &Held<'_>) -> bool {
        true
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        self.clone().node_rule().apply(schema, report);
    }
}

impl StripKeywords {
    /// The rule as a [`NodeRule`] (it reads and changes only its node's keywords; the ones it
    /// removes may be schemas, so in a fused walk it comes first).
    pub(crate) fn node_rule(self) -> StripNode {
        StripNode {
            table: KeywordSet::new(self.keywords),
            rule: self,
            first_removed_unless_under: None,
            spilled: Vec::new(),
        }
    }
}

/// [`StripKeywords`] with its keyword table made once for a walk.
pub(crate) struct StripNode {
    rule: StripKeywords,
    table: KeywordSet,
    /// See [`StripNode::first_removed_unless_under`].
    first_removed_unless_under: Option<&'static [&'static str]>,
    /// What one node spills, kept between nodes so that a walk allocates it once.
    spilled: Vec<(Cow<'static, str>, Value)>,
}

impl StripNode {
    /// Says that the first keyword of the list is one an earlier rule of every list this strip
    /// is in has removed from every node its walk reached, and that no rule between writes it:
    /// the strip is then wanted for that keyword only where a node that walk did not reach may
    /// hold it, one below a key of `hidden` (a spelling a later rule renames into a keyword
    /// that holds schemas). A document whose only listed keyword was that one is not walked
    /// again to find nothing.
    pub(crate) fn first_removed_unless_under(mut self, hidden: &'static [&'static str]) -> Self {
        self.first_removed_unless_under = Some(hidden);
        self
    }
}

impl Rule for StripNode {
    fn name(&self) -> &'static str {
        self.rule.name
    }

    fn wanted(&self, held: &Held<'_>) -> bool {
        match (
            self.first_removed_unless_under,
            self.rule.keywords.split_first(),
        ) {
            (Some(hidden), Some((first, rest))) => {
                held.may_hold_any(rest) || held.may_hold(first) && held.may_hold_any(hidden)
            }
            _ => held.may_hold_any(self.rule.keywords),
        }
    }

    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(&["description"], add)
    }

    /// It takes keys away and spills them into the description of their own node.
    fn keeps_root_and_below(&self, _: &Held<'_>) -> bool {
        true
    }

    // At the root alone where no node below it holds a keyword it wants (most published tools
    // hold Google's `additionalProperties: false` at the root and nowhere else).
    super::fused::node_rule_walks!();
}

/// Takes its node's keywords away (a removed keyword may be a schema, which is then not
/// visited); what it spills goes into the node's own description. Nothing is put below.
impl NodeRule for StripNode {
    fn grows_below(&self, _: &Held<'_>) -> bool {
        false
    }

    fn node(&mut self, node: &mut Value, path: &Path<'_>, report: &mut RuleReport) {
        let Value::Object(map) = node else { return };
        let (rule, table) = (&self.rule, &self.table);
        // Most nodes hold none of the keywords: answered from their keys alone.
        if !map.keys().any(|k| table.contains(k)) {
            return;
        }
        let spilled = &mut self.spilled;
        // One pass over the entries, in their order: each keyword removed is reported as it
        // is taken out (no key copied or hashed to find it again).
        map.retain(|key, value| {
            if !table.contains(key) || rule.also_keep.contains(key) || (rule.keep)(key, value) {
                return true;
            }
            let value = std::mem::take(value);
            let at = path.child(key);
            if rule.spill.contains(&key.as_str()) {
                // "`key: value` is not enforced by the provider (why); it is in the
                // description", written without the formatter.
                let mut detail = String::with_capacity(key.len() + rule.why.len() + 80);
                detail.push('`');
                detail.push_str(key);
                detail.push_str(": ");
                write_json_text(&mut detail, &value);
                detail.push_str("` is not enforced by the provider (");
                detail.push_str(rule.why);
                detail.push_str("); it is in the description");
                report.loss(&at, key, LossKind::Spilled, detail);
                // A keyword of the vocabulary is referred to, not copied.
                spilled.push((super::super::holds::keyword_name(key), value));
            } else {
                // A boolean (`additionalProperties: false`, `uniqueItems: true`) without a copy.
                let shown: std::borrow::Cow<'_, str> = match &value {
                    Value::Bool(true) => "true".into(),
                    Value::Bool(false) => "false".into(),
                    other => {
                        let shown = json_text(other);
                        if shown.len() > 80 {
                            let end = shown.char_indices().nth(80).map_or(shown.len(), |(i, _)| i);
                            format!("{}…", &shown[..end]).into()
                        } else {
                            shown.into()
                        }
                    }
                };
                // "`key: shown` removed (why)", written without the formatter.
                let why = rule.why;
                let mut detail = String::with_capacity(key.len() + shown.len() + why.len() + 14);
                for part in ["`", key, ": ", &shown, "` removed (", why, ")"] {
                    detail.push_str(part);
                }
                report.loss(&at, key, LossKind::Dropped, detail);
            }
            false
        });
        if !spilled.is_empty() {
            spill(map, spilled);
            spilled.clear();
        }
    }
}

/// OpenAI strict rejects `default`: it is written into the description as `(default: X)` (a
/// description is created when there is none, so the default is never lost silently).
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultToDescription;

impl Rule for DefaultToDescription {
    fn name(&self) -> &'static str {
        "default-to-description"
    }

    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold("default")
    }

    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(&["description"], add)
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        visit(schema, Order::Pre, &mut |node, path| {
            let Value::Object(map) = node else { return };
            let Some(default) = map.take_key("default") else {
                return;
            };
            let text = match &default {
                Value::String(s) => s.clone(),
                other => json_text(other),
            };
            let already = map
                .key("description")
                .and_then(Value::as_str)
                .is_some_and(|d| d.contains("(default:"));
            if !already {
                append_description(map, &format!("(default: {text})"), " ");
            }
            report.loss(
                path.child("default"),
                "default",
                LossKind::Spilled,
                format!(
                    "`default: {}` is not accepted in strict mode; it is in the description",
                    json_text(&default)
                ),
            );
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn spills_readable_keywords_and_drops_the_rest() {
        let mut rule = StripKeywords {
            name: "t",
            keywords: &["pattern", "minLength", "title", "$comment"],
            spill: HUMAN_READABLE,
            why: "test",
            keep: keep_none,
            also_keep: Vec::new(),
        };
        let mut v = json!({"type": "object", "properties": {
            "id": {"type": "string", "description": "ID", "pattern": "^\\d+$", "minLength": 1.0, "title": "Id"},
            "pattern": {"type": "string"}
        }});
        let mut r = RuleReport::default();
        rule.apply(&mut v, &mut r);
        assert_eq!(
            v["properties"]["id"],
            json!({"type": "string", "description": "ID\n\n{pattern: \"^\\\\d+$\", minLength: 1}"})
        );
        assert_eq!(
            v["properties"]["pattern"],
            json!({"type": "string"}),
            "a property named `pattern` stays"
        );
        let kinds: Vec<_> = r
            .losses
            .iter()
            .map(|l| (l.pointer.as_str(), l.kind))
            .collect();
        assert_eq!(
            kinds,
            vec![
                ("/properties/id/pattern", LossKind::Spilled),
                ("/properties/id/minLength", LossKind::Spilled),
                ("/properties/id/title", LossKind::Dropped),
            ]
        );
    }

    #[test]
    fn defaults_go_into_the_description() {
        let mut v = json!({"type": "object", "properties": {
            "a": {"type": "integer", "description": "Limit", "default": 10},
            "b": {"type": "string", "default": "x"},
            "c": {"type": "string", "description": "C (default: y)", "default": "y"}
        }});
        let mut r = RuleReport::default();
        DefaultToDescription.apply(&mut v, &mut r);
        assert_eq!(v["properties"]["a"]["description"], "Limit (default: 10)");
        assert_eq!(v["properties"]["b"]["description"], "(default: x)");
        assert_eq!(v["properties"]["c"]["description"], "C (default: y)");
        assert_eq!(r.losses.len(), 3);
    }
}
