//! Draft-04's boolean bounds flags as the numbers every later draft takes.

use serde_json::Value;

use crate::adapt::tree::{Entry, Keyword, NodeId, Report, Rule, Tree};

/// Rewrites draft-04's boolean `exclusiveMinimum`/`exclusiveMaximum` (a flag on `minimum`/
/// `maximum`) as the number draft 6 and later take: `{minimum: 0, exclusiveMinimum: true}` →
/// `{exclusiveMinimum: 0}`; a `false` flag (the bound is inclusive), or a `true` one with no
/// bound beside it, is removed. Mistral's meta-schema refuses the boolean form ("is not valid
/// under any of the given schemas"). Changes only: the values allowed stay the same.
#[derive(Clone, Copy, Debug, Default)]
pub struct Draft04Bounds;

impl Rule for Draft04Bounds {
    fn name(&self) -> &'static str {
        "draft-04-bounds"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds_any(&[Keyword::ExclusiveMinimum, Keyword::ExclusiveMaximum]) {
            return;
        }
        tree.walk(|tree, id| {
            bound(
                tree,
                id,
                Keyword::ExclusiveMinimum,
                Keyword::Minimum,
                report,
            );
            bound(
                tree,
                id,
                Keyword::ExclusiveMaximum,
                Keyword::Maximum,
                report,
            );
        });
    }
}

fn bound(tree: &mut Tree, id: NodeId, flag: Keyword, limit: Keyword, report: &mut Report) {
    let Some(&Value::Bool(exclusive)) = tree.value(id, flag) else {
        return;
    };
    let flag_entry = tree.take(id, flag).expect("present");
    let number = tree.value(id, limit).is_some_and(Value::is_number);
    let (flag_name, limit_name) = (flag.as_str(), limit.as_str());
    let detail = if exclusive && number {
        let moved = tree.take(id, limit).expect("present");
        tree.set(
            id,
            Entry {
                key: flag.into(),
                ..moved
            },
        );
        format!("`{limit_name}` with `{flag_name}: true` (draft-04) → `{flag_name}: <the bound>`")
    } else if exclusive {
        format!("`{flag_name}: true` (draft-04) with no `{limit_name}` removed: it bounds nothing")
    } else {
        format!("`{flag_name}: false` (draft-04) removed: `{limit_name}` is inclusive anyway")
    };
    report.change(flag_entry.origin, Some(id), detail);
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Draft04Bounds;
    use crate::adapt::rules::{Rule, apply};

    #[test]
    fn boolean_flags_become_numbers() {
        let input = json!({"type": "object", "properties": {
            "a": {"type": "number", "minimum": 0, "exclusiveMinimum": true},
            "b": {"type": "number", "maximum": 9, "exclusiveMaximum": false},
            "c": {"type": "number", "exclusiveMaximum": true},
            "d": {"type": "number", "exclusiveMinimum": 1}
        }});
        let mut rules: Vec<Box<dyn Rule>> = vec![Box::new(Draft04Bounds)];
        let applied = apply(&mut rules, &input);
        assert_eq!(
            applied.schema["properties"],
            json!({
                "a": {"type": "number", "exclusiveMinimum": 0},
                "b": {"type": "number", "maximum": 9},
                "c": {"type": "number"},
                "d": {"type": "number", "exclusiveMinimum": 1}
            })
        );
        assert!(applied.losses.is_empty());
        assert_eq!(applied.changes.len(), 3);
    }
}
