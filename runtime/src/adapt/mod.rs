//! Provider adapters: one schemars schema in, the form each provider accepts out, with a report
//! of everything the provider will no longer enforce.
//!
//! Each [`Target`] is a value, [`AdaptSettings`] (one constructor per provider): an ordered list
//! of small [`rules`], one provider rule each, and the provider's wire form. Strict targets
//! fail open: when the schema cannot be represented in strict mode, the tool is adapted for the
//! same provider without strict (`strict: Some(false)`) and the reason is a loss entry; never a
//! half-strict schema. A schema that cannot be adapted at all (a non-object root) falls back to
//! the empty object for that tool alone (`fallback: true`).

mod adapted;
mod convert;
mod engine;
mod fixes;
mod limits;
#[cfg(feature = "validate")]
mod meta;
mod pointer;
mod providers;
pub mod report;
pub mod rules;
mod settings;
mod strict_output;
mod target;
mod tree;

use std::sync::OnceLock;

use serde_json::Value;

pub use adapted::{AdaptOptions, Adapted};
pub use convert::{
    CompactConverted, ConvertReport, Converted, ToolReport, convert, convert_compact, convert_for,
    convert_owned, convert_raw, convert_with,
};
pub use limits::{Limit, RequestCheck, RequestLimits, RequestProblem, check_request};
pub use report::{Change, Encoded, Encoding, Loss, LossKind, Pointer, Unrepresentable};
pub use settings::{AdaptSettings, NameRule, StrictBudget, UnknownRule, Wire};
pub use target::{Target, UnknownTarget};

/// `TOOLSCHEMA_NO_STRICT` (`1`, `true`, `yes`, `on`): no strict schema for any target.
fn no_strict() -> bool {
    static FLAG: OnceLock<bool> = OnceLock::new();
    *FLAG.get_or_init(|| {
        std::env::var("TOOLSCHEMA_NO_STRICT").is_ok_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "1" | "true" | "yes" | "on" | "y"
            )
        })
    })
}

/// JSON nesting depth (a scalar is 1, each array or object around it one more), counted
/// without recursion. Only arrays and objects go on the stack: a scalar child adds its level
/// where it stands.
fn json_depth(value: &Value) -> usize {
    let mut deepest = 1;
    let mut stack = vec![(value, 1usize)];
    while let Some((v, d)) = stack.pop() {
        deepest = deepest.max(d);
        let children: &mut dyn Iterator<Item = &Value> = match v {
            Value::Array(items) => &mut items.iter(),
            Value::Object(map) => &mut map.values(),
            _ => continue,
        };
        for c in children {
            match c {
                Value::Array(_) | Value::Object(_) => stack.push((c, d + 1)),
                _ => deepest = deepest.max(d + 1),
            }
        }
    }
    deepest
}

/// The stack that serde_json's recursive clone, drop, parse and print of `value` need, when the
/// caller's may not be enough (`None`: shallow).
pub(crate) fn stack_for(value: &Value) -> Option<usize> {
    nests_deeper_than(value, SHALLOW).then(|| stack_for_depth(json_depth(value)))
}

fn stack_for_depth(depth: usize) -> usize {
    depth.saturating_mul(16 * 1024).saturating_add(1 << 20)
}

/// How deep `value` nests, when deeper than [`SHALLOW`] (`None`: shallow).
#[cfg(feature = "validate")]
pub(crate) fn json_depth_if_deep(value: &Value) -> Option<usize> {
    nests_deeper_than(value, SHALLOW).then(|| json_depth(value))
}

/// Parses JSON text of any nesting depth: deeper than [`SHALLOW`], on a stack grown for it
/// (serde_json parses recursively).
pub(crate) fn parse_deep(text: &str) -> serde_json::Result<Value> {
    let parse = || {
        use serde::Deserialize as _;
        let mut de = serde_json::Deserializer::from_str(text);
        de.disable_recursion_limit();
        let value = Value::deserialize(&mut de)?;
        de.end().map(|()| value)
    };
    match text_depth(text) {
        d if d > SHALLOW => stacker::grow(stack_for_depth(d), parse),
        _ => parse(),
    }
}

/// The nesting depth of JSON text (brackets outside strings), found in one scan of its bytes.
fn text_depth(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut bytes = text.bytes();
    while let Some(b) = bytes.next() {
        match b {
            b'"' => {
                // To the closing quote; an escaped character is skipped with its backslash.
                while let Some(c) = bytes.next() {
                    match c {
                        b'\\' => {
                            bytes.next();
                        }
                        b'"' => break,
                        _ => {}
                    }
                }
            }
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Up to this nesting depth a document is adapted on the caller's stack.
const SHALLOW: usize = 128;

/// Whether `value` nests more than `limit` levels deep (as [`json_depth`] counts them), found
/// without looking below that depth: recursion of at most `limit` frames, no allocation.
fn nests_deeper_than(value: &Value, limit: usize) -> bool {
    // A child one level above the limit is too deep whatever it is; further up, only arrays and
    // objects can be (scalars, most of a schema's values, are not called into).
    let deeper = |v: &Value| {
        limit == 1
            || matches!(v, Value::Array(_) | Value::Object(_)) && nests_deeper_than(v, limit - 1)
    };
    match value {
        _ if limit == 0 => true,
        Value::Array(items) => items.iter().any(deeper),
        Value::Object(map) => map.values().any(deeper),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
