//! Draft-07 (and OpenAPI `nullable`) to JSON Schema 2020-12, the dialect every target speaks.

use serde_json::{Map, Value, json};

use super::{Held, NodeRule, Rule, RuleReport};
use crate::adapt::holds::{ITEMS_LIST, REF_DEFINITIONS, TYPE_LIST};
use crate::adapt::visit::Path;
use crate::keys::Keys;

/// Rewrites draft-07 forms as 2020-12: `definitions` → `$defs` (and their `$ref`s), array `items`
/// → `prefixItems` (`additionalItems` → `items`), `dependencies` → `dependentRequired` /
/// `dependentSchemas`, `nullable: true` → a `null` type or branch, a draft-07 `$schema` URI →
/// the 2020-12 one. Changes only; nothing is lost.
#[derive(Clone, Copy, Debug, Default)]
pub struct UpgradeDraft07;

pub(super) const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

fn is_draft07(uri: &str) -> bool {
    let uri = uri.trim_end_matches('#');
    uri == "http://json-schema.org/draft-07/schema"
        || uri == "https://json-schema.org/draft-07/schema"
}

impl Rule for UpgradeDraft07 {
    fn name(&self) -> &'static str {
        "upgrade-draft-07"
    }

    /// Every form it rewrites is a keyword of its own, or (tuple `items`, a `#/definitions/`
    /// reference) a fact the record keeps of one.
    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold_any(&[
            "$schema",
            "definitions",
            "dependencies",
            "nullable",
            ITEMS_LIST,
            REF_DEFINITIONS,
        ])
    }

    fn adds(&self, held: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        // Each 2020-12 form where its draft-07 form was; what `nullable` becomes (a `null`
        // type, branch or enum value).
        let forms: [(bool, &[&str]); 5] = [
            (held.may_hold("$schema"), &["$schema"]),
            // A `definitions` that holds no map is dropped: its node may keep nothing else.
            (
                held.may_hold("definitions"),
                &["$defs", crate::adapt::holds::ANNOTATIONS_ONLY],
            ),
            (held.may_hold(ITEMS_LIST), &["prefixItems", "items"]),
            (
                held.may_hold("dependencies"),
                &["dependentRequired", "dependentSchemas"],
            ),
            (
                held.may_hold("nullable"),
                // A `nullable` alone leaves `{}` in the union it becomes.
                &[
                    "type",
                    TYPE_LIST,
                    "anyOf",
                    crate::adapt::holds::TYPE_NULL,
                    crate::adapt::holds::ANNOTATIONS_ONLY,
                ],
            ),
        ];
        for (_, keywords) in forms.iter().filter(|(was, _)| *was) {
            keywords.iter().for_each(|k| add(k));
        }
        true
    }

    /// Each form is rewritten within its node, but a root `nullable` wraps the root's keywords
    /// into a union branch below it.
    fn keeps_root_and_below(&self, root: &Held<'_>) -> bool {
        !root.may_hold("nullable")
    }

    super::fused::node_rule_walks!();
}

impl NodeRule for UpgradeDraft07 {
    /// Only `nullable` puts a schema below the node: the node wrapped in a union with `null`,
    /// or a `{"type": "null"}` branch added. The other forms move subschemas that were already
    /// below it.
    fn grows_below(&self, held: &Held<'_>) -> bool {
        held.may_hold("nullable")
    }

    fn node(&mut self, node: &mut Value, path: &Path<'_>, report: &mut RuleReport) {
        let Value::Object(map) = node else { return };
        let here = || path.pointer();
        if let Some(Value::String(uri)) = map.key_mut("$schema") {
            if is_draft07(uri) {
                // In its slot: no key made or hashed.
                *uri = DRAFT_2020_12.to_owned();
                report.change(here(), "`$schema` draft-07 → 2020-12");
            }
        }
        if let Some(Value::Object(defs)) = map.take_key("definitions") {
            let target = map
                .entry("$defs")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(target) = target {
                for (k, v) in defs {
                    target.entry(k).or_insert(v);
                }
            }
            report.change(here(), "`definitions` → `$defs`");
        }
        if let Some(Value::String(r)) = map.key_mut("$ref") {
            if let Some(rest) = r.strip_prefix("#/definitions/") {
                *r = format!("#/$defs/{rest}");
            }
        }
        if let Some(Value::Array(_)) = map.key("items") {
            let Some(Value::Array(items)) = map.take_key("items") else {
                unreachable!()
            };
            map.insert("prefixItems".into(), Value::Array(items));
            match map.take_key("additionalItems") {
                None | Some(Value::Bool(true)) => {}
                Some(rest) => {
                    map.insert("items".into(), rest);
                }
            }
            report.change(here(), "array `items` → `prefixItems`");
        }
        if let Some(Value::Object(deps)) = map.take_key("dependencies") {
            for (name, dep) in deps {
                let slot = if dep.is_array() {
                    "dependentRequired"
                } else {
                    "dependentSchemas"
                };
                let entry = map.entry(slot).or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(entry) = entry {
                    entry.entry(name).or_insert(dep);
                }
            }
            report.change(
                here(),
                "`dependencies` → `dependentRequired`/`dependentSchemas`",
            );
        }
        match map.take_key("nullable") {
            Some(Value::Bool(true)) => {
                make_nullable(map);
                report.change(here(), "`nullable: true` → a `null` type");
            }
            Some(_) => report.change(here(), "`nullable: false` removed"),
            None => {}
        }
    }
}

/// Adds `null` to what the node accepts, in the form 2020-12 uses.
pub(crate) fn make_nullable(map: &mut Map<String, Value>) {
    match map.key_mut("type") {
        Some(Value::String(t)) => {
            let t = t.clone();
            if t != "null" {
                map.insert("type".into(), json!([t, "null"]));
            }
        }
        Some(Value::Array(ts)) => {
            if !ts.iter().any(|t| t == "null") {
                ts.push(json!("null"));
            }
        }
        _ => {
            if let Some(Value::Array(branches)) = map.key_mut("anyOf") {
                if !branches.iter().any(super::is_null_schema) {
                    branches.push(json!({"type": "null"}));
                }
            } else {
                let inner = std::mem::take(map);
                map.insert(
                    "anyOf".into(),
                    Value::Array(vec![Value::Object(inner), json!({"type": "null"})]),
                );
            }
        }
    }
    if let Some(Value::Array(values)) = map.key_mut("enum") {
        if !values.iter().any(Value::is_null) {
            values.push(Value::Null);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(mut v: Value) -> Value {
        UpgradeDraft07.apply(&mut v, &mut RuleReport::default());
        v
    }

    #[test]
    fn upgrades_draft07_forms() {
        let out = run(json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "t": {"type": "array", "items": [{"type": "string"}, {"$ref": "#/definitions/N"}], "additionalItems": false},
                "n": {"type": "string", "nullable": true},
                "definitions": {"type": "string"}
            },
            "dependencies": {"a": ["b"], "c": {"required": ["d"]}},
            "definitions": {"N": {"type": "integer"}}
        }));
        assert_eq!(out["$schema"], DRAFT_2020_12);
        assert_eq!(out["$defs"]["N"], json!({"type": "integer"}));
        assert!(out.key("definitions").is_none());
        assert_eq!(
            out["properties"]["t"]["prefixItems"][1]["$ref"],
            "#/$defs/N"
        );
        assert_eq!(out["properties"]["t"]["items"], json!(false));
        assert_eq!(out["properties"]["n"]["type"], json!(["string", "null"]));
        assert_eq!(out["dependentRequired"]["a"], json!(["b"]));
        assert_eq!(out["dependentSchemas"]["c"], json!({"required": ["d"]}));
        // A property named `definitions` is a name.
        assert_eq!(out["properties"]["definitions"], json!({"type": "string"}));
    }

    #[test]
    fn nullable_forms() {
        assert_eq!(
            run(json!({"anyOf": [{"type": "string"}], "nullable": true}))["anyOf"][1],
            json!({"type": "null"})
        );
        assert_eq!(
            run(json!({"$ref": "#/$defs/X", "nullable": true}))["anyOf"][1],
            json!({"type": "null"})
        );
        assert_eq!(
            run(json!({"type": "string", "enum": ["a"], "nullable": true}))["enum"],
            json!(["a", null])
        );
        assert_eq!(
            run(json!({"type": "string", "nullable": false})),
            json!({"type": "string"})
        );
    }
}
