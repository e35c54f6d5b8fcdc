//! The adaptation on a [`Tree`]: read the input once, run the target's rules in order, write the
//! output once. Strict targets fail open; a schema no rule can make acceptable falls back to the
//! empty object.

use std::borrow::Cow;

use serde_json::{Value, json};

use super::report::{Report, finish};
use super::{Rule, Tree};
use crate::adapt::report::{Loss, LossKind, Pointer};
use crate::adapt::settings::{AdaptSettings, TreeRules};
use crate::adapt::{Adapted, SHALLOW, json_depth, nests_deeper_than, stack_for_depth};

/// Adapts `input` with the settings' tree rules. A document nested deeper than the caller's
/// stack may hold (serde_json clones and drops recursively) is adapted on a stack sized for it.
pub(crate) fn adapt<'a>(
    settings: &AdaptSettings,
    rules: &TreeRules,
    input: Cow<'a, Value>,
) -> Adapted<'a> {
    if nests_deeper_than(&input, SHALLOW) {
        let size = stack_for_depth(json_depth(&input));
        return stacker::grow(size, || adapt_here(settings, rules, input));
    }
    adapt_here(settings, rules, input)
}

/// Runs `rules` in order until one finds the schema unrepresentable.
fn run(rules: &mut [Box<dyn Rule>], tree: &mut Tree, report: &mut Report) {
    for rule in rules {
        if report.failed() {
            return;
        }
        report.rule = rule.name();
        rule.apply(tree, report);
    }
}

fn adapt_here<'a>(
    settings: &AdaptSettings,
    rules: &TreeRules,
    input: Cow<'a, Value>,
) -> Adapted<'a> {
    let target = settings.target;
    let shared = |tree: &mut Tree| {
        let mut report = Report::default();
        run(&mut (rules.shared)(settings), tree, &mut report);
        report
    };
    let mut tree = Tree::read(&input);
    let mut report = shared(&mut tree);
    let mut bypass = None;
    if let (Some(strict), false) = (rules.strict, report.failed()) {
        if crate::adapt::no_strict() {
            bypass = Some("strict mode disabled by TOOLSCHEMA_NO_STRICT".to_owned());
        } else {
            run(&mut strict(settings), &mut tree, &mut report);
            match report.take_failure() {
                None => {
                    let (schema, losses, changes) = finish(tree, report);
                    return Adapted {
                        target,
                        schema,
                        strict: Some(true),
                        fallback: false,
                        losses,
                        changes,
                        input,
                    };
                }
                Some(why) => {
                    bypass = Some(format!(
                        "strict mode cannot represent this schema ({why}); sent non-strict"
                    ));
                    // The relaxed form starts from the input again.
                    tree = Tree::read(&input);
                    report = shared(&mut tree);
                }
            }
        }
    }
    if !report.failed() {
        run(&mut (rules.relaxed)(settings), &mut tree, &mut report);
    }
    if let Some(failure) = report.take_failure() {
        // The empty object, as this target sends it, so that the fallback is itself a fixed
        // point of the adaptation.
        let empty = adapt_here(
            settings,
            rules,
            Cow::Owned(json!({"type": "object", "properties": {}})),
        );
        return Adapted {
            target,
            schema: empty.schema,
            strict: empty.strict,
            fallback: true,
            losses: vec![Loss {
                pointer: Pointer::parse(&failure.pointer),
                at: Some(Pointer::root()),
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
    }
    if let Some(why) = bypass {
        report.first_loss(tree.root, "strict", why, "fail-open");
    }
    let (schema, losses, changes) = finish(tree, report);
    Adapted {
        target,
        schema,
        strict: settings.strict_flag.then_some(false),
        fallback: false,
        losses,
        changes,
        input,
    }
}
