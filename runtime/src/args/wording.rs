//! How a refused argument reads: each problem as the rule the value must meet
//! (`/days must be at most 7; got 9`), and the offending value quoted short, never whole.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{JsonType, ValidationError};
use serde_json::Value;

/// How much of a refused value a message quotes.
const QUOTE_CHARS: usize = 80;

/// A value as a person names it: `9`, `null`, `the string "3"`, `an array of 2 items`. Long
/// text is cut after 80 characters with its full length, so a 5 MB argument never travels back
/// into the model's context.
pub fn describe(value: &Value) -> String {
    match value {
        Value::String(s) => format!("the string {}", quote(s)),
        Value::Array(items) => {
            let n = items.len();
            format!(
                "an array of {n} item{}: {}",
                if n == 1 { "" } else { "s" },
                cut(&value.to_string())
            )
        }
        Value::Object(_) => format!("an object: {}", cut(&value.to_string())),
        other => cut(&other.to_string()),
    }
}

/// `"text"`, or its first 80 characters and the full length.
fn quote(s: &str) -> String {
    let json = Value::String(s.to_owned()).to_string();
    match s.char_indices().nth(QUOTE_CHARS) {
        None => json,
        Some((i, _)) => {
            let head = Value::String(s[..i].to_owned()).to_string();
            format!(
                "{}…\" ({} characters)",
                &head[..head.len() - 1],
                thousands(s.chars().count())
            )
        }
    }
}

/// JSON text, cut after 80 characters with its full length.
fn cut(text: &str) -> String {
    match text.char_indices().nth(QUOTE_CHARS) {
        None => text.to_owned(),
        Some((i, _)) => format!(
            "{}… ({} characters)",
            &text[..i],
            thousands(text.chars().count())
        ),
    }
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn a_type(t: JsonType) -> &'static str {
    match t {
        JsonType::Array => "an array",
        JsonType::Boolean => "a boolean",
        JsonType::Integer => "an integer",
        JsonType::Null => "null",
        JsonType::Number => "a number",
        JsonType::Object => "an object",
        JsonType::String => "a string",
    }
}

/// `a, b or c`.
fn either(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn names(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    cut(&quoted.join(", "))
}

fn plural(n: u64, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// The rule a refused value must meet, as the rest of a sentence that starts with its place:
/// `must be at most 7`, `must be an integer or null`, `must have at least 2 items`. `None`
/// for a keyword that names no value of its own (then the validator's text is used).
pub fn rule(error: &ValidationError<'_>) -> Option<String> {
    Some(match error.kind() {
        ValidationErrorKind::Type { kind } => {
            let mut types: Vec<String> = match kind {
                TypeKind::Single(t) => vec![a_type(*t).to_owned()],
                TypeKind::Multiple(set) => set.iter().map(|t| a_type(t).to_owned()).collect(),
            };
            // "an integer or null", as a person says it.
            types.sort_by_key(|t| t == "null");
            format!("must be {}", either(&types))
        }
        ValidationErrorKind::Maximum { limit } => format!("must be at most {limit}"),
        ValidationErrorKind::Minimum { limit } => format!("must be at least {limit}"),
        ValidationErrorKind::ExclusiveMaximum { limit } => format!("must be less than {limit}"),
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            format!("must be greater than {limit}")
        }
        ValidationErrorKind::MultipleOf { multiple_of } => {
            format!("must be a multiple of {multiple_of}")
        }
        ValidationErrorKind::MaxLength { limit } => {
            format!("must be at most {} long", plural(*limit, "character"))
        }
        ValidationErrorKind::MinLength { limit } => {
            format!("must be at least {} long", plural(*limit, "character"))
        }
        ValidationErrorKind::MaxItems { limit } => {
            format!("must have at most {}", plural(*limit, "item"))
        }
        ValidationErrorKind::MinItems { limit } => {
            format!("must have at least {}", plural(*limit, "item"))
        }
        ValidationErrorKind::AdditionalItems { limit } => {
            format!("must have at most {}", plural(*limit as u64, "item"))
        }
        ValidationErrorKind::MaxProperties { limit } => {
            format!("must have at most {}", plural(*limit, "property"))
                .replace("propertys", "properties")
        }
        ValidationErrorKind::MinProperties { limit } => {
            format!("must have at least {}", plural(*limit, "property"))
                .replace("propertys", "properties")
        }
        ValidationErrorKind::Pattern { pattern } => {
            format!("must match the pattern `{}`", cut(pattern))
        }
        ValidationErrorKind::Format { format } => format!("must be a valid `{format}`"),
        ValidationErrorKind::Enum { options } => match options.as_ref() {
            Value::Array(values) => {
                let values: Vec<String> = values.iter().map(Value::to_string).collect();
                format!("must be one of {}", cut(&values.join(", ")))
            }
            other => format!("must be one of {}", cut(&other.to_string())),
        },
        ValidationErrorKind::Constant { expected_value } => {
            format!("must be {}", cut(&expected_value.to_string()))
        }
        ValidationErrorKind::Required { property } => match property {
            Value::String(p) => format!("must include the property `{p}`"),
            other => format!("must include the property {other}"),
        },
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => format!(
            "must not have {} {} (not in the schema)",
            if unexpected.len() == 1 {
                "the property"
            } else {
                "the properties"
            },
            names(unexpected)
        ),
        ValidationErrorKind::UnevaluatedItems { .. } => {
            "must not have items beyond those the schema describes".to_owned()
        }
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            match forms(context) {
                Some(named) => format!("must be {named}"),
                None => "must match one of the allowed forms".to_owned(),
            }
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            "must match exactly one of the allowed forms, and matches several".to_owned()
        }
        ValidationErrorKind::Not { .. } => "must not match the excluded form".to_owned(),
        ValidationErrorKind::FalseSchema => "is not allowed here".to_owned(),
        ValidationErrorKind::UniqueItems => "must not contain the same item twice".to_owned(),
        ValidationErrorKind::Contains => {
            "must contain at least one item of the required form".to_owned()
        }
        ValidationErrorKind::PropertyNames { .. } => {
            "must not have a property name the schema refuses".to_owned()
        }
        _ => return None,
    })
}

/// The forms a union allows, named, when each branch refused the value for one plain reason: a
/// list of values (`enum`), one value (`const`) or a type (`Option<Status>`: `one of "open",
/// "done", or null`). `None` when a branch refused it for anything else (an object's
/// property, a bound): the forms are then not one word each.
fn forms(branches: &[Vec<ValidationError<'static>>]) -> Option<String> {
    let mut values: Vec<String> = Vec::new();
    let mut types: Vec<String> = Vec::new();
    for errors in branches {
        let [error] = errors.as_slice() else {
            return None;
        };
        match error.kind() {
            ValidationErrorKind::Enum { options } => {
                values.extend(options.as_array()?.iter().map(Value::to_string));
            }
            ValidationErrorKind::Constant { expected_value } => {
                values.push(expected_value.to_string());
            }
            ValidationErrorKind::Type { kind } => match kind {
                TypeKind::Single(t) => types.push(a_type(*t).to_owned()),
                TypeKind::Multiple(set) => types.extend(set.iter().map(|t| a_type(t).to_owned())),
            },
            _ => return None,
        }
    }
    // `null` goes last: "one of "a", "b", or null".
    let null = types.iter().any(|t| t == "null") || values.iter().any(|v| v == "null");
    types.retain(|t| t != "null");
    values.retain(|v| v != "null");
    types.dedup();
    let mut named: Vec<String> = Vec::new();
    if !values.is_empty() {
        named.push(match values.len() {
            1 => values.remove(0),
            _ => format!("one of {}", cut(&values.join(", "))),
        });
    }
    named.extend(types);
    if null {
        named.push("null".to_owned());
    }
    // "one of "a", "b", or null" after a list; "an integer or null" between two words.
    let list_first = named.first().is_some_and(|n| n.starts_with("one of "));
    match named.len() {
        0 => None,
        1 => Some(named.remove(0)),
        2 if !list_first => Some(named.join(" or ")),
        _ => Some(format!(
            "{}, or {}",
            named[..named.len() - 1].join(", "),
            named[named.len() - 1]
        )),
    }
}

/// Whether a rule is about something absent or extra, where "got" the whole object says nothing.
pub fn names_its_own_subject(error: &ValidationError<'_>) -> bool {
    matches!(
        error.kind(),
        ValidationErrorKind::Required { .. }
            | ValidationErrorKind::AdditionalProperties { .. }
            | ValidationErrorKind::UnevaluatedProperties { .. }
    )
}

/// The validator's own sentence, cut, for keywords without a rule of ours.
pub fn fallback(error: &ValidationError<'_>) -> String {
    cut(&error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_values_are_quoted_short_with_their_length() {
        let big = "x".repeat(5_000_000);
        let text = describe(&json!(big));
        assert!(text.len() < 140, "{}", text.len());
        assert!(text.ends_with("…\" (5,000,000 characters)"), "{text}");
        assert_eq!(describe(&json!("3")), "the string \"3\"");
        assert_eq!(describe(&json!(9)), "9");
        assert_eq!(describe(&json!([1])), "an array of 1 item: [1]");
    }

    fn refusal(schema: Value, value: Value) -> Vec<String> {
        let validator = jsonschema::validator_for(&schema).unwrap();
        validator
            .iter_errors(&value)
            .map(|e| rule(&e).unwrap_or_default())
            .collect()
    }

    #[test]
    fn a_union_of_plain_forms_names_them() {
        let status =
            json!({"anyOf": [{"enum": ["open", "in_progress", "done"]}, {"type": "null"}]});
        assert_eq!(
            refusal(status, json!("closed")),
            ["must be one of \"open\", \"in_progress\", \"done\", or null"]
        );
        let scalar = json!({"oneOf": [{"type": "string"}, {"type": "integer"}, {"const": 7.5}]});
        assert_eq!(
            refusal(scalar, json!([1])),
            ["must be 7.5, a string, or an integer"]
        );
        let optional = json!({"anyOf": [{"type": "integer"}, {"type": "null"}]});
        assert_eq!(
            refusal(optional, json!("x")),
            ["must be an integer or null"]
        );
    }

    #[test]
    fn a_union_of_objects_keeps_the_general_words() {
        let union = json!({"anyOf": [
            {"type": "object", "required": ["a"]},
            {"type": "null"}
        ]});
        assert_eq!(
            refusal(union, json!({"b": 1})),
            ["must match one of the allowed forms"]
        );
    }
}
