//! What a spilled keyword says, in words a model reads: `minimum: 0` becomes "at least 0",
//! `maxLength: 8` "at most 8 characters", `enum: [1, 2]` "one of 1, 2". A `format` that only
//! restates the node's type and bounds (schemars' `uint64` beside `minimum: 0`) is not written
//! at all.

use serde_json::Value;

use super::{append_description, json_text};
use crate::adapt::tree::{NodeId, Tree};

/// One spilled keyword as a phrase: the value constraints in words, anything else as
/// `key: value` (values as JSON).
pub(crate) fn in_words(key: &str, value: &Value) -> String {
    let count = |n: &serde_json::Number, one: &str, many: &str| {
        let unit = if n.as_u64() == Some(1) { one } else { many };
        format!("{n} {unit}")
    };
    match (key, value) {
        ("minimum", Value::Number(n)) => format!("at least {n}"),
        ("maximum", Value::Number(n)) => format!("at most {n}"),
        ("exclusiveMinimum", Value::Number(n)) => format!("greater than {n}"),
        ("exclusiveMaximum", Value::Number(n)) => format!("less than {n}"),
        ("multipleOf", Value::Number(n)) => format!("a multiple of {n}"),
        ("minLength", Value::Number(n)) => {
            format!("at least {}", count(n, "character", "characters"))
        }
        ("maxLength", Value::Number(n)) => {
            format!("at most {}", count(n, "character", "characters"))
        }
        ("minItems", Value::Number(n)) => format!("at least {}", count(n, "item", "items")),
        ("maxItems", Value::Number(n)) => format!("at most {}", count(n, "item", "items")),
        ("minProperties", Value::Number(n)) => {
            format!("at least {}", count(n, "property", "properties"))
        }
        ("maxProperties", Value::Number(n)) => {
            format!("at most {}", count(n, "property", "properties"))
        }
        ("uniqueItems", Value::Bool(true)) => "no duplicate items".to_owned(),
        ("pattern", Value::String(p)) => format!("matching the pattern `{p}`"),
        ("format", Value::String(f)) => format!("in {f} format"),
        ("enum", Value::Array(values)) => format!("one of {}", listed(values)),
        ("const", value) => format!("exactly {}", json_text(value)),
        ("default", value) => format!("defaults to {}", json_text(value)),
        ("examples", Value::Array(values)) if !values.is_empty() => {
            format!("for example {}", listed(values))
        }
        _ => format!("{key}: {}", json_text(value)),
    }
}

fn listed(values: &[Value]) -> String {
    let texts: Vec<String> = values.iter().map(json_text).collect();
    texts.join(", ")
}

/// The phrases of `entries` as one sentence ("At least 0; at most 255."), appended to the
/// node's description after a blank line, or made its description. Returns the sentence, which
/// the losses quote.
pub(crate) fn spill(tree: &mut Tree, id: NodeId, entries: &[(String, Value)]) -> String {
    let phrases: Vec<String> = entries
        .iter()
        .filter_map(|(k, v)| {
            // A lower and an upper bound that are equal read as one: "exactly 2 items".
            let pair = |other: &str| {
                let found = entries.iter().find(|(key, _)| key == other);
                found.is_some_and(|(_, w)| w.as_f64().is_some() && w.as_f64() == v.as_f64())
            };
            match k.as_str() {
                "minimum" | "minLength" | "minItems" | "minProperties"
                    if pair(&k.replacen("min", "max", 1)) =>
                {
                    let words = in_words(k, v);
                    Some(words.replacen("at least", "exactly", 1))
                }
                "maximum" | "maxLength" | "maxItems" | "maxProperties"
                    if pair(&k.replacen("max", "min", 1)) =>
                {
                    None
                }
                _ => Some(in_words(k, v)),
            }
        })
        .collect();
    let sentence = sentence(&phrases);
    append_description(tree, id, &sentence, "\n\n");
    sentence
}

/// Phrases joined by `; `, the first capitalized, ended by a period.
fn sentence(phrases: &[String]) -> String {
    let mut text = phrases.join("; ");
    if let Some(first) = text.chars().next().filter(char::is_ascii_lowercase) {
        text.replace_range(..1, &first.to_ascii_uppercase().to_string());
    }
    text.push('.');
    text
}

/// The end of a `spilled` loss's detail: where the reader finds the keyword again.
pub(crate) fn said_as(phrase: &str) -> String {
    format!("{SAID}{phrase}\"")
}

/// What a `spilled` loss's detail says the description holds (the text [`said_as`] wrote).
pub(crate) fn said(detail: &str) -> Option<&str> {
    let (_, phrase) = detail.rsplit_once(SAID)?;
    phrase.strip_suffix('"')
}

const SAID: &str = "; the description says \"";

/// Whether `format` on a node of type `ty` says nothing its type and bounds do not: an integer
/// format whose range the node's `minimum` and `maximum` already state, or whose range lies
/// beyond the integers a JSON number holds exactly (2^53: `int64`, `uint64` beside a minimum of
/// 0), or `double` on a number (a JSON number is one). Such a format is dropped, not spilled.
pub(crate) fn restates_type(
    format: &str,
    ty: Option<&str>,
    minimum: Option<f64>,
    maximum: Option<f64>,
) -> bool {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    let (low, high) = match (format, ty) {
        ("double", Some("number")) => return true,
        (_, Some("integer")) => match format {
            "int8" => (-128.0, 127.0),
            "int16" => (-32_768.0, 32_767.0),
            "int32" => (-2_147_483_648.0, 2_147_483_647.0),
            "uint8" => (0.0, 255.0),
            "uint16" => (0.0, 65_535.0),
            "uint32" => (0.0, 4_294_967_295.0),
            "int64" | "int128" | "int" => (f64::NEG_INFINITY, f64::INFINITY),
            "uint64" | "uint128" | "uint" => (0.0, f64::INFINITY),
            _ => return false,
        },
        _ => return false,
    };
    let low_said = low < -EXACT || minimum.is_some_and(|m| m >= low);
    let high_said = high > EXACT || maximum.is_some_and(|m| m <= high);
    low_said && high_said
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{in_words, restates_type, sentence};

    #[test]
    fn constraints_read_as_words() {
        let cases = [
            ("minimum", json!(0), "at least 0"),
            ("maximum", json!(2.5), "at most 2.5"),
            ("exclusiveMinimum", json!(-1), "greater than -1"),
            ("exclusiveMaximum", json!(10), "less than 10"),
            ("multipleOf", json!(5), "a multiple of 5"),
            ("minLength", json!(1), "at least 1 character"),
            ("maxLength", json!(8), "at most 8 characters"),
            ("minItems", json!(2), "at least 2 items"),
            ("maxItems", json!(1), "at most 1 item"),
            ("maxProperties", json!(3), "at most 3 properties"),
            ("uniqueItems", json!(true), "no duplicate items"),
            (
                "pattern",
                json!("^[a-z]+$"),
                "matching the pattern `^[a-z]+$`",
            ),
            ("format", json!("date-time"), "in date-time format"),
            ("enum", json!([1, "a", null]), "one of 1, \"a\", null"),
            ("const", json!(3), "exactly 3"),
            ("default", json!("x"), "defaults to \"x\""),
            ("examples", json!(["x"]), "for example \"x\""),
            (
                "contentEncoding",
                json!("base64"),
                "contentEncoding: \"base64\"",
            ),
            ("uniqueItems", json!(false), "uniqueItems: false"),
        ];
        for (key, value, words) in cases {
            assert_eq!(in_words(key, &value), words, "{key}");
        }
        let phrases = ["at least 0".to_owned(), "at most 255".to_owned()];
        assert_eq!(sentence(&phrases), "At least 0; at most 255.");
        assert_eq!(sentence(&["`x`".to_owned()]), "`x`.");
        // The detail's end reads back as the sentence (a `"` inside it included).
        let detail = format!(
            "`pattern: \"a\"` is not enforced{}",
            super::said_as("Matching `\"a`.")
        );
        assert_eq!(super::said(&detail), Some("Matching `\"a`."));
        assert_eq!(super::said("no sentence"), None);
    }

    /// schemars' integer formats, with the bounds schemars writes beside them.
    #[test]
    fn formats_that_restate_the_type_and_bounds() {
        let int = Some("integer");
        // u64, usize, i64: past 2^53, with u64's minimum 0 stated.
        assert!(restates_type("uint64", int, Some(0.0), None));
        assert!(restates_type("uint", int, Some(0.0), None));
        assert!(restates_type("int64", int, None, None));
        // u8, u16, i8, i16: both bounds stated.
        assert!(restates_type("uint8", int, Some(0.0), Some(255.0)));
        assert!(restates_type("int16", int, Some(-32768.0), Some(32767.0)));
        assert!(restates_type("uint32", int, Some(1.0), Some(10.0)));
        assert!(restates_type("double", Some("number"), None, None));
        // What the format says beyond them: u32's and i32's limits, a sign, another type.
        assert!(!restates_type("uint32", int, Some(0.0), None));
        assert!(!restates_type("int32", int, None, None));
        assert!(!restates_type("uint64", int, None, None));
        assert!(!restates_type("uint8", int, Some(0.0), Some(1000.0)));
        assert!(!restates_type("int64", Some("string"), None, None));
        assert!(!restates_type("float", Some("number"), None, None));
        assert!(!restates_type("date-time", Some("string"), None, None));
    }
}
