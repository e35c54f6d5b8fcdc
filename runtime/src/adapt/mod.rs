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
mod holds;
mod plan;
mod pointer;
mod pointers;
mod providers;
pub mod report;
pub mod rules;
mod settings;
mod target;
#[doc(hidden)]
pub mod tree;
mod visit;

use std::borrow::Cow;
use std::sync::OnceLock;

use serde_json::{Value, json};

pub use adapted::{AdaptOptions, Adapted};
pub use convert::{
    CompactConverted, ConvertReport, Converted, ToolReport, convert, convert_compact, convert_for,
    convert_owned, convert_raw, convert_with,
};
use holds::{Holds, Record};
pub use report::{Change, Loss, LossKind, Pointer, RuleReport, Unrepresentable};
pub use settings::{AdaptSettings, NameRule, StrictBudget, Wire};
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

/// The engine behind [`AdaptSettings::adapt`]: the input is kept as [`Adapted::input`] as it
/// was given (borrowed or owned) and copied once for the output (once more when a strict
/// attempt is refused after rewriting).
///
/// serde_json clones and drops values recursively, so for deeply nested input the work runs on
/// a stack sized for it (`stacker`). The caller still drops the result on its own stack.
///
/// The scan of the keywords the input holds (rules with nothing to act on are passed over,
/// [`Rule::wanted`]; rules whose work is at the root alone run there, [`Rule::at_root_alone`])
/// is also what finds it shallow: it stops at [`SHALLOW`], so that a shallow document is looked
/// at once before it is copied.
///
/// The scan notes the facts of OpenAI's strict limits only for settings whose rules read them
/// ([`Rule::reads_limits`]).
fn engine<'a>(settings: &AdaptSettings, input: Cow<'a, Value>) -> Adapted<'a> {
    if let Some(rules) = &settings.tree {
        return tree::adapt(settings, rules, input);
    }
    settings.with_rules(|rules| {
        let holds = if rules.limits {
            Holds::of_shallow::<true>(&input, SHALLOW)
        } else {
            Holds::of_shallow::<false>(&input, SHALLOW)
        };
        if let Some(holds) = holds {
            return adapt_on_this_stack(settings, rules, input, Some(holds));
        }
        adapt_deep(settings, rules, input)
    })
}

/// [`engine`] for a document deeper than [`SHALLOW`]: on a stack sized for it (the copy is made
/// there too: serde_json clones recursively). The scan and the depth the stack is sized from
/// are one pass, without recursion. Out of line, so that the shallow path's code is not laid
/// out around the stack switch.
#[inline(never)]
#[cold]
fn adapt_deep<'a>(
    settings: &AdaptSettings,
    rules: &mut settings::Built,
    input: Cow<'a, Value>,
) -> Adapted<'a> {
    let (holds, depth) = if rules.limits {
        Holds::of_deep::<true>(&input)
    } else {
        Holds::of_deep::<false>(&input)
    };
    crate::stack::grow(stack_for_depth(depth), move || {
        adapt_on_this_stack(settings, rules, input, Some(holds))
    })
}

/// The stack that serde_json's recursive clone, drop, parse and print of `value` need, when the
/// caller's may not be enough (`None`: shallow).
pub(crate) fn stack_for(value: &Value) -> Option<usize> {
    nests_deeper_than(value, SHALLOW).then(|| stack_for_depth(json_depth(value)))
}

fn stack_for_depth(depth: usize) -> usize {
    depth.saturating_mul(16 * 1024).saturating_add(1 << 20)
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
        d if d > SHALLOW => crate::stack::grow(stack_for_depth(d), parse),
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

fn adapt_on_this_stack<'a>(
    settings: &AdaptSettings,
    rules: &mut settings::Built,
    input: Cow<'a, Value>,
    holds: Option<Holds>,
) -> Adapted<'a> {
    let (mut adapted, moves) = adapt_with(settings, rules, input, holds);
    // Every pointer names a place in the input, every `at` one in the output.
    pointers::locate(
        &adapted.input,
        &adapted.schema,
        &mut adapted.losses,
        &mut adapted.changes,
        &moves,
    );
    adapted
}

/// The adaptation with its positions as the rules recorded them, and the branch moves the
/// rules logged (to take those positions back to the input).
///
/// The input is copied once: the rules both forms share run on the copy, then the strict
/// attempt's leading checks ([`Rule::reads_only`]) read it; only when they pass does the strict
/// attempt rewrite it in place. A strict attempt refused later starts again from the input.
///
/// `holds`: what the input holds, when it has been scanned already.
fn adapt_unlocated<'a>(
    settings: &AdaptSettings,
    input: Cow<'a, Value>,
    holds: Option<Holds>,
) -> (Adapted<'a>, Vec<report::BranchMove>) {
    settings.with_rules(|rules| adapt_with(settings, rules, input, holds))
}

/// [`adapt_unlocated`] with the settings' rule lists.
fn adapt_with<'a>(
    settings: &AdaptSettings,
    rules: &mut settings::Built,
    input: Cow<'a, Value>,
    holds: Option<Holds>,
) -> (Adapted<'a>, Vec<report::BranchMove>) {
    let target = settings.target;
    let strict_flag = |ok: bool| settings.strict_flag.then_some(ok);
    let settings::Built {
        shared: shared_rules,
        strict: strict_rules,
        relaxed: relaxed_rules,
        ..
    } = rules;
    let mut shared = |out: &mut Value, record: &mut Record| {
        let mut report = RuleReport::default();
        shared_rules.run(&mut report, out, record);
        report
    };
    let mut out = Value::clone(&input);
    let mut record = Record::new(holds);
    let mut report = shared(&mut out, &mut record);
    let mut bypass = None;
    if let (Some(strict_rules), None) = (strict_rules, &report.failure) {
        if no_strict() {
            bypass = Some("strict mode disabled by TOOLSCHEMA_NO_STRICT".to_owned());
        } else {
            let settings::Strict { checks, rewrites } = strict_rules;
            let mut attempt = std::mem::take(&mut report);
            let passed = plan::run_checks(checks, &mut attempt, &mut out, &mut record);
            if passed {
                rewrites.run(&mut attempt, &mut out, &mut record);
            }
            match attempt.failure.take() {
                None => {
                    let adapted = Adapted {
                        target,
                        schema: out,
                        strict: Some(true),
                        fallback: false,
                        losses: attempt.losses,
                        changes: attempt.changes,
                        input,
                    };
                    return (adapted, attempt.moves);
                }
                Some(why) => {
                    bypass = Some(format!(
                        "strict mode cannot represent this schema ({why}); sent non-strict"
                    ));
                    if passed {
                        // Refused after rewriting: the relaxed form starts from the input again.
                        out = Value::clone(&input);
                        record = Record::new(holds);
                        report = shared(&mut out, &mut record);
                    } else {
                        // Refused by a check, which records nothing but its failure: the
                        // shared rules' output and report go on as they are.
                        report = attempt;
                    }
                }
            }
        }
    }
    if report.failure.is_none() {
        relaxed_rules.run(&mut report, &mut out, &mut record);
    }
    if let Some(failure) = report.failure.take() {
        // The empty object, as this target sends it (closed and strict where the target is), so
        // that the fallback is itself a fixed point of the adaptation.
        let (empty, _) = adapt_unlocated(
            settings,
            Cow::Owned(json!({"type": "object", "properties": {}})),
            None,
        );
        let adapted = Adapted {
            target,
            schema: empty.schema,
            strict: empty.strict,
            fallback: true,
            losses: vec![Loss {
                pointer: Pointer::parse(&failure.pointer),
                at: None,
                keyword: "root".into(),
                kind: LossKind::Fallback,
                detail: format!(
                    "the schema was replaced by the empty object: {}",
                    failure.reason
                ),
                rule: "fallback",
                epoch: 0,
            }],
            changes: Vec::new(),
            input,
        };
        return (adapted, Vec::new());
    }
    if let Some(why) = bypass {
        report.losses.insert(
            0,
            Loss {
                pointer: Pointer::root(),
                at: None,
                keyword: "strict".into(),
                kind: LossKind::Fallback,
                detail: why,
                rule: "fail-open",
                epoch: 0,
            },
        );
    }
    let adapted = Adapted {
        target,
        schema: out,
        strict: strict_flag(false),
        fallback: false,
        losses: report.losses,
        changes: report.changes,
        input,
    };
    (adapted, report.moves)
}

#[cfg(test)]
mod tests;
