//! Open maps for a provider that takes only the boolean form of `additionalProperties`.

use crate::adapt::report::LossKind;
use crate::adapt::tree::{Body, Keyword, Report, Rule, Slot, Tree};

/// `additionalProperties: {…}` (a map whose values have a schema) sent as
/// `additionalProperties: true`: xAI closes every object unless it says `true` ("must be set
/// to true explicitly") and takes no schema there. The values' schema is no longer enforced (a
/// `dropped` loss, which covers every keyword inside it); `{}` says `true` already (a change).
#[derive(Clone, Copy, Debug, Default)]
pub struct OpenMaps;

impl Rule for OpenMaps {
    fn name(&self) -> &'static str {
        "open-maps"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds(Keyword::AdditionalProperties) {
            return;
        }
        tree.walk(|tree, id| {
            let Some(Slot::Schema(values)) = tree.get(id, Keyword::AdditionalProperties).map(|e| &e.value)
            else {
                return;
            };
            let values = *values;
            let empty = match &tree.node(values).body {
                Body::Bool(_) | Body::NotSchema(_) => return,
                Body::Object(entries) => entries.is_empty(),
            };
            let origin = tree.node(values).origin;
            let open = tree.add(origin, Body::Bool(true));
            if let Some(slot) = tree.slot_mut(id, Keyword::AdditionalProperties) {
                *slot = Slot::Schema(open);
            }
            if empty {
                report.change(origin, Some(id), "`additionalProperties: {}` → `true`");
            } else {
                let detail = "the schema of the map's values is dropped (the provider takes only `additionalProperties: true`); values are not checked";
                report.loss(origin, Some(id), "additionalProperties", LossKind::Dropped, detail);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::OpenMaps;
    use crate::adapt::report::LossKind;
    use crate::adapt::rules::{Rule, apply};

    #[test]
    fn value_schemas_become_true() {
        let input = json!({"type": "object", "properties": {
            "labels": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 9}},
            "any": {"type": "object", "additionalProperties": {}},
            "closed": {"type": "object", "additionalProperties": false}
        }});
        let mut rules: Vec<Box<dyn Rule>> = vec![Box::new(OpenMaps)];
        let applied = apply(&mut rules, &input);
        let p = &applied.schema["properties"];
        assert_eq!(p["labels"]["additionalProperties"], json!(true));
        assert_eq!(p["any"]["additionalProperties"], json!(true));
        assert_eq!(p["closed"]["additionalProperties"], json!(false));
        assert_eq!(applied.losses.len(), 1);
        assert_eq!(applied.losses[0].kind, LossKind::Dropped);
        assert_eq!(applied.changes.len(), 1);
    }
}
