//! An untyped subschema (`{}`, `true`) said in the only form a provider's types can hold: every
//! JSON type, named.

use serde_json::json;

use crate::adapt::tree::{Keyword, NodeId, Report, Rule, Tree, WalkStep};

/// A property, item or union branch that constrains nothing (no `type`, `anyOf`, `enum`,
/// `const`, `properties`, `items` or `$ref`) gets `type` listing every JSON type: Ollama's
/// request types read `type` (a string or a list) and nothing that would say "anything", so an
/// open subschema reaches its template as a field of no type. The reference implementation
/// widens such a node to an `anyOf` of each type; a type list accepts the same values without a
/// union a client could flatten. A change.
#[derive(Clone, Copy, Debug, Default)]
pub struct OpenSubschemas;

const SAYS_WHAT: &[Keyword] = &[
    Keyword::Type,
    Keyword::AnyOf,
    Keyword::OneOf,
    Keyword::AllOf,
    Keyword::Enum,
    Keyword::Const,
    Keyword::Properties,
    Keyword::Items,
    Keyword::Ref,
    Keyword::Not,
];

impl Rule for OpenSubschemas {
    fn name(&self) -> &'static str {
        "open-subschemas"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let list = tree.breadth_first();
        let open: Vec<NodeId> = (list.iter())
            .filter(|r| {
                matches!(
                    r.step,
                    Some(
                        WalkStep::Name("properties", _)
                            | WalkStep::Keyword("items")
                            | WalkStep::Index(..)
                    )
                )
            })
            .map(|r| r.id)
            .filter(|&id| tree.is_object(id) && !SAYS_WHAT.iter().any(|&k| tree.has(id, k)))
            .collect();
        for id in open {
            let every = json!([
                "string", "number", "integer", "boolean", "object", "array", "null"
            ]);
            tree.set_value(id, Keyword::Type, every);
            let detail = "an untyped subschema given every JSON type (it accepts any value)";
            report.change(tree.node(id).origin, Some(id), detail);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::OpenSubschemas;
    use crate::adapt::rules::{Rule, apply};

    #[test]
    fn untyped_subschemas_name_every_type() {
        let input = json!({"type": "object", "properties": {
            "any": {},
            "noted": {"description": "Anything."},
            "typed": {"type": "string"},
            "list": {"type": "array", "items": {}},
            "either": {"anyOf": [{"type": "string"}, {}]}
        }});
        let mut rules: Vec<Box<dyn Rule>> = vec![Box::new(OpenSubschemas)];
        let applied = apply(&mut rules, &input);
        let every = json!([
            "string", "number", "integer", "boolean", "object", "array", "null"
        ]);
        let p = &applied.schema["properties"];
        assert_eq!(p["any"], json!({"type": every}));
        assert_eq!(
            p["noted"],
            json!({"description": "Anything.", "type": every})
        );
        assert_eq!(p["typed"], json!({"type": "string"}));
        assert_eq!(p["list"]["items"], json!({"type": every}));
        assert_eq!(p["either"]["anyOf"][1], json!({"type": every}));
        assert_eq!(applied.changes.len(), 4);
        assert!(applied.losses.is_empty());
    }
}
