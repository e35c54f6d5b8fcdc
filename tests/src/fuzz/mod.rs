//! Generated-schema fuzzing: every target, every invariant.
//!
//! [`check`] states the invariants for one schema and one target:
//! 1. no panic, and a result within [`TIME_BOUND`] (a non-object root is a reported fallback);
//! 2. the output passes the target's validator (`crate::validators`, written from the providers'
//!    documentation), and 5. `strict: true` only when it does;
//! 3. the report's promises (`crate::promises`): nothing lost without an entry, positions that
//!    resolve, spilled text in a description;
//! 4. idempotence: adapting the output again for the same target changes nothing and loses
//!    nothing;
//! 6. arguments: an instance of the input schema, sent back as the target's model may send it
//!    (a `null` for an optional property under OpenAI strict, an omitted `null` under Cloud Code
//!    Assist), comes back from `restore` valid and equal to the original;
//! 7. the contract checker agrees with an independent implementation ([`oracle`]) on whether the
//!    schema has a structural union;
//! 8. an output that is not the fallback is valid JSON Schema (the 2020-12 meta-schema), whatever
//!    the input: an invalid keyword value is repaired or makes the tool the fallback, never sent
//!    on (Gemini's legacy `parameters`, an OpenAPI `Schema`, is held to its own validator).
//!
//! [`run`] drives a seeded, shrinking search (proptest) and returns the minimized failing case.

pub mod instance;
pub mod oracle;
pub mod schema;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use serde_json::Value;
use toolschema::adapt::LossKind;
use toolschema::contract::{Kind, Severity, check as contract_check};
use toolschema::{Adapted, Target, restore};

use crate::promises::{Positions, report_problems};

/// The targets that encode something with encoding on (each provider file says what).
pub const ENCODING_TARGETS: &[Target] = &[
    Target::OpenAiStrict,
    Target::OpenAiResponses,
    Target::AnthropicStrict,
    Target::DeepSeekStrict,
    Target::Xai,
    Target::GeminiCompat,
    Target::GeminiOpenApi,
    Target::CcaClaude,
];

/// How long one adaptation may take before it counts as a hang.
pub const TIME_BOUND: Duration = Duration::from_secs(2);

/// A failing case, minimized.
#[derive(Debug)]
pub struct Finding {
    /// The target it fails for.
    pub target: Target,
    /// The seed of the run.
    pub seed: u64,
    /// The minimized schema.
    pub schema: Value,
    /// Which invariant, and how.
    pub message: String,
}

fn adapt_bounded(schema: &Value, target: Target, encode: bool) -> Result<Adapted<'_>, String> {
    let start = Instant::now();
    let settings = target.settings().with_encoding(encode);
    let adapted = catch_unwind(AssertUnwindSafe(|| settings.adapt(schema)))
        .map_err(|_| "adapt panicked".to_owned())?;
    let took = start.elapsed();
    if took > TIME_BOUND {
        return Err(format!("adapt took {took:?} (bound {TIME_BOUND:?})"));
    }
    Ok(adapted)
}

/// Every invariant for one schema and one target.
pub fn check(schema: &Value, target: Target) -> Result<(), String> {
    check_with(schema, target, false)
}

/// Every invariant for one schema and one target, with encoding on or off
/// ([`toolschema::adapt::AdaptSettings::with_encoding`]). With it on, invariant 6 sends the
/// instance encoded ([`toolschema::encode`]), checks it against the adapted schema, and restores it.
pub fn check_with(schema: &Value, target: Target, encode: bool) -> Result<(), String> {
    // 1.
    let adapted = adapt_bounded(schema, target, encode)?;
    if !adapted.fallback && adapted.schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err("a non-object output root without the fallback".into());
    }
    // 2, 3, 5.
    let problems = report_problems(schema, &adapted, Positions::Resolve);
    if !problems.is_empty() {
        return Err(format!("report promises: {problems:#?}"));
    }
    // 4.
    let again = adapt_bounded(&adapted.schema, target, encode)?;
    if again.schema != adapted.schema {
        return Err(format!(
            "not idempotent: adapting the output again gives\n{:#}",
            again.schema
        ));
    }
    // A schema strict mode cannot represent is refused again, for the same reason, and a kept
    // structural union is reported again where it was: those entries are the same answer, not
    // a new loss.
    let refused_before = adapted
        .losses
        .iter()
        .any(|l| l.kind == LossKind::Fallback && l.keyword == "strict");
    let kept_before = |again: &toolschema::adapt::Loss| {
        again.rule == "structural-union-kept"
            && adapted
                .losses
                .iter()
                .any(|l| l.rule == again.rule && l.at == again.at && l.detail == again.detail)
    };
    let same_answer = |l: &toolschema::adapt::Loss| {
        (refused_before && l.kind == LossKind::Fallback && l.keyword == "strict") || kept_before(l)
    };
    if let Some(l) = again.losses.iter().find(|l| !same_answer(l)) {
        return Err(format!(
            "not idempotent: adapting the output again loses {l:?}"
        ));
    }
    if again.strict != adapted.strict {
        return Err(format!(
            "not idempotent: strict {:?}, then {:?}",
            adapted.strict, again.strict
        ));
    }
    // 8.
    if !adapted.fallback && sent_as_json_schema(&adapted) && !meta_valid(&adapted.schema) {
        let e = jsonschema::meta::validate(&adapted.schema)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        return Err(format!(
            "an output that is not the fallback is not valid JSON Schema 2020-12: {e}"
        ));
    }
    // 6.
    arguments_round_trip(schema, &adapted)?;
    // 7. (on a valid schema: an invalid one's unions have no agreed reading, and `lint` says
    // it is invalid first)
    if !meta_valid(schema) {
        return Ok(());
    }
    let checker = contract_check(schema)
        .iter()
        .any(|v| v.kind == Kind::StructuralUnion && v.severity == Severity::Error);
    let independent = oracle::has_structural_union(schema);
    if checker != independent {
        return Err(format!(
            "contract::check says structural union: {checker}, the independent oracle: {independent}"
        ));
    }
    Ok(())
}

/// Whether the target sends the schema as JSON Schema (Gemini's legacy `parameters` is
/// OpenAPI's `Schema` message, with `nullable` and no boolean subschemas: its own validator
/// holds it to that).
fn sent_as_json_schema(adapted: &Adapted) -> bool {
    adapted.target != Target::GeminiOpenApi
}

/// Whether `schema` is valid against the meta-schema of its dialect (2020-12 where it names
/// none: every target removes `$schema`).
fn meta_valid(schema: &Value) -> bool {
    jsonschema::meta::validator_for(schema)
        .map(|v| v.is_valid(schema))
        .unwrap_or_else(|_| jsonschema::draft202012::meta::is_valid(schema))
}

/// The instance as the target's model may send it back: the nulls and omissions the rewrite
/// allows, at the root's properties, as the report's changes name them.
fn as_sent(instance: &Value, adapted: &Adapted) -> Value {
    let mut sent = instance.clone();
    let Value::Object(map) = &mut sent else {
        return sent;
    };
    for change in &adapted.changes {
        let Some(name) = change.pointer.strip_prefix("/properties/") else {
            continue;
        };
        if name.contains('/') {
            continue;
        }
        let name = name.replace("~1", "/").replace("~0", "~");
        match change.rule {
            "close-objects" if !map.contains_key(&name) => {
                map.insert(name, Value::Null);
            }
            "nullable-properties-optional" if map.get(&name) == Some(&Value::Null) => {
                map.remove(&name);
            }
            _ => {}
        }
    }
    sent
}

/// `schema` with `additionalProperties: false` written into every object node that leaves it
/// out (following subschema keywords only, and not into `not`, whose meaning that would turn
/// around).
fn closed_where_absent(schema: &Value) -> Value {
    fn close(v: &mut Value, depth: usize) {
        let Value::Object(m) = v else {
            return;
        };
        if depth > 200 {
            return;
        }
        let object = m.contains_key("properties") || m.get("type").is_some_and(|t| t == "object");
        if object && !m.contains_key("additionalProperties") {
            m.insert("additionalProperties".into(), Value::Bool(false));
        }
        for (k, x) in m.iter_mut() {
            match k.as_str() {
                "items"
                | "additionalProperties"
                | "contains"
                | "propertyNames"
                | "if"
                | "then"
                | "else"
                | "additionalItems"
                | "unevaluatedItems"
                | "unevaluatedProperties" => close(x, depth + 1),
                "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                    for y in x.as_array_mut().into_iter().flatten() {
                        close(y, depth + 1);
                    }
                }
                "properties" | "patternProperties" | "$defs" | "definitions"
                | "dependentSchemas" => {
                    for y in x.as_object_mut().into_iter().flat_map(|o| o.values_mut()) {
                        close(y, depth + 1);
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = schema.clone();
    close(&mut out, 0);
    out
}

fn arguments_round_trip(schema: &Value, adapted: &Adapted) -> Result<(), String> {
    // Formats asserted, as `restore` asserts them.
    let Ok(validator) = jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
    else {
        return Ok(()); // a schema the validator cannot compile has no instances to send
    };
    for with_optional in [false, true] {
        let original = instance::instance(schema, schema, with_optional, 0);
        if !validator.is_valid(&original) {
            continue;
        }
        let sent = if adapted.encoded.is_empty() {
            as_sent(&original, adapted)
        } else {
            let sent = toolschema::encode(adapted, original.clone());
            // Gemini's forms say null with OpenAPI's `nullable`, which a JSON Schema validator
            // reads as an unknown keyword: they are held to their own validators (invariant 2).
            let json_schema_nulls =
                !matches!(adapted.target, Target::GeminiCompat | Target::GeminiOpenApi);
            // A `collapsed` loss says values of some form are no longer accepted at all; a loss
            // under a `not` (a union widened there) narrows what the node takes, and so does one
            // in a definition when a `$ref` under a `not` may reach it.
            // A node typed from its keywords (`properties` → `object`) no longer takes the other
            // types it took untyped: a change strict modes make by design, reported.
            let walk = toolschema::walk::Walk::new(schema);
            let negated_ref = (walk.nodes.iter().enumerate()).any(|(i, (node, _))| {
                node.get("$ref").is_some()
                    && (walk.steps(i).iter())
                        .any(|s| matches!(s, toolschema::walk::Step::Keyword("not")))
            });
            let in_definition =
                |p: &str| p.starts_with("/$defs/") || p.starts_with("/definitions/");
            let narrowed = (adapted.losses.iter()).any(|l| {
                l.kind == LossKind::Collapsed
                    || l.pointer.contains("/not")
                    || (negated_ref && in_definition(&l.pointer))
            }) || adapted.changes.iter().any(|c| c.rule == "infer-type")
                // Strict modes close every object that leaves `additionalProperties` out (by
                // design: the serde struct's reading), so a value the original takes only
                // through such an object's openness is not the adapted schema's.
                || (jsonschema::options().should_validate_formats(true))
                    .build(&closed_where_absent(schema))
                    .is_ok_and(|closed| !closed.is_valid(&original));
            if json_schema_nulls
                && !narrowed
                // Read with formats asserted (as the instances were generated: a `not` of a
                // format refuses otherwise) or not (an input of draft-07, where `uuid` is no
                // format, upgraded to 2020-12, where it is): the shape is what is checked here.
                && let Ok(asserted) = (jsonschema::options().should_validate_formats(true))
                    .build(&adapted.schema)
                && let Ok(annotated) = jsonschema::options().build(&adapted.schema)
                && !(asserted.is_valid(&sent) || annotated.is_valid(&sent))
            {
                return Err(format!(
                    "encode gave {sent} (from {original}), which the adapted schema refuses"
                ));
            }
            sent
        };
        let back = restore(adapted, sent.clone())
            .map_err(|e| format!("restore refused {sent} (from {original}): {e}"))?;
        if !validator.is_valid(&back) {
            return Err(format!("restore returned {back}, which the input refuses"));
        }
        // Encoded, a strict form may carry a nested optional member as `null` (encode fills
        // the nulls strict mode requires); where the input takes that `null` too (both values
        // are valid), the wire cannot tell it from an absent member at any depth.
        let nested_nulls = !adapted.encoded.is_empty() && same_up_to_nulls(&original, &back);
        if !nested_nulls && !same_up_to_indistinct_nulls(&original, &back, schema) {
            return Err(format!(
                "restore returned {back}, not the original {original}"
            ));
        }
    }
    Ok(())
}

/// Equal, except that a member may be `null` on one side and absent on the other, at any depth.
fn same_up_to_nulls(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.keys()
                .chain(y.keys())
                .all(|k| match (x.get(k), y.get(k)) {
                    (Some(v), Some(w)) => same_up_to_nulls(v, w),
                    (Some(v), None) | (None, Some(v)) => v.is_null(),
                    (None, None) => true,
                })
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same_up_to_nulls(v, w))
        }
        _ => a == b,
    }
}

/// Equal, except that an optional root property that accepts `null` may be `null` on one side
/// and absent on the other: the provider's wire cannot tell them apart.
fn same_up_to_indistinct_nulls(original: &Value, back: &Value, schema: &Value) -> bool {
    if original == back {
        return true;
    }
    let (Value::Object(o), Value::Object(b)) = (original, back) else {
        return false;
    };
    // Asked of the whole input (its draft, its definitions), with nothing required.
    let accepts_null = |name: &str| {
        let mut probe_schema = schema.clone();
        if let Value::Object(m) = &mut probe_schema {
            m.shift_remove("required");
        }
        schema.get("properties").and_then(|p| p.get(name)).is_some()
            && jsonschema::options()
                .build(&probe_schema)
                .is_ok_and(|v| v.is_valid(&serde_json::json!({ name: null })))
    };
    let required = |name: &str| {
        schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|x| x == name))
    };
    // Null and absent are one answer for an optional property that accepts null, where the
    // wire has only one of them (OpenAI strict: null; Cloud Code Assist: absent).
    let same = |k: &str, a: Option<&Value>, b: Option<&Value>| match (a, b) {
        (Some(x), Some(y)) => x == y,
        (None, Some(v)) | (Some(v), None) => v.is_null() && !required(k) && accepts_null(k),
        (None, None) => true,
    };
    o.keys()
        .chain(b.keys())
        .all(|k| same(k, o.get(k), b.get(k)))
}

/// How long one case may run before the run is stopped as hung. [`TIME_BOUND`] catches a slow
/// case once it returns; a case that never returns is caught here, with its schema printed.
pub const HANG_BOUND: Duration = Duration::from_secs(60);

/// Watches the case in progress from a second thread: a case running longer than
/// [`HANG_BOUND`] ends the process (exit 1) after printing the schema, so a hang is a finding
/// with its input instead of a run that never ends.
#[derive(Default)]
struct Watchdog {
    current: std::sync::Mutex<Option<(Instant, Value)>>,
    stopped: std::sync::atomic::AtomicBool,
}

impl Watchdog {
    fn start(&self, doc: &Value) {
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((Instant::now(), doc.clone()));
    }

    fn finish(&self) {
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    fn stop(&self) {
        self.stopped
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    fn watch(&self, target: Target, seed: u64) {
        while !self.stopped.load(std::sync::atomic::Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(200));
            let current = self.current.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((started, doc)) = current.as_ref()
                && started.elapsed() > HANG_BOUND
            {
                eprintln!(
                    "{target}: FINDING (seed {seed:#x}): a case ran over {HANG_BOUND:?} (a hang; not minimized)\n{doc:#}"
                );
                std::process::exit(1);
            }
        }
    }
}

/// Runs `cases` generated schemas through [`check`] for `target`, from `seed`; `progress` is
/// called with each case's number. On failure, the case is minimized.
pub fn run(
    target: Target,
    cases: u32,
    seed: u64,
    progress: &mut dyn FnMut(u32),
) -> Result<(), Box<Finding>> {
    run_with(target, false, cases, seed, progress)
}

/// [`run`] with encoding on or off ([`check_with`]).
pub fn run_with(
    target: Target,
    encode: bool,
    cases: u32,
    seed: u64,
    progress: &mut dyn FnMut(u32),
) -> Result<(), Box<Finding>> {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..16].copy_from_slice(&(target as u64).to_le_bytes());
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes));
    // proptest's test closure is `Fn`: count and report through a cell.
    let n = std::cell::Cell::new(0u32);
    let progress = std::cell::RefCell::new(progress);
    // A crash the process cannot catch (a stack overflow, an abort) leaves its case here.
    let last = std::env::var_os("FUZZ_LAST");
    let watchdog = Watchdog::default();
    let result = std::thread::scope(|scope| {
        scope.spawn(|| watchdog.watch(target, seed));
        let result = runner.run(&schema::document(), |doc| {
            if let Some(path) = &last {
                let _ = std::fs::write(path, format!("{target}\n{doc:#}"));
            }
            n.set(n.get() + 1);
            (progress.borrow_mut())(n.get());
            watchdog.start(&doc);
            let outcome = check_with(&doc, target, encode).map_err(TestCaseError::fail);
            watchdog.finish();
            outcome
        });
        watchdog.stop();
        result
    });
    match result {
        Ok(()) => Ok(()),
        Err(TestError::Fail(reason, schema)) => Err(Box::new(Finding {
            target,
            seed,
            message: reason.to_string(),
            schema,
        })),
        Err(TestError::Abort(reason)) => Err(Box::new(Finding {
            target,
            seed,
            message: format!("aborted: {reason}"),
            schema: Value::Null,
        })),
    }
}
