//! The adaptation on a [`Tree`]: read the input once, run the target's rules in order, write the
//! output once. Strict targets fail open; a schema no rule can make acceptable falls back to the
//! empty object.

use std::borrow::Cow;

use serde_json::{Value, json};

use super::report::{Loss, LossKind, Pointer, Unrepresentable};
use super::rules::{Rule, ValidKeywords};
use super::settings::AdaptSettings;
use super::strict_output::StrictOutput;
use super::tree::report::{Finished, finish_all};
use super::tree::{Report, Tree};
use super::{Adapted, SHALLOW, json_depth, nests_deeper_than, stack_for_depth};

/// Adapts `input` with the settings' tree rules. A document nested deeper than the caller's
/// stack may hold (serde_json clones and drops recursively) is adapted on a stack sized for it.
pub(crate) fn adapt<'a>(settings: &AdaptSettings, input: Cow<'a, Value>) -> Adapted<'a> {
    if nests_deeper_than(&input, SHALLOW) {
        let size = stack_for_depth(json_depth(&input));
        return stacker::grow(size, || adapt_here(settings, input));
    }
    adapt_here(settings, input)
}

/// Runs `rules` in order until one finds the schema unrepresentable; whether a rule that may
/// change the tree ran ([`Rule::reads_only`]).
pub(crate) fn run(rules: &mut [Box<dyn Rule>], tree: &mut Tree, report: &mut Report) -> bool {
    let mut changed = false;
    for rule in rules {
        if report.failed() {
            break;
        }
        changed |= !rule.reads_only();
        report.rule = rule.name();
        rule.apply(tree, report);
    }
    changed
}

fn adapt_here<'a>(settings: &AdaptSettings, input: Cow<'a, Value>) -> Adapted<'a> {
    let target = settings.target;
    let shared = |tree: &mut Tree| {
        let mut report = Report::default();
        // Validity first, on every target and whatever a caller composed: a keyword whose
        // value is not of the kind the meta-schema gives it is repaired or refuses the schema.
        report.rule = ValidKeywords.name();
        ValidKeywords.apply(tree, &mut report);
        run(
            &mut settings.build(settings.shared, false),
            tree,
            &mut report,
        );
        report
    };
    let mut tree = Tree::read(&input);
    let mut report = shared(&mut tree);
    let mut bypass = None;
    if let (Some(strict), false) = (settings.strict, report.failed()) {
        if crate::adapt::no_strict() {
            bypass = Some("strict mode disabled by TOOLSCHEMA_NO_STRICT".to_owned());
        } else {
            let changed = run(&mut settings.build(strict, true), &mut tree, &mut report);
            match report.take_failure(&tree) {
                None => {
                    let done = finish_all(tree, report);
                    // The written schema, after the caller's rules too, is what the provider
                    // checks: `strict: true` only when it passes.
                    let refused =
                        StrictOutput::of(settings).and_then(|check| check.refusal(&done.schema));
                    let Some(why) = refused else {
                        return Adapted {
                            target,
                            schema: done.schema,
                            strict: Some(true),
                            fallback: false,
                            losses: done.losses,
                            changes: done.changes,
                            encoded: done.encoded,
                            input,
                        };
                    };
                    bypass = Some(format!(
                        "the schema these settings write is not one strict mode accepts ({why}); sent non-strict. {}",
                        super::fixes::COMPOSED
                    ));
                    tree = Tree::read(&input);
                    report = shared(&mut tree);
                }
                Some((why, _)) => {
                    // Encoding is offered only where it makes this tool strict.
                    let encoding_works = !settings.encode
                        && (settings.clone().with_encoding(true))
                            .adapt(&input)
                            .strict
                            .is_some_and(|s| s);
                    let fix = super::fixes::sentence(why.fix.as_deref(), encoding_works)
                        .map(|f| format!(". {f}"))
                        .unwrap_or_default();
                    bypass = Some(format!(
                        "strict mode cannot represent this schema ({why}); sent non-strict{fix}"
                    ));
                    // Refused by a check before anything was rewritten, the relaxed form goes
                    // on from the shared rules' tree; else it starts from the input again.
                    if changed {
                        tree = Tree::read(&input);
                        report = shared(&mut tree);
                    }
                }
            }
        }
    }
    if !report.failed() {
        run(
            &mut settings.build(settings.relaxed, true),
            &mut tree,
            &mut report,
        );
    }
    if let Some(why) = bypass {
        report.first_loss(tree.root, "strict", why, "fail-open");
    }
    // A refusal is named where the refused node stood in the input.
    let mut failure = report
        .take_failure(&tree)
        .map(|(why, input)| (why.reason, input));
    let mut written = None;
    if failure.is_none() {
        let done = finish_all(tree, report);
        let schema = &done.schema;
        if settings.meta_validate {
            // An output place that is not in the input is named by the root.
            failure = meta_failure(schema).map(|why| {
                let pointer = Pointer::parse(&why.pointer);
                let input_place = input.pointer(pointer.as_str()).is_some();
                (
                    why.reason,
                    if input_place {
                        pointer
                    } else {
                        Pointer::root()
                    },
                )
            });
        }
        written = Some(done);
    }
    if let Some((reason, pointer)) = failure {
        // The empty object, as this target sends it, so that the fallback is itself a fixed
        // point of the adaptation.
        let empty = adapt_here(
            settings,
            Cow::Owned(json!({"type": "object", "properties": {}})),
        );
        return Adapted {
            target,
            schema: empty.schema,
            strict: empty.strict,
            fallback: true,
            losses: vec![Loss {
                pointer,
                at: Some(Pointer::root()),
                keyword: "root".into(),
                kind: LossKind::Fallback,
                detail: format!("the schema was replaced by the empty object: {reason}"),
                rule: "fallback",
            }],
            changes: Vec::new(),
            encoded: Vec::new(),
            input,
        };
    }
    let Finished {
        schema,
        losses,
        changes,
        encoded,
    } = written.expect("written when nothing failed");
    Adapted {
        target,
        schema,
        strict: settings.strict_flag.then_some(false),
        fallback: false,
        losses,
        changes,
        encoded,
        input,
    }
}

/// Why `schema` is not a valid JSON Schema 2020-12 document (checked against the bundled
/// meta-schema; nothing is fetched). Without the `validate` feature nothing is checked.
fn meta_failure(schema: &Value) -> Option<Unrepresentable> {
    #[cfg(feature = "validate")]
    {
        // The yes-or-no answer first (it builds no error); the first error only for a schema
        // that fails. A document without `$schema` is checked against 2020-12's meta-schema
        // read as one document, which accepts exactly what the published one accepts.
        let valid = if schema.get("$schema").is_some() {
            jsonschema::meta::is_valid(schema)
        } else {
            crate::adapt::meta::is_valid(schema)
        };
        if valid {
            return None;
        }
        let e = jsonschema::meta::validate(schema).err()?;
        Some(Unrepresentable {
            pointer: e.instance_path().to_string(),
            reason: format!("not a valid JSON Schema 2020-12 document: {e}"),
            fix: None,
        })
    }
    #[cfg(not(feature = "validate"))]
    {
        let _ = schema;
        None
    }
}
