//! Validity first: a keyword whose value is not of the kind JSON Schema's meta-schema gives it is
//! found before any target's rule runs (the engine runs [`ValidKeywords`] first on every
//! target). What has one meaning and is common in published servers is repaired, each repair a
//! change; anything else refuses the schema, and the tool gets the target's fallback with a loss
//! naming the place and what the meta-schema requires.
//!
//! Repaired (the output dialect is 2020-12 on every target):
//! - a type name spelled another way (`int`, `float`, `str`, `bool`, `dict`, `list`, `String`, ...)
//!   → the JSON Schema name; `type: "any"` (draft-03) → no `type`; a name twice in a list → once;
//! - a type name where a schema belongs (`additionalProperties: "object"`, `items: "string"`,
//!   `properties: {"a": "string"}`) → `{"type": ...}`; `"any"` there → `true`;
//! - a boolean `required` on a property (draft-03) → the property's name in its object's
//!   `required` list (`true`) or nothing (`false`); one outside `properties` means nothing and is
//!   removed;
//! - `required` as one string → a list of it; a name twice in `required` → once;
//! - draft-04's boolean `exclusiveMinimum`/`exclusiveMaximum` → the number later drafts take;
//! - an array `items` (a draft-07 tuple) → `prefixItems`, its `additionalItems` → `items`: every
//!   target sends 2020-12 without a `$schema`, where an array `items` is invalid;
//! - `examples` that is not a list → a list of it; a `null` `title`, `description`, `$comment` or
//!   `format` → removed.

use serde_json::{Value, json};

use crate::adapt::tree::{
    Body, Entry, Holds, Key, Keyword, NodeId, Origin, Refused, Report, Rule, Slot, Tree,
};

use super::bounds::Draft04Bounds;
use super::draft::tuple_to_prefix_items;

/// Checks every keyword's value against the kind the meta-schema gives it, repairing what has one
/// meaning (see the module docs) and refusing the rest. The engine runs it before each target's
/// rules, whatever the target's list says.
#[derive(Clone, Copy, Debug, Default)]
pub struct ValidKeywords;

impl ValidKeywords {
    /// The rule's name, as reports give it.
    pub const NAME: &'static str = "valid-keywords";
}

impl Rule for ValidKeywords {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.is_object(tree.root) {
            return;
        }
        // A valid document, the common case, costs one flat scan of the entries and nothing
        // else: no walk, no allocation.
        let suspicious_node = |tree: &Tree, id: NodeId| match &tree.node(id).body {
            Body::Object(entries) => entries.iter().any(suspicious),
            Body::NotSchema(_) => true,
            Body::Bool(_) => false,
        };
        if !tree.any_node(suspicious_node) {
            return;
        }
        let mut bool_bounds = false;
        tree.walk(|tree, id| {
            if !report.failed() {
                check_node(tree, id, &mut bool_bounds, report);
            }
        });
        if bool_bounds && !report.failed() {
            Draft04Bounds.apply(tree, report);
        }
    }
}

/// The seven type names of JSON Schema.
const TYPES: [&str; 7] = [
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// What a type name spelled another way means: a JSON Schema type, or (`any`) every type.
fn type_alias(name: &str) -> Option<Option<&'static str>> {
    if let Some(t) = TYPES.iter().find(|t| **t == name) {
        return Some(Some(t));
    }
    let lower = name.to_ascii_lowercase();
    let t = match lower.as_str() {
        "any" => return Some(None),
        "int" | "int32" | "int64" | "long" | "integer" => "integer",
        "float" | "double" | "number" | "float32" | "float64" | "decimal" => "number",
        "str" | "string" | "text" => "string",
        "bool" | "boolean" => "boolean",
        "dict" | "map" | "object" | "obj" => "object",
        "list" | "array" | "tuple" => "array",
        "null" | "none" | "nil" => "null",
        _ => return None,
    };
    Some(Some(t))
}

/// The schema a type name stands for where a schema belongs.
fn type_name_schema(value: &Value) -> Option<Value> {
    let Value::String(name) = value else {
        return None;
    };
    Some(match type_alias(name)? {
        Some(t) => json!({ "type": t }),
        None => Value::Bool(true),
    })
}

/// What a plain keyword value needs.
enum Verdict {
    Valid,
    /// Replaced by this value, with the words of the change.
    Repair(Value, String),
    /// Removed, with the words of the change.
    Remove(String),
    /// Not valid JSON Schema: what the meta-schema requires.
    Invalid(&'static str),
}

fn check_node(tree: &mut Tree, id: NodeId, bool_bounds: &mut bool, report: &mut Report) {
    let mut index = 0;
    while index < tree.entries(id).len() {
        let entry = &tree.entries(id)[index];
        let (Key::Kw(keyword), origin) = (&entry.key, entry.origin) else {
            index += 1;
            continue;
        };
        let keyword = *keyword;
        let problem = match &entry.value {
            Slot::Value(value) => match keyword.holds() {
                Holds::Value => match check_value(keyword, value, bool_bounds) {
                    Verdict::Valid => None,
                    Verdict::Repair(new, words) => {
                        tree.entries_mut(id).expect("an object")[index].value = Slot::Value(new);
                        report.change(origin, Some(id), words);
                        None
                    }
                    Verdict::Remove(words) => {
                        tree.entries_mut(id).expect("an object").remove(index);
                        report.change(origin, Some(id), words);
                        continue;
                    }
                    Verdict::Invalid(what) => Some(what),
                },
                Holds::One | Holds::OneOrList => match type_name_schema(value) {
                    Some(schema) => {
                        let words = format!(
                            "`{}: {value}` (a type name where a schema belongs) → `{schema}`",
                            keyword.as_str()
                        );
                        let node = tree.node_from_json(&schema, origin);
                        tree.entries_mut(id).expect("an object")[index].value = Slot::Schema(node);
                        report.change(origin, Some(id), words);
                        None
                    }
                    None => Some("a schema (an object or a boolean)"),
                },
                Holds::List => Some("a non-empty array of schemas (objects or booleans)"),
                Holds::Map => Some("an object whose values are schemas (objects or booleans)"),
            },
            Slot::Schemas(members) if members.is_empty() => {
                Some("a non-empty array of schemas (objects or booleans)")
            }
            Slot::Schemas(members) => {
                let problem = if members.iter().any(|m| not_schema(tree, *m)) {
                    let members = members.clone();
                    check_members(tree, &members, keyword, report)
                } else {
                    None
                };
                if problem.is_none() && keyword == Keyword::Items {
                    tuple_to_prefix_items(tree, id, report);
                    // `items` has moved: the entry at `index` is another one now.
                    continue;
                }
                problem
            }
            Slot::Map(members) if members.iter().any(|(_, m)| not_schema(tree, *m)) => {
                let members: Vec<NodeId> = members.iter().map(|(_, m)| *m).collect();
                check_members(tree, &members, keyword, report)
            }
            Slot::Map(_) => None,
            Slot::Schema(_) => None,
        };
        if let Some(what) = problem {
            let got = tree.slot_value(&tree.entries(id)[index].value);
            fail(tree, origin, keyword, what, &got, report);
            return;
        }
        index += 1;
    }
    required_on_properties(tree, id, report);
}

/// Each member of a list or map keyword is a schema: a type name is repaired, a list of unique
/// strings is a `dependencies` member's other form, anything else is what the keyword requires.
fn check_members(
    tree: &mut Tree,
    members: &[NodeId],
    keyword: Keyword,
    report: &mut Report,
) -> Option<&'static str> {
    for &member in members {
        let Body::NotSchema(value) = &tree.node(member).body else {
            continue;
        };
        if keyword == Keyword::Dependencies && unique_strings(value) {
            continue;
        }
        let origin = tree.node(member).origin;
        let Some(schema) = type_name_schema(value) else {
            return Some(match keyword.holds() {
                Holds::Map if keyword == Keyword::Dependencies => {
                    "an object whose values are schemas or arrays of unique strings"
                }
                Holds::Map => "an object whose values are schemas (objects or booleans)",
                _ => "a non-empty array of schemas (objects or booleans)",
            });
        };
        let words = format!("{value} (a type name where a schema belongs) → `{schema}`");
        let made = tree.node_from_json(&schema, origin);
        let body = std::mem::replace(&mut tree.node_mut(made).body, Body::Bool(true));
        tree.node_mut(member).body = body;
        report.change(origin, Some(member), words);
    }
    None
}

/// Whether an entry may need a repair or a refusal: a keyword's value of another kind than the
/// meta-schema's, a draft form the walk rewrites, an empty list of schemas.
fn suspicious(entry: &Entry) -> bool {
    let Key::Kw(keyword) = entry.key else {
        return false;
    };
    match (&entry.value, keyword.holds()) {
        // The keywords most schemas are made of first, each with its cheapest test.
        (Slot::Value(value), Holds::Value) => match keyword {
            Keyword::Description | Keyword::Title => !value.is_string(),
            Keyword::Default | Keyword::Const => false,
            Keyword::Type => !matches!(check_type(value), Verdict::Valid),
            _ => {
                let mut bool_bounds = false;
                !matches!(
                    check_value(keyword, value, &mut bool_bounds),
                    Verdict::Valid
                ) || bool_bounds
            }
        },
        (Slot::Value(_), _) => true,
        (Slot::Schemas(members), _) => members.is_empty() || keyword == Keyword::Items,
        _ => false,
    }
}

/// Whether a list or map keyword's member is not a schema (an array, a string, ...).
fn not_schema(tree: &Tree, id: NodeId) -> bool {
    matches!(tree.node(id).body, Body::NotSchema(_))
}

fn unique_strings(value: &Value) -> bool {
    let Value::Array(items) = value else {
        return false;
    };
    // A set, not pairwise: a `required` of 20,000 names is ordinary input.
    let mut seen = std::collections::HashSet::with_capacity(items.len());
    items
        .iter()
        .all(|item| item.as_str().is_some_and(|name| seen.insert(name)))
}

fn non_negative_integer(value: &Value) -> bool {
    match value {
        Value::Number(n) => {
            n.as_u64().is_some() || n.as_f64().is_some_and(|f| f >= 0.0 && f.fract() == 0.0)
        }
        _ => false,
    }
}

/// Whether `text` is an anchor name (`^[A-Za-z_][-A-Za-z0-9._]*$`, core meta-schema).
fn anchor_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || "-._".contains(c))
}

fn check_value(keyword: Keyword, value: &Value, bool_bounds: &mut bool) -> Verdict {
    use Keyword as K;
    let name = keyword.as_str();
    match keyword {
        K::Type => check_type(value),
        K::Required => check_required(value),
        K::Enum if !value.is_array() => Verdict::Invalid("an array of values"),
        K::Examples if !value.is_array() => Verdict::Repair(
            Value::Array(vec![value.clone()]),
            format!("`examples: {value}` (not a list) → `[{value}]`"),
        ),
        K::MultipleOf if !value.as_f64().is_some_and(|n| n > 0.0) => {
            Verdict::Invalid("a number greater than 0")
        }
        K::Minimum | K::Maximum if !value.is_number() => Verdict::Invalid("a number"),
        K::ExclusiveMinimum | K::ExclusiveMaximum => match value {
            Value::Number(_) => Verdict::Valid,
            Value::Bool(_) => {
                *bool_bounds = true;
                Verdict::Valid
            }
            _ => Verdict::Invalid("a number"),
        },
        K::MinLength
        | K::MaxLength
        | K::MinItems
        | K::MaxItems
        | K::MinContains
        | K::MaxContains
        | K::MinProperties
        | K::MaxProperties
            if !non_negative_integer(value) =>
        {
            Verdict::Invalid("a non-negative integer")
        }
        K::UniqueItems | K::Deprecated | K::ReadOnly | K::WriteOnly if !value.is_boolean() => {
            Verdict::Invalid("a boolean")
        }
        K::Title | K::Description | K::Comment | K::Format if value.is_null() => {
            Verdict::Remove(format!("`{name}: null` removed: it says nothing"))
        }
        K::Title
        | K::Description
        | K::Comment
        | K::Format
        | K::Pattern
        | K::ContentEncoding
        | K::ContentMediaType
        | K::Ref
        | K::DynamicRef
        | K::Schema
            if !value.is_string() =>
        {
            Verdict::Invalid("a string")
        }
        K::Id => match value.as_str() {
            Some(id) if id.split_once('#').is_none_or(|(_, f)| f.is_empty()) => Verdict::Valid,
            _ => Verdict::Invalid("a URI reference without a non-empty fragment"),
        },
        K::Anchor | K::DynamicAnchor => match value.as_str() {
            Some(a) if anchor_name(a) => Verdict::Valid,
            _ => Verdict::Invalid("a name matching `^[A-Za-z_][-A-Za-z0-9._]*$`"),
        },
        K::DependentRequired => match value {
            Value::Object(map) if map.values().all(unique_strings) => Verdict::Valid,
            _ => Verdict::Invalid("an object whose values are arrays of unique strings"),
        },
        _ => Verdict::Valid,
    }
}

fn check_type(value: &Value) -> Verdict {
    const WHAT: &str = "a JSON Schema type name (array, boolean, integer, null, number, object, string) or a non-empty list of unique ones";
    // The common case first, without allocating: one name, or a list of unique names.
    let named = |v: &Value| v.as_str().is_some_and(|t| TYPES.contains(&t));
    match value {
        Value::String(_) if named(value) => return Verdict::Valid,
        Value::Array(items)
            if !items.is_empty()
                && items.iter().all(named)
                && (items.iter().enumerate()).all(|(i, t)| !items[..i].contains(t)) =>
        {
            return Verdict::Valid;
        }
        _ => {}
    }
    let names: Vec<&Value> = match value {
        Value::String(_) => vec![value],
        Value::Array(items) if !items.is_empty() => items.iter().collect(),
        _ => return Verdict::Invalid(WHAT),
    };
    let mut canonical = Vec::with_capacity(names.len());
    for name in names {
        match name.as_str().and_then(type_alias) {
            None => return Verdict::Invalid(WHAT),
            Some(None) => {
                return Verdict::Remove(format!(
                    "`type: {value}` removed: `any` (draft-03) allows every type, as no `type` does"
                ));
            }
            Some(Some(t)) => {
                if !canonical.contains(&t) {
                    canonical.push(t);
                }
            }
        }
    }
    // One name left is written as the name.
    let new = match canonical.as_slice() {
        [t] => json!(t),
        _ => json!(canonical),
    };
    if &new == value {
        Verdict::Valid
    } else {
        Verdict::Repair(new.clone(), format!("`type: {value}` → `type: {new}`"))
    }
}

fn check_required(value: &Value) -> Verdict {
    match value {
        // A boolean `required` on a property is moved by its object (`required_on_properties`)
        // before the walk reaches it; one still here is outside `properties`.
        Value::Bool(b) => Verdict::Remove(format!(
            "`required: {b}` outside `properties` removed: a boolean `required` (draft-03) \
             only says something of a property"
        )),
        Value::String(name) => Verdict::Repair(
            json!([name]),
            format!("`required: {value}` (one name) → `required: [{value}]`"),
        ),
        Value::Array(items) if items.iter().all(Value::is_string) => {
            if unique_strings(value) {
                return Verdict::Valid;
            }
            let mut seen = std::collections::HashSet::with_capacity(items.len());
            let once: Vec<Value> = (items.iter())
                .filter(|item| item.as_str().is_some_and(|name| seen.insert(name)))
                .cloned()
                .collect();
            Verdict::Repair(
                Value::Array(once),
                "a name listed twice in `required` → once".to_owned(),
            )
        }
        _ => Verdict::Invalid("an array of unique strings (property names)"),
    }
}

/// Draft-03's boolean `required` on each property of node `id` becomes the property's name in the
/// node's `required` list.
fn required_on_properties(tree: &mut Tree, id: NodeId, report: &mut Report) {
    let Some(Slot::Map(members)) = tree.get(id, Keyword::Properties).map(|e| &e.value) else {
        return;
    };
    let flagged: Vec<(String, NodeId, bool)> = members
        .iter()
        .filter_map(|(name, m)| match tree.value(*m, Keyword::Required) {
            Some(Value::Bool(b)) => Some((name.clone(), *m, *b)),
            _ => None,
        })
        .collect();
    for (name, member, required) in flagged {
        let entry = tree.take(member, Keyword::Required).expect("present");
        if required {
            match tree.value_mut(id, Keyword::Required) {
                Some(Value::Array(names)) => {
                    if !names.iter().any(|n| n == name.as_str()) {
                        names.push(Value::String(name.clone()));
                    }
                }
                _ => {
                    let origin = entry.origin;
                    tree.set(
                        id,
                        Entry {
                            key: Keyword::Required.into(),
                            value: Slot::Value(json!([name])),
                            origin,
                        },
                    );
                }
            }
        }
        let words = if required {
            format!(
                "`required: true` on property `{name}` (draft-03) → `{name}` in its object's `required`"
            )
        } else {
            format!(
                "`required: false` on property `{name}` (draft-03) removed: a property is optional unless listed"
            )
        };
        report.change(entry.origin, Some(member), words);
    }
}

/// Refuses the schema at the keyword's place.
fn fail(
    tree: &Tree,
    origin: Origin,
    keyword: Keyword,
    what: &str,
    got: &Value,
    report: &mut Report,
) {
    let pointer = tree.pointer(origin);
    let mut shown = got.to_string();
    if shown.len() > 80 {
        let cut = (0..=77)
            .rev()
            .find(|i| shown.is_char_boundary(*i))
            .unwrap_or(0);
        shown.truncate(cut);
        shown.push_str("...");
    }
    let place = if pointer.as_str().is_empty() {
        "(root)".to_owned()
    } else {
        pointer.as_str().to_owned()
    };
    report.fail(
        Refused {
            at: pointer.as_str().to_owned(),
            origin,
        },
        format!(
            "not valid JSON Schema 2020-12 at {place}: the meta-schema requires `{}` to be {what}; got {shown}",
            keyword.as_str()
        ),
    );
}

// The checks compare with the meta-schema itself (the `validate` feature's `jsonschema`).
#[cfg(all(test, feature = "validate"))]
mod tests {
    use serde_json::{Value, json};

    use super::ValidKeywords;
    use crate::adapt::rules::{Applied, Rule, apply};

    fn run(input: &Value) -> Applied {
        let mut rules: Vec<Box<dyn Rule>> = vec![Box::new(ValidKeywords)];
        apply(&mut rules, input)
    }

    /// What has one meaning is repaired, each a change at the keyword's place; nothing is lost.
    #[test]
    fn repairs_what_has_one_meaning() {
        let input = json!({"type": "object", "properties": {
            "a": {"type": "int"},
            "b": {"type": ["String", "string", "null"]},
            "b1": {"type": ["string", "String"]},
            "c": {"type": "string", "required": true},
            "d": {"type": "string", "required": false},
            "e": {"type": "object", "additionalProperties": "object"},
            "f": {"type": "array", "items": "string"},
            "g": "integer",
            "h": {"type": "any", "description": null},
            "i": {"type": "number", "minimum": 0, "exclusiveMinimum": true},
            "j": {"type": "array", "items": [{"type": "string"}], "additionalItems": false},
            "k": {"type": "object", "additionalProperties": "any", "required": ["x", "x"]},
            "l": {"type": "string", "examples": "hi"}
        }});
        let applied = run(&input);
        assert_eq!(applied.failure, None);
        assert!(applied.losses.is_empty(), "{:#?}", applied.losses);
        assert_eq!(
            applied.schema,
            json!({"type": "object", "properties": {
                "a": {"type": "integer"},
                "b": {"type": ["string", "null"]},
                "b1": {"type": "string"},
                "c": {"type": "string"},
                "d": {"type": "string"},
                "e": {"type": "object", "additionalProperties": {"type": "object"}},
                "f": {"type": "array", "items": {"type": "string"}},
                "g": {"type": "integer"},
                "h": {},
                "i": {"type": "number", "exclusiveMinimum": 0},
                "j": {"type": "array", "prefixItems": [{"type": "string"}], "items": false},
                "k": {"type": "object", "additionalProperties": true, "required": ["x"]},
                "l": {"type": "string", "examples": ["hi"]}
            }, "required": ["c"]})
        );
        assert!(jsonschema::meta::is_valid(&applied.schema));
        let places: Vec<&str> = applied.changes.iter().map(|c| c.pointer.as_str()).collect();
        for place in [
            "/properties/a/type",
            "/properties/c/required",
            "/properties/e/additionalProperties",
            "/properties/g",
        ] {
            assert!(places.contains(&place), "{place}: {places:?}");
        }
    }

    /// Anything else refuses the schema at the keyword's place, in words that say what the
    /// meta-schema requires and what was there.
    #[test]
    fn refuses_the_rest_at_its_place() {
        let cases = [
            (
                json!({"type": "strng"}),
                "/properties/x/type",
                "a JSON Schema type name",
            ),
            (
                json!({"enum": "a,b"}),
                "/properties/x/enum",
                "an array of values",
            ),
            (
                json!({"type": "string", "minLength": -1}),
                "/properties/x/minLength",
                "a non-negative integer",
            ),
            (
                json!({"anyOf": []}),
                "/properties/x/anyOf",
                "a non-empty array of schemas",
            ),
            (
                json!({"anyOf": [3]}),
                "/properties/x/anyOf",
                "a non-empty array of schemas",
            ),
            (
                json!({"type": "object", "properties": "x"}),
                "/properties/x/properties",
                "an object whose values are schemas",
            ),
            (
                json!({"type": "number", "multipleOf": 0}),
                "/properties/x/multipleOf",
                "a number greater than 0",
            ),
            (
                json!({"$anchor": "1a"}),
                "/properties/x/$anchor",
                "a name matching",
            ),
            (
                json!({"required": [1]}),
                "/properties/x/required",
                "an array of unique strings",
            ),
            (
                json!({"description": 3}),
                "/properties/x/description",
                "a string",
            ),
            (json!({"type": []}), "/properties/x/type", "non-empty list"),
        ];
        for (bad, place, words) in cases {
            let input = json!({"type": "object", "properties": {"x": bad}});
            let applied = run(&input);
            let failure = applied
                .failure
                .unwrap_or_else(|| panic!("{input} was not refused"));
            assert!(
                failure.reason.contains(&format!("at {place}:")) && failure.reason.contains(words),
                "{input}: {}",
                failure.reason
            );
            assert!(
                jsonschema::meta::validate(&input).is_err(),
                "{input} is valid: the test case is wrong"
            );
        }
    }

    /// A valid schema is left as it is: no change, no refusal, whatever its property names.
    #[test]
    fn leaves_valid_schemas_alone() {
        let input = json!({"type": "object", "properties": {
            "type": {"type": "string", "enum": ["a", "b"]},
            "required": {"type": "boolean"},
            "properties": {"type": "object", "additionalProperties": {"type": "integer"}},
            "$ref": {"$ref": "#/$defs/D"}
        }, "required": ["type"], "$defs": {"D": {"type": "integer", "minimum": 1}},
           "dependencies": {"type": ["required"]}});
        let applied = run(&input);
        assert_eq!(applied.failure, None);
        assert!(applied.changes.is_empty(), "{:#?}", applied.changes);
        assert_eq!(applied.schema, input);
    }
}
