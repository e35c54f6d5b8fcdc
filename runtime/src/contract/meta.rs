//! `invalid-schema`: the published schema checked against the meta-schema of its dialect
//! (`$schema`: draft-04, -06, -07, 2019-09 or 2020-12; 2020-12 when it names none or another
//! one) with the `jsonschema` crate, whose bundled meta-schemas are all it reads (nothing is
//! fetched).

use serde_json::Value;

use crate::walk::Step;
#[cfg(feature = "validate")]
use crate::walk::{SCHEMA_ARRAY_KEYWORDS, SCHEMA_MAP_KEYWORDS};

/// Each place where `schema` breaks its meta-schema: the steps to the place from the root (the
/// keyword whose value is wrong last) and the meta-schema's words. Empty without the `validate`
/// feature.
pub(crate) fn meta_errors(schema: &Value) -> Vec<(Vec<Step<'_>>, String)> {
    #[cfg(feature = "validate")]
    {
        // The validator recurses, several frames a level: a deep document is checked on a
        // stack grown for it.
        match crate::adapt::json_depth_if_deep(schema) {
            Some(depth) => stacker::grow(depth.saturating_mul(256 * 1024), || check(schema)),
            None => check(schema),
        }
    }
    #[cfg(not(feature = "validate"))]
    {
        let _ = schema;
        Vec::new()
    }
}

#[cfg(feature = "validate")]
fn check(schema: &Value) -> Vec<(Vec<Step<'_>>, String)> {
    {
        // No `$schema`, or one the bundled drafts do not know: JSON Schema 2020-12, the dialect
        // MCP and the providers read a schema in.
        let validator = jsonschema::meta::validator_for(schema)
            .unwrap_or_else(|_| jsonschema::draft202012::meta::validator());
        let dialect = dialect_name(schema);
        // The 2020-12 meta-schema checks each keyword once per vocabulary it reaches through
        // (an `allOf` of seven): one mistake is one error, the first words said at its place.
        let mut seen: Vec<String> = Vec::new();
        let mut out = Vec::new();
        for e in validator.iter_errors(schema) {
            let place = e.instance_path().to_string();
            if seen.contains(&place) {
                continue;
            }
            out.push((
                steps_to(schema, &place),
                format!("{e} (JSON Schema {dialect} meta-schema)"),
            ));
            seen.push(place);
        }
        out
    }
}

/// The dialect `schema` is checked in, for the message.
#[cfg(feature = "validate")]
fn dialect_name(schema: &Value) -> &'static str {
    let uri = schema.get("$schema").and_then(Value::as_str).unwrap_or("");
    [
        ("draft-04", "draft-04"),
        ("draft-06", "draft-06"),
        ("draft-07", "draft-07"),
        ("2019-09", "2019-09"),
    ]
    .iter()
    .find(|(needle, _)| uri.contains(needle))
    .map_or("2020-12", |(_, name)| name)
}

/// The walk's steps to the place a JSON Pointer names in `schema`: a map keyword's member is a
/// name, a list keyword's member an index, anything else a keyword (a place inside a keyword's
/// value, such as `required/0`, stops at the keyword).
#[cfg(feature = "validate")]
fn steps_to<'a>(schema: &'a Value, pointer: &str) -> Vec<Step<'a>> {
    let mut steps = Vec::new();
    let mut here = schema;
    let mut tokens = pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"));
    while let Some(token) = tokens.next() {
        let Value::Object(map) = here else { break };
        let Some((key, value)) = map.get_key_value(token.as_str()) else {
            break;
        };
        let key = key.as_str();
        let member = |tokens: &mut dyn Iterator<Item = String>| tokens.next();
        if SCHEMA_MAP_KEYWORDS.contains(&key) && value.is_object() {
            let Some(name) = member(&mut tokens) else {
                steps.push(Step::Keyword(key));
                break;
            };
            let Some((name, next)) = value.as_object().and_then(|m| m.get_key_value(&name)) else {
                steps.push(Step::Keyword(key));
                break;
            };
            steps.push(Step::Name(key, name.as_str()));
            here = next;
        } else if (SCHEMA_ARRAY_KEYWORDS.contains(&key) || key == "items") && value.is_array() {
            let Some(index) = member(&mut tokens).and_then(|i| i.parse::<usize>().ok()) else {
                steps.push(Step::Keyword(key));
                break;
            };
            let Some(next) = value.get(index) else {
                steps.push(Step::Keyword(key));
                break;
            };
            steps.push(Step::Index(key, index));
            here = next;
        } else {
            steps.push(Step::Keyword(key));
            here = value;
        }
    }
    steps
}

#[cfg(all(test, feature = "validate"))]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::walk::dotted;

    /// Each published mistake is one error, at the keyword, in the meta-schema's words.
    #[test]
    fn one_error_per_mistake_at_its_place() {
        let cases = [
            (
                json!({"type": "object", "properties": {"n": {"type": "int"}}}),
                "properties.n.type",
            ),
            (
                json!({"type": "object", "properties": {"n": {"type": "strng"}}}),
                "properties.n.type",
            ),
            (
                json!({"type": "object", "properties": {"n": {"type": "string", "required": true}}}),
                "properties.n.required",
            ),
            (
                json!({"type": "object", "additionalProperties": "object"}),
                "additionalProperties",
            ),
            (
                json!({"type": "object", "properties": {"n": {"enum": "a"}}}),
                "properties.n.enum",
            ),
            (
                json!({"type": "object", "properties": {"n": {"anyOf": [{"type": "string"}, 3]}}}),
                "properties.n.anyOf[1]",
            ),
        ];
        for (schema, place) in cases {
            let errors = meta_errors(&schema);
            assert_eq!(errors.len(), 1, "{schema}: {errors:?}");
            assert_eq!(dotted(&errors[0].0), place, "{schema}");
            assert!(errors[0].1.contains("2020-12"), "{}", errors[0].1);
        }
    }

    /// A draft-07 document is checked in draft-07 (an array `items` is a tuple there), and a
    /// `$schema` no bundled draft knows in 2020-12, without a panic.
    #[test]
    fn the_dialect_is_the_documents() {
        let tuple = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "array", "items": [{"type": "string"}]});
        assert!(meta_errors(&tuple).is_empty());
        let unknown = json!({"$schema": "https://example.com/mine", "type": "int"});
        assert_eq!(meta_errors(&unknown).len(), 1);
        assert!(meta_errors(&json!({"type": "object"})).is_empty());
    }
}
