//! Choices with nothing to choose from: `enum: []` and an empty `anyOf`/`oneOf`, which accept no
//! value and which xAI refuses with a 400.

use serde_json::Value;

use crate::adapt::report::LossKind;
use crate::adapt::tree::{Keyword, Report, Rule, Slot, Tree};

/// Removes an empty `enum`, `anyOf` or `oneOf`: the node then accepts what the rest of it
/// allows (a `widened` loss). In JSON Schema each accepts no value at all, so a required
/// property holding one could never be sent; a provider that refuses them refuses the request.
#[derive(Clone, Copy, Debug, Default)]
pub struct EmptyChoices;

impl Rule for EmptyChoices {
    fn name(&self) -> &'static str {
        "empty-choices"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let keys = [Keyword::Enum, Keyword::AnyOf, Keyword::OneOf];
        if !tree.holds_any(&keys) {
            return;
        }
        tree.walk(|tree, id| {
            for key in keys {
                let empty = match tree.get(id, key).map(|e| &e.value) {
                    Some(Slot::Value(Value::Array(values))) => values.is_empty(),
                    Some(Slot::Schemas(branches)) => branches.is_empty(),
                    _ => false,
                };
                if empty {
                    let entry = tree.take(id, key).expect("present");
                    let detail = format!(
                        "an empty `{}` accepts no value and is refused: removed, so the node accepts what the rest of it allows",
                        key.as_str()
                    );
                    report.loss(entry.origin, Some(id), key.as_str(), LossKind::Widened, detail);
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::EmptyChoices;
    use crate::adapt::report::LossKind;
    use crate::adapt::rules::{Rule, apply};

    #[test]
    fn empty_choices_are_removed_and_reported() {
        let input = json!({"type": "object", "properties": {
            "e": {"type": "string", "enum": []},
            "u": {"anyOf": []},
            "kept": {"enum": ["a"]}
        }});
        let mut rules: Vec<Box<dyn Rule>> = vec![Box::new(EmptyChoices)];
        let applied = apply(&mut rules, &input);
        assert_eq!(
            applied.schema["properties"],
            json!({"e": {"type": "string"}, "u": {}, "kept": {"enum": ["a"]}})
        );
        let kinds: Vec<(&str, LossKind)> = (applied.losses.iter())
            .map(|l| (&*l.keyword, l.kind))
            .collect();
        assert_eq!(
            kinds,
            [("enum", LossKind::Widened), ("anyOf", LossKind::Widened)]
        );
    }
}
