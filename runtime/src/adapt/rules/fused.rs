//! Rules that run in one walk of the document instead of one walk each.

use serde_json::Value;

use super::{Held, Rule, RuleReport};
use crate::adapt::visit::{Order, Path, at_root, visit};

/// A rule whose work is done one node at a time, parents before children (its [`Rule::apply`]
/// is a pre-order walk calling [`NodeRule::node`]), that never fails. Only the first rule of a
/// fused group may log branch moves: at each node the later rules run after its moves there and
/// above, and their entries are placed after all of its moves, as when they run after it.
///
/// Rules run one after the other give the same document and report as the same rules fused in
/// one walk ([`Fused`]) when every rule but the first looks only at its node's own keywords
/// (which keys it has, and the values of those that are not schemas: infer-type asks whether
/// `properties` is there, never what it holds) and changes only keywords that are not schemas:
/// then each rule sees every node as the rules before it left it, and nothing a later rule does
/// changes what an earlier one finds below (the earlier rules have not been there yet in the
/// fused walk, and had been in the sequential one).
pub(crate) trait NodeRule: Rule {
    /// The rule's work at one node.
    fn node(&mut self, node: &mut Value, path: &Path<'_>, report: &mut RuleReport);
    /// Whether the rule's work at a node whose keys are among those `held` allows may put a
    /// schema below that node (a new subschema, or the node's keywords moved into one), which
    /// the walk would then visit. The default: it may.
    fn grows_below(&self, held: &Held<'_>) -> bool {
        let _ = held;
        true
    }
}

/// The walk methods of a [`Rule`] that is a [`NodeRule`], in its `impl Rule`: [`Rule::apply`] as
/// [`walk_nodes`], and [`Rule::at_root_alone`] / [`Rule::apply_at_root`] as
/// [`node_at_root_alone`] / [`root_node`].
macro_rules! node_rule_walks {
    () => {
        fn at_root_alone(
            &self,
            root: &$crate::adapt::rules::Held<'_>,
            below: &$crate::adapt::rules::Held<'_>,
        ) -> bool {
            $crate::adapt::rules::fused::node_at_root_alone(self, root, below)
        }

        fn apply_at_root(
            &mut self,
            schema: &mut serde_json::Value,
            report: &mut $crate::adapt::report::RuleReport,
        ) {
            $crate::adapt::rules::fused::root_node(self, schema, report);
        }

        fn apply(
            &mut self,
            schema: &mut serde_json::Value,
            report: &mut $crate::adapt::report::RuleReport,
        ) {
            $crate::adapt::rules::fused::walk_nodes(self, schema, report);
        }
    };
}
pub(crate) use node_rule_walks;

/// A node rule's [`Rule::apply`]: its work at every node, parents first.
pub(crate) fn walk_nodes(rule: &mut dyn NodeRule, schema: &mut Value, report: &mut RuleReport) {
    visit(schema, Order::Pre, &mut |node, path| {
        rule.node(node, path, report)
    });
}

/// A node rule's [`Rule::at_root_alone`]: nothing below the root holds what it wants (its
/// [`Rule::wanted`], asked of the nodes below the root, says no), and its work at the root puts
/// nothing below it.
pub(crate) fn node_at_root_alone(rule: &dyn NodeRule, root: &Held<'_>, below: &Held<'_>) -> bool {
    !rule.wanted(below) && !rule.grows_below(root)
}

/// A node rule's [`Rule::apply_at_root`]: its work at the root alone.
pub(crate) fn root_node(rule: &mut dyn NodeRule, schema: &mut Value, report: &mut RuleReport) {
    at_root(schema, &mut |node, path| rule.node(node, path, report));
}

/// [`NodeRule`]s run in one walk, recording into one report; after the walk the entries the
/// group made are put in the order of its rules (a stable partition), so that the entries,
/// their rule names and their order are those of the rules run one by one.
pub(crate) struct Fused {
    name: &'static str,
    rules: Vec<Box<dyn NodeRule>>,
}

impl Fused {
    /// `rules` in one walk, listed as `name` (the rules' names joined, for the rule lists).
    /// Their names tell their entries apart: no two may be the same.
    pub(crate) fn new(name: &'static str, rules: Vec<Box<dyn NodeRule>>) -> Self {
        for (i, rule) in rules.iter().enumerate() {
            assert!(
                rules[..i].iter().all(|r| r.name() != rule.name()),
                "a fused group names each rule once: {name}"
            );
        }
        Fused { name, rules }
    }
}

impl Rule for Fused {
    fn name(&self) -> &'static str {
        self.name
    }

    fn wanted(&self, held: &Held<'_>) -> bool {
        self.rules.iter().any(|r| r.wanted(held))
    }

    /// What the rules add, each asked with what the document held before the group (a rule
    /// whose writes depend on what it finds names only what it may find: nothing an earlier
    /// rule of the group adds makes a later one write more, which the test of every rule's
    /// declarations checks for the groups the providers use).
    fn adds(&self, held: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        self.rules.iter().all(|r| r.adds(held, add))
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        self.run(schema, report, visit_pre);
    }

    /// Every rule of the group keeps them apart (each asked with what the root held before the
    /// group; a rule whose answer depends on a key an earlier rule of the group writes at the
    /// root would have to be asked again, and none of the groups' rules is).
    fn keeps_root_and_below(&self, root: &Held<'_>) -> bool {
        self.rules.iter().all(|r| r.keeps_root_and_below(root))
    }

    /// Every rule of the group at the root alone.
    fn at_root_alone(&self, root: &Held<'_>, below: &Held<'_>) -> bool {
        self.rules
            .iter()
            .all(|r| node_at_root_alone(r.as_ref(), root, below))
    }

    fn apply_at_root(&mut self, schema: &mut Value, report: &mut RuleReport) {
        self.run(schema, report, at_root);
    }
}

/// A way over the document calling a node callback: the whole walk, or the root alone.
type Walk = fn(&mut Value, &mut dyn FnMut(&mut Value, &Path<'_>));

/// A pre-order walk, as [`Fused::run`] takes it.
fn visit_pre(schema: &mut Value, f: &mut dyn FnMut(&mut Value, &Path<'_>)) {
    visit(schema, Order::Pre, f);
}

/// Where in the group the rule named `rule` is (entries of rules outside the group, made
/// before it, come first).
fn rank(rules: &[Box<dyn NodeRule>], rule: &str) -> usize {
    rules
        .iter()
        .position(|r| r.name() == rule)
        .map_or(0, |i| i + 1)
}

impl Fused {
    /// The group's rules at each node `walk` visits, recording into `report` under their own
    /// names; then the entries made after the first rule's are given the epoch after all of its
    /// moves and put after its entries, in the group's order.
    fn run(&mut self, schema: &mut Value, report: &mut RuleReport, walk: Walk) {
        let Some(first) = self.rules.first() else {
            return;
        };
        let first_name = first.name();
        let (losses, changes) = (report.losses.len(), report.changes.len());
        let moves_at_start = report.moves.len();
        let failed_before = report.failure.is_some();
        let running = report.rule;
        let rules = &mut self.rules;
        walk(schema, &mut |node, path| {
            for (i, rule) in rules.iter_mut().enumerate() {
                report.rule = rule.name();
                let moves = report.moves.len();
                rule.node(node, path, report);
                debug_assert!(
                    i == 0 || report.moves.len() == moves,
                    "a node rule after the first logged a move: it cannot run fused"
                );
            }
        });
        debug_assert!(
            failed_before || report.failure.is_none(),
            "a node rule failed: it cannot run fused"
        );
        report.rule = running;
        // The later rules' entries come after every move the first logged (in the sequential
        // run they are recorded once it has finished; each node's position is the same either
        // way: the moves that change it are at the node or above, made before it was visited).
        let epoch = report.moves_before + report.moves.len();
        if report.moves.len() > moves_at_start {
            let later = |rule: &str| rule != first_name;
            report.losses[losses..]
                .iter_mut()
                .filter(|l| later(l.rule))
                .for_each(|l| l.epoch = epoch);
            report.changes[changes..]
                .iter_mut()
                .filter(|c| later(c.rule))
                .for_each(|c| c.epoch = epoch);
        }
        let rules = &self.rules;
        let in_order = |names: &mut dyn Iterator<Item = &'static str>| {
            names.map(|n| rank(rules, n)).is_sorted()
        };
        if !in_order(&mut report.losses[losses..].iter().map(|l| l.rule)) {
            report.losses[losses..].sort_by_key(|l| rank(rules, l.rule));
        }
        if !in_order(&mut report.changes[changes..].iter().map(|c| c.rule)) {
            report.changes[changes..].sort_by_key(|c| rank(rules, c.rule));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapt::rules::{RemoveSchemaUri, UpgradeDraft07, Xorshift};
    use serde_json::json;

    /// The draft-07 upgrade and the `$schema` removal, fused, give what they give one after the
    /// other: the document, and every entry with its rule, position, detail and order. The
    /// document has the forms the upgrade moves or wraps (`definitions`, tuple `items`,
    /// `dependencies`, `nullable`) with `$schema` keys inside them.
    #[test]
    fn fused_rules_give_what_they_give_one_after_the_other() {
        let doc = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "a": {"$schema": "x", "nullable": true, "properties": {"b": {"$schema": "y"}}},
                "t": {"items": [{"$schema": "z"}, {"type": "string"}], "additionalItems": {"$schema": "w"}},
                "$schema": {"$schema": "name, not keyword"}
            },
            "dependencies": {"a": ["t"], "t": {"$schema": "v", "definitions": {"D": {"$schema": "u"}}}},
            "definitions": {"D": {"$ref": "#/definitions/D", "$schema": "s"}}
        });
        let mut one_by_one = doc.clone();
        let mut sequential = RuleReport::default();
        for mut rule in [
            Box::new(UpgradeDraft07) as Box<dyn Rule>,
            Box::new(RemoveSchemaUri),
        ] {
            let mut one = RuleReport::for_rule(rule.name());
            rule.apply(&mut one_by_one, &mut one);
            sequential.absorb(one);
        }
        let mut fused_doc = doc;
        let mut fused = RuleReport::default();
        Fused::new(
            "upgrade-draft-07, remove-schema-uri",
            vec![Box::new(UpgradeDraft07), Box::new(RemoveSchemaUri)],
        )
        .apply(&mut fused_doc, &mut fused);
        assert_eq!(fused_doc, one_by_one);
        assert_eq!(fused, sequential);
        assert!(sequential.changes.len() > 8, "{:?}", sequential.changes);
    }

    /// A small deterministic generator of schema-like documents from the keywords the fused
    /// rules read or rewrite (xorshift; no dependency).
    struct Gen(u64);

    impl Xorshift for Gen {
        fn state(&mut self) -> &mut u64 {
            &mut self.0
        }
    }

    impl Gen {
        fn scalar(&mut self) -> Value {
            match self.next() % 5 {
                0 => json!(null),
                1 => json!(self.next() % 3),
                2 => json!(self.pick(&["a", "b", ""])),
                3 => json!(true),
                _ => json!(1.5),
            }
        }

        fn schema(&mut self, depth: u32) -> Value {
            let mut map = serde_json::Map::new();
            let n = self.next() % 5;
            for _ in 0..n {
                let key = self.pick(&[
                    "type",
                    "const",
                    "enum",
                    "anyOf",
                    "oneOf",
                    "items",
                    "prefixItems",
                    "properties",
                    "definitions",
                    "$defs",
                    "$schema",
                    "nullable",
                    "not",
                    "if",
                    "pattern",
                    "maxLength",
                    "format",
                    "default",
                    "description",
                    "dependencies",
                    "additionalItems",
                    "$ref",
                    "title",
                ]);
                let sub = depth < 3;
                let value = match key {
                    "type" if self.next() % 2 == 0 => {
                        json!([
                            self.pick(&["string", "object", "array"]),
                            self.pick(&["null", "integer", "string"])
                        ])
                    }
                    "type" => json!(self.pick(&["string", "object", "null", "number"])),
                    "const" | "default" => self.scalar(),
                    "enum" => json!([self.scalar(), self.scalar()]),
                    "anyOf" | "oneOf" if sub => {
                        let consts = self.next() % 2 == 0;
                        let branches: Vec<Value> = (0..1 + self.next() % 3)
                            .map(|_| {
                                if consts {
                                    json!({"const": self.scalar(), "description": "d"})
                                } else {
                                    self.schema(depth + 1)
                                }
                            })
                            .collect();
                        json!(branches)
                    }
                    "items" | "prefixItems" if sub && self.next() % 2 == 0 => {
                        json!([self.schema(depth + 1), self.schema(depth + 1)])
                    }
                    "items" | "not" | "if" | "additionalItems" if sub => self.schema(depth + 1),
                    "properties" | "definitions" | "$defs" | "dependencies" if sub => {
                        let mut m = serde_json::Map::new();
                        for name in ["a", "$schema", "type"] {
                            if self.next() % 2 == 0 {
                                let v = if key == "dependencies" && self.next() % 2 == 0 {
                                    json!(["a"])
                                } else {
                                    self.schema(depth + 1)
                                };
                                m.insert(name.into(), v);
                            }
                        }
                        Value::Object(m)
                    }
                    "$schema" => json!(self.pick(&[
                        "http://json-schema.org/draft-07/schema#",
                        "https://json-schema.org/draft/2020-12/schema"
                    ])),
                    "nullable" => json!(self.next() % 3 != 0),
                    "$ref" => json!(self.pick(&["#/definitions/a", "#/$defs/a", "#"])),
                    "maxLength" => json!(3),
                    _ => json!(self.pick(&["x", "^a$", "date-time"])),
                };
                map.insert(key.into(), value);
            }
            Value::Object(map)
        }
    }

    /// A group's rules, as run one by one and as fused.
    type Group = (Vec<Box<dyn Rule>>, Vec<Box<dyn NodeRule>>);

    /// Google's null handling then type inference, run one by one and fused.
    fn nullable_then_infer(mark_nullable: bool) -> Group {
        use crate::adapt::rules::{GoogleNullable, InferType};
        (
            vec![
                Box::new(GoogleNullable { mark_nullable }),
                Box::new(InferType),
            ],
            vec![
                Box::new(GoogleNullable { mark_nullable }),
                Box::new(InferType),
            ],
        )
    }

    /// Every fused group the providers use gives, on thousands of generated documents, the
    /// document and report of its rules run one after the other.
    #[test]
    fn every_fused_group_equals_its_rules_one_by_one() {
        use crate::adapt::rules::{
            AllConstToEnum, ConstToEnum, InferType, SplitTypeArrays, StripKeywords,
        };
        fn strip() -> StripKeywords {
            StripKeywords {
                name: "strip-test",
                keywords: &["not", "if", "pattern", "maxLength", "format", "title"],
                spill: crate::adapt::rules::keywords::HUMAN_READABLE,
                why: "test",
                keep: |k, v| k == "format" && v == "date-time",
                also_keep: vec!["title".into()],
            }
        }
        let groups: Vec<fn() -> Group> = vec![
            || {
                (
                    vec![Box::new(UpgradeDraft07), Box::new(RemoveSchemaUri)],
                    vec![Box::new(UpgradeDraft07), Box::new(RemoveSchemaUri)],
                )
            },
            || {
                (
                    vec![Box::new(strip()), Box::new(ConstToEnum)],
                    vec![Box::new(strip().node_rule()), Box::new(ConstToEnum)],
                )
            },
            || {
                (
                    vec![Box::new(SplitTypeArrays), Box::new(InferType)],
                    vec![Box::new(SplitTypeArrays), Box::new(InferType)],
                )
            },
            || {
                (
                    vec![
                        Box::new(AllConstToEnum),
                        Box::new(ConstToEnum),
                        Box::new(InferType),
                    ],
                    vec![
                        Box::new(AllConstToEnum),
                        Box::new(ConstToEnum),
                        Box::new(InferType),
                    ],
                )
            },
            || {
                use crate::adapt::rules::{EnsureProperties, PropertyOrdering};
                (
                    vec![Box::new(EnsureProperties), Box::new(PropertyOrdering)],
                    vec![Box::new(EnsureProperties), Box::new(PropertyOrdering)],
                )
            },
            // The first rule logs branch moves (null branches removed, one left merged).
            || nullable_then_infer(true),
            || nullable_then_infer(false),
        ];
        let mut generator = Gen(0x5eed_f00d);
        let (mut changed, mut after_moves) = (0, 0);
        for _ in 0..3_000 {
            let doc = generator.schema(0);
            for group in &groups {
                let (rules, nodes) = group();
                let mut one_by_one = doc.clone();
                let mut sequential = RuleReport::default();
                for mut rule in rules {
                    // As the engine runs them: after the moves of the rules before.
                    let mut one = RuleReport {
                        moves_before: sequential.moves.len(),
                        ..RuleReport::for_rule(rule.name())
                    };
                    rule.apply(&mut one_by_one, &mut one);
                    sequential.absorb(one);
                }
                let mut fused_doc = doc.clone();
                let mut fused = RuleReport::default();
                Fused::new("fused", nodes).apply(&mut fused_doc, &mut fused);
                assert_eq!(fused_doc, one_by_one, "{doc}");
                assert_eq!(fused, sequential, "{doc}");
                changed += usize::from(fused_doc != doc);
                // Entries of a later rule placed after the first rule's moves.
                after_moves += usize::from(
                    !fused.moves.is_empty() && fused.changes.iter().any(|c| c.epoch > 0),
                );
            }
        }
        // The documents exercise the rules: most groups change most of them.
        assert!(changed > 3_000, "{changed}");
        assert!(after_moves > 20, "{after_moves}");
    }
}
