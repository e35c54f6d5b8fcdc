//! Running a rule list, and the plans that let the engine skip its decisions the next time.
//!
//! Which rules of a list run on a document, and how (a walk, the root alone, told what the
//! record knows), is decided from the engine's record of the keywords the document holds
//! ([`Record`]) and from what each rule declares it adds: a function of the record the list
//! starts from, until a rule declares nothing (the document is then scanned again, and what
//! follows depends on it). A list keeps those decisions per starting record ([`Plan`]) and, for
//! the next document that starts with the same record, runs the rules it lists directly: the
//! same rules, in the same order, told the same, without asking each rule of the list whether
//! it is wanted and what it adds (for a small tool, that asking cost as much as one rule's walk).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use serde_json::Value;

use super::holds::{Held, Holds, Record};
use super::report::RuleReport;
use super::rules::Rule;

/// How the engine ran a rule it did not pass over.
#[derive(Clone, Copy)]
enum How {
    /// [`Rule::apply`].
    Walk,
    /// [`Rule::apply_at_root`].
    AtRoot,
    /// [`Rule::apply_held`], told this.
    Told(Held<'static>),
}

/// What a list did from one starting record: the rules that ran and how, and how it ended.
struct Plan {
    ran: Vec<(usize, How)>,
    end: End,
}

#[derive(Clone, Copy)]
enum End {
    /// Every rule was decided: the record after the last one.
    Known(Holds),
    /// The rule before this index declared nothing: the record was dropped, and the rules from
    /// here on are decided on the document.
    Forgot(usize),
}

/// How many plans a list keeps (a thread's lists are reused; a catalog's tools share a few
/// records). Past it, the plans are dropped and kept anew.
const KEPT_PLANS: usize = 256;

/// A rule list with the plans it made.
pub(crate) struct RuleList {
    pub(crate) rules: Vec<Box<dyn Rule>>,
    plans: HashMap<Holds, Plan, BuildHasherDefault<FoldHasher>>,
}

impl RuleList {
    pub(crate) fn new(rules: Vec<Box<dyn Rule>>) -> Self {
        RuleList {
            rules,
            plans: HashMap::default(),
        }
    }

    /// Runs the rules in order on a document, adding to `report`, until one finds it
    /// unrepresentable (after which the record is dropped).
    pub(crate) fn run(&mut self, report: &mut RuleReport, schema: &mut Value, record: &mut Record) {
        let Some(start) = record.state().filter(|_| plans_kept()) else {
            run_from(&mut self.rules, 0, report, schema, record, None);
            return;
        };
        if let Some(plan) = self.plans.get(&start) {
            #[cfg(test)]
            tests::REPLAYED.with(|n| n.set(n.get() + 1));
            for &(index, how) in &plan.ran {
                let rule = self.rules[index].as_mut();
                report.rule = rule.name();
                match how {
                    How::Walk => rule.apply(schema, report),
                    How::AtRoot => rule.apply_at_root(schema, report),
                    How::Told(held) => rule.apply_held(schema, report, &held),
                }
                if report.failure.is_some() {
                    record.forget();
                    return;
                }
            }
            match plan.end {
                End::Known(holds) => record.set(holds),
                End::Forgot(resume) => {
                    record.forget();
                    run_from(&mut self.rules, resume, report, schema, record, None);
                }
            }
            return;
        }
        let mut ran = Vec::new();
        if let Some(end) = run_from(&mut self.rules, 0, report, schema, record, Some(&mut ran)) {
            if self.plans.len() >= KEPT_PLANS {
                self.plans.clear();
            }
            self.plans.insert(start, Plan { ran, end });
        }
    }
}

/// Runs `rules[from..]` as [`RuleList::run`] does without a plan; with `plan`, notes each rule
/// run and how, up to the first rule that declares nothing, and gives how the list ended (`None`
/// when a rule found the document unrepresentable).
fn run_from(
    rules: &mut [Box<dyn Rule>],
    from: usize,
    report: &mut RuleReport,
    schema: &mut Value,
    record: &mut Record,
    mut plan: Option<&mut Vec<(usize, How)>>,
) -> Option<End> {
    let mut end = None;
    for (index, rule) in rules.iter_mut().enumerate().skip(from) {
        let how = step::<false>(report, rule.as_mut(), schema, record);
        if report.failure.is_some() {
            record.forget();
            return None;
        }
        if let (Some(ran), Some(how), None) = (plan.as_deref_mut(), how, end) {
            ran.push((index, how));
        }
        if end.is_none() && record.state().is_none() {
            end = Some(End::Forgot(index + 1));
        }
    }
    // Without a plan to make, the record may have been unknown from the start.
    Some(end.unwrap_or_else(|| record.state().map_or(End::Forgot(rules.len()), End::Known)))
}

/// Runs a strict attempt's leading checks ([`Rule::reads_only`]) in order, each told what the
/// record knows, until one fails; whether all passed.
pub(crate) fn run_checks(
    checks: &mut [Box<dyn Rule>],
    report: &mut RuleReport,
    schema: &mut Value,
    record: &mut Record,
) -> bool {
    checks.iter_mut().all(|check| {
        step::<true>(report, check.as_mut(), schema, record);
        report.failure.is_none()
    })
}

/// Runs one rule, recording in `report` under the rule's name, and says how (`None`: passed
/// over, having nothing to act on by the keywords `record` says the document holds); the caller
/// reads a failure in `report`. `TOLD`: the rule is told what the record knows
/// ([`Rule::apply_held`]), as a strict attempt's leading checks are; other rules are told only
/// when they ask ([`Rule::told`]).
///
/// The rule records straight into `report` (which has no failure yet): what a report of its
/// own, absorbed after, would hold, in the same order and with the same epochs (the moves logged
/// before it are the report's), without making and moving one per rule.
fn step<const TOLD: bool>(
    report: &mut RuleReport,
    rule: &mut dyn Rule,
    schema: &mut Value,
    record: &mut Record,
) -> Option<How> {
    debug_assert!(report.failure.is_none() && report.moves_before == 0);
    if !record.wanted(rule, schema) {
        return None;
    }
    report.rule = rule.name();
    let how = if record.at_root_alone(rule) {
        rule.apply_at_root(schema, report);
        How::AtRoot
    } else if TOLD || rule.told() {
        let held = record.known();
        rule.apply_held(schema, report, &held);
        How::Told(held)
    } else {
        rule.apply(schema, report);
        How::Walk
    };
    record.ran(rule);
    Some(how)
}

/// A hasher for records (four words and a flag): folds each word in with a multiply.
#[derive(Default)]
struct FoldHasher(u64);

impl Hasher for FoldHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_u128(&mut self, word: u128) {
        self.write_u64(word as u64);
        self.write_u64((word >> 64) as u64);
    }

    fn write_u8(&mut self, byte: u8) {
        self.write_u64(u64::from(byte));
    }
}

#[cfg(test)]
thread_local! {
    /// Set by the test that compares the engine with plans against the engine without.
    pub(crate) static NO_PLANS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether lists keep and follow plans: always, but in the tests that make every rule run (a
/// plan would hold their decisions) or that compare with the engine without plans.
fn plans_kept() -> bool {
    #[cfg(test)]
    if NO_PLANS.with(std::cell::Cell::get) {
        return false;
    }
    !super::holds::every_rule_runs()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapt::Target;

    thread_local! {
        /// How many times a list followed a plan on this thread.
        pub(super) static REPLAYED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// A plan made on one document and followed on another that starts with the same record
    /// gives, for every target, what deciding every rule again gives: the schema, the strict
    /// flag, the fallback, and every loss and change with its positions, rule and detail. The
    /// documents (real tools, fuzz fixtures, generated ones) share records often enough that
    /// many of them follow a plan another made; each is adapted twice, the second time
    /// following its own plans.
    #[test]
    fn a_plan_gives_what_deciding_again_gives() {
        stacker::grow(256 << 20, || {
            let docs = crate::adapt::holds::tests::documents();
            for &target in Target::ALL {
                let settings = target.settings();
                if settings.tree.is_some() {
                    // Ported to the tree engine, which has no plans.
                    continue;
                }
                let before = REPLAYED.with(std::cell::Cell::get);
                for doc in &docs {
                    NO_PLANS.with(|f| f.set(true));
                    let decided = settings.adapt(doc);
                    NO_PLANS.with(|f| f.set(false));
                    // The first time, perhaps a plan another document made; the second, the
                    // plans this one made or followed.
                    for _ in 0..2 {
                        let planned = settings.adapt(doc);
                        let what = format!("{target}: {doc}");
                        crate::adapt::holds::tests::assert_same(&planned, &decided, &what);
                    }
                }
                let followed = REPLAYED.with(std::cell::Cell::get) - before;
                assert!(
                    followed > docs.len() * 3 / 2,
                    "{target}: {followed} plans followed"
                );
            }
        });
    }
}
