//! Which keywords a document holds, found in one scan, so that the engine can pass over a rule
//! that has nothing to act on ([`Rule::wanted`]) instead of walking the whole document for it.
//!
//! The record is a set over a fixed vocabulary (the keywords of JSON Schema 2020-12 and draft-07,
//! OpenAPI 3.0's and Google's additions, python-genai's snake_case spellings): a key anywhere
//! in the document counts, a property name too, which can only make a rule run that finds
//! nothing. A keyword outside the vocabulary is always taken to be there. After a rule runs,
//! the keywords it declares it may add ([`Rule::adds`]) join the set; a rule that declares
//! nothing makes the engine scan again before the next rule that asks.

use std::cell::Cell;

use serde_json::Value;

use super::rules::Rule;

/// The keywords recorded (at most 128: one bit each).
const VOCABULARY: &[&str] = &[
    // JSON Schema 2020-12: core.
    "$schema",
    "$id",
    "$ref",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "$comment",
    "$defs",
    // Applicators.
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "prefixItems",
    "items",
    "contains",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    // Validation.
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    // Meta-data, format, content.
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    // Draft-07 and 2019-09 forms.
    "definitions",
    "dependencies",
    "additionalItems",
    "$recursiveRef",
    "$recursiveAnchor",
    // OpenAPI 3.0 and Google.
    "nullable",
    "example",
    "discriminator",
    "propertyOrdering",
    // python-genai's snake_case spellings.
    "any_of",
    "additional_properties",
    "prefix_items",
    "property_ordering",
];

/// Slots of the table from a keyword to its bit (a power of two, over three times the
/// vocabulary, so that a multiplier with no two keywords in one slot is found quickly).
const SLOTS: usize = 512;

/// A key's length and its first and last (up to) 8 bytes: equal for equal keys; for keys of
/// up to 16 bytes, equal only for equal keys (a longer key that shares all three with a keyword
/// is taken for it, which can only make a rule run that finds nothing).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Sketch {
    len: usize,
    head: u64,
    tail: u64,
}

const fn sketch(key: &[u8]) -> Sketch {
    let n = key.len();
    let (mut head, mut tail) = (0u64, 0u64);
    let mut i = 0;
    while i < 8 && i < n {
        head |= (key[i] as u64) << (8 * i);
        tail |= (key[n - 1 - i] as u64) << (8 * i);
        i += 1;
    }
    Sketch { len: n, head, tail }
}

/// The sketch of a key, read with two unaligned loads when it has 8 bytes or more.
#[inline]
fn sketch_of(key: &str) -> Sketch {
    let b = key.as_bytes();
    let n = b.len();
    if n >= 8 {
        // Little-endian from the front, big-endian from the back: byte `i` of `tail` is the
        // key's `i`-th byte from the end, as `sketch` builds it.
        Sketch {
            len: n,
            head: u64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
            tail: u64::from_be_bytes(b[n - 8..].try_into().expect("8 bytes")),
        }
    } else {
        sketch(b)
    }
}

/// The slot of a sketch for a multiplier.
const fn slot(s: &Sketch, seed: u64) -> usize {
    let h = (s.head ^ s.tail.rotate_left(29) ^ (s.len as u64)).wrapping_mul(seed | 1);
    (h >> (64 - 9)) as usize
}

/// A multiplier that puts every keyword of the vocabulary in its own slot, found at compile
/// time.
const SEED: u64 = {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    loop {
        let mut used = [false; SLOTS];
        let mut clash = false;
        let mut i = 0;
        while i < VOCABULARY.len() {
            let at = slot(&sketch(VOCABULARY[i].as_bytes()), seed);
            if used[at] {
                clash = true;
                break;
            }
            used[at] = true;
            i += 1;
        }
        if !clash {
            break seed;
        }
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
    }
};

/// For each slot, 1 + the index in [`VOCABULARY`] of the keyword there (0: none), and the
/// keyword's sketch.
const TABLE: [(u8, Sketch); SLOTS] = {
    assert!(VOCABULARY.len() <= 128, "one bit per keyword in a u128");
    let mut table = [(
        0u8,
        Sketch {
            len: 0,
            head: 0,
            tail: 0,
        },
    ); SLOTS];
    let mut i = 0;
    while i < VOCABULARY.len() {
        let s = sketch(VOCABULARY[i].as_bytes());
        table[slot(&s, SEED)] = ((i + 1) as u8, s);
        i += 1;
    }
    table
};

/// The bit of `key`, when it is in the vocabulary (one table look-up, no string comparison).
#[inline]
fn bit(key: &str) -> Option<u128> {
    let s = sketch_of(key);
    let (entry, known) = TABLE[slot(&s, SEED)];
    (entry != 0 && known == s).then(|| 1u128 << (entry - 1))
}

/// The keywords of the vocabulary a document holds (as keys anywhere in it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Holds(u128);

impl Holds {
    /// Scans `value`: every key of every object in it. Recursive (one frame per level: the
    /// engine runs deep documents on a stack grown for them).
    pub(crate) fn of(value: &Value) -> Holds {
        fn scan(value: &Value, bits: &mut u128) {
            match value {
                Value::Object(map) => {
                    for (key, v) in map {
                        if let Some(b) = bit(key) {
                            *bits |= b;
                        }
                        if matches!(v, Value::Object(_) | Value::Array(_)) {
                            scan(v, bits);
                        }
                    }
                }
                Value::Array(items) => {
                    for v in items {
                        if matches!(v, Value::Object(_) | Value::Array(_)) {
                            scan(v, bits);
                        }
                    }
                }
                _ => {}
            }
        }
        let mut bits = 0;
        scan(value, &mut bits);
        Holds(bits)
    }

    /// Whether the document may hold `keyword` (always, for one outside the vocabulary).
    pub(crate) fn may_hold(&self, keyword: &str) -> bool {
        bit(keyword).is_none_or(|b| self.0 & b != 0)
    }

    /// Records that the document may now hold `keyword`.
    fn add(&mut self, keyword: &str) {
        if let Some(b) = bit(keyword) {
            self.0 |= b;
        }
    }
}

/// The engine's record for one document as rules rewrite it: scanned when a rule first asks,
/// kept up to date from what each rule declares it adds, dropped (to scan again when asked)
/// after a rule that declares nothing.
#[derive(Debug)]
pub(crate) struct Record {
    holds: Cell<Option<Holds>>,
    /// Whether rules are asked at all (else every rule runs, as when none is idle).
    asks: bool,
}

impl Record {
    /// A record for a document nothing is known of; with `asks` false, every rule runs.
    pub(crate) fn new(asks: bool) -> Self {
        Record {
            holds: Cell::new(None),
            asks,
        }
    }

    /// Whether `rule` may have something to do on `schema` (the document is scanned only if
    /// the rule asks about a keyword and nothing is known yet).
    pub(crate) fn wanted(&self, rule: &dyn Rule, schema: &Value) -> bool {
        if !self.asks || every_rule_runs() {
            return true;
        }
        rule.wanted(&|k| {
            let holds = self.holds.get().unwrap_or_else(|| {
                let holds = Holds::of(schema);
                self.holds.set(Some(holds));
                holds
            });
            holds.may_hold(k)
        })
    }

    /// Takes into account what `rule` did to the document.
    pub(crate) fn ran(&mut self, rule: &dyn Rule) {
        if rule.reads_only() {
            return;
        }
        if let Some(holds) = self.holds.get_mut() {
            if !rule.adds(&mut |k| holds.add(k)) {
                self.forget();
            }
        }
    }

    /// The document was replaced: nothing is known of it.
    pub(crate) fn forget(&mut self) {
        self.holds.set(None);
    }
}

#[cfg(test)]
thread_local! {
    /// Set by the tests that compare the engine with every rule run against the engine as it is.
    pub(crate) static EVERY_RULE_RUNS: Cell<bool> = const { Cell::new(false) };
}

#[cfg(test)]
fn every_rule_runs() -> bool {
    EVERY_RULE_RUNS.with(Cell::get)
}

#[cfg(not(test))]
#[inline(always)]
fn every_rule_runs() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::adapt::rules::Xorshift;
    use crate::adapt::{AdaptSettings, Target};
    use crate::catalog::Catalog;

    /// Every real tool's schema and every fuzz regression fixture's schema, bundled in the
    /// repository.
    fn fixtures() -> Vec<Value> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures");
        let read = |dir: &str| -> Vec<Value> {
            let mut files: Vec<_> = std::fs::read_dir(format!("{root}/{dir}"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| {
                    p.extension().is_some_and(|e| e == "json") && !p.ends_with("SOURCES.json")
                })
                .collect();
            files.sort();
            files
                .iter()
                .map(|p| crate::adapt::parse_deep(&std::fs::read_to_string(p).unwrap()).unwrap())
                .collect()
        };
        let mut schemas: Vec<Value> = read("tools")
            .into_iter()
            .flat_map(|c| Catalog::from_value(c).unwrap().tools)
            .map(|t| t.schema)
            .collect();
        assert!(schemas.len() > 200, "the real tools are there");
        let fuzz = read("fuzz");
        assert!(fuzz.len() > 40, "the fuzz fixtures are there");
        schemas.extend(fuzz.into_iter().map(|f| f["schema"].clone()));
        schemas
    }

    /// Schema-like documents built from the keywords rules ask about and write, in every
    /// position (xorshift, deterministic).
    struct Gen(u64);

    impl Xorshift for Gen {
        fn state(&mut self) -> &mut u64 {
            &mut self.0
        }
    }

    impl Gen {
        fn schema(&mut self, depth: u32) -> Value {
            if depth > 0 && self.next() % 11 == 0 {
                return json!(self.next() % 2 == 0);
            }
            let mut map = serde_json::Map::new();
            for _ in 0..self.next() % 5 {
                let key = self.pick(&[
                    "type",
                    "type",
                    "properties",
                    "properties",
                    "required",
                    "anyOf",
                    "oneOf",
                    "allOf",
                    "any_of",
                    "prefix_items",
                    "additional_properties",
                    "items",
                    "prefixItems",
                    "$ref",
                    "$defs",
                    "definitions",
                    "default",
                    "const",
                    "enum",
                    "not",
                    "nullable",
                    "description",
                    "format",
                    "pattern",
                    "minLength",
                    "title",
                    "additionalProperties",
                    "propertyOrdering",
                    "examples",
                    "$schema",
                ]);
                let sub = depth < 3;
                let value = match key {
                    "type" if self.next() % 3 == 0 => json!([
                        self.pick(&["string", "object", "array", "integer"]),
                        self.pick(&["null", "string", "object"])
                    ]),
                    "type" => json!(self.pick(&["string", "object", "array", "null", "number"])),
                    "properties" | "$defs" | "definitions" if sub => {
                        let mut m = serde_json::Map::new();
                        for name in ["a", "b", "anyOf", "$ref"] {
                            if self.next() % 2 == 0 {
                                m.insert(name.into(), self.schema(depth + 1));
                            }
                        }
                        Value::Object(m)
                    }
                    "required" => json!(["a", self.pick(&["b", "ghost", "anyOf"])]),
                    "anyOf" | "oneOf" | "allOf" | "any_of" | "prefix_items" | "prefixItems"
                        if sub =>
                    {
                        let n = 1 + self.next() % 3;
                        Value::Array((0..n).map(|_| self.schema(depth + 1)).collect())
                    }
                    "items" | "not" | "additional_properties" | "additionalProperties" if sub => {
                        self.schema(depth + 1)
                    }
                    "additionalProperties" => json!(false),
                    "$ref" => json!(self.pick(&["#/$defs/a", "#/definitions/b", "#", "#/$defs/x"])),
                    "default" | "const" => json!(self.pick(&["x", "1", ""])),
                    "enum" => json!([self.pick(&["x", "y"]), self.next() % 3]),
                    "nullable" => json!(self.next() % 2 == 0),
                    "propertyOrdering" => json!(["a"]),
                    "examples" => json!([1]),
                    "minLength" => json!(2),
                    "$schema" => json!("http://json-schema.org/draft-07/schema#"),
                    _ => json!(self.pick(&["date-time", "^a$", "text"])),
                };
                map.insert(key.into(), value);
            }
            Value::Object(map)
        }
    }

    fn documents() -> Vec<Value> {
        let mut docs = fixtures();
        let mut generator = Gen(0x0dd5_eed5);
        docs.extend((0..1_500).map(|_| generator.schema(0)));
        docs
    }

    /// Passing over the rules that have nothing to act on gives, for every target, exactly what
    /// running every rule gives: the schema, the strict flag, the fallback, and every loss and
    /// change with its positions, rule and detail.
    #[test]
    fn passing_over_idle_rules_changes_nothing() {
        stacker::grow(256 << 20, || {
            let docs = documents();
            for &target in Target::ALL {
                // Every target's rules are asked, whether its settings ask them or not.
                let mut settings = target.settings();
                settings.pass_over_idle = true;
                for doc in &docs {
                    let fast = settings.adapt(doc);
                    EVERY_RULE_RUNS.with(|f| f.set(true));
                    let every = settings.adapt(doc);
                    EVERY_RULE_RUNS.with(|f| f.set(false));
                    assert!(fast.schema == every.schema, "{target}: {doc}");
                    assert_eq!(
                        (fast.strict, fast.fallback),
                        (every.strict, every.fallback),
                        "{target}: {doc}"
                    );
                    assert_eq!(fast.losses, every.losses, "{target}: {doc}");
                    assert_eq!(fast.changes, every.changes, "{target}: {doc}");
                }
            }
        });
    }

    /// What each rule declares it may add is all it adds: after it, the document holds no
    /// keyword of the vocabulary that it did not hold before or the rule did not name. Every
    /// rule of every target, on every document, in the order the target runs them.
    #[test]
    fn every_rule_adds_only_what_it_declares() {
        stacker::grow(256 << 20, || {
            let docs = documents();
            let mut checked = 0;
            for &target in Target::ALL {
                let settings = target.settings();
                type List = fn(&AdaptSettings) -> Vec<Box<dyn Rule>>;
                let lists: [List; 2] = [AdaptSettings::rules, AdaptSettings::relaxed_rules];
                for list in lists {
                    let names: Vec<&str> = list(&settings).iter().map(|r| r.name()).collect();
                    for doc in &docs {
                        let mut doc = doc.clone();
                        for (i, mut rule) in list(&settings).into_iter().enumerate() {
                            let before = Holds::of(&doc);
                            let mut declared = before;
                            let declares = rule.adds(&mut |k| declared.add(k));
                            let mut report = crate::adapt::RuleReport::for_rule(rule.name());
                            rule.apply(&mut doc, &mut report);
                            if declares {
                                let after = Holds::of(&doc);
                                let extra = after.0 & !declared.0;
                                let extra: Vec<&str> = (0..VOCABULARY.len())
                                    .filter(|b| extra & (1 << b) != 0)
                                    .map(|b| VOCABULARY[b])
                                    .collect();
                                assert!(
                                    extra.is_empty(),
                                    "{target} {} (rule {i}) added {extra:?}",
                                    names[i]
                                );
                                checked += 1;
                            }
                            if report.failure.is_some() {
                                break;
                            }
                        }
                    }
                }
            }
            assert!(checked > 50_000, "{checked}");
        });
    }

    #[test]
    fn every_keyword_has_its_own_bit() {
        for (i, k) in VOCABULARY.iter().enumerate() {
            assert_eq!(bit(k), Some(1 << i), "{k}");
        }
        let mut seen = std::collections::HashSet::new();
        assert!(
            VOCABULARY.iter().all(|k| seen.insert(*k)),
            "no keyword twice"
        );
        for other in [
            "",
            "typ",
            "types",
            "Type",
            "propertie",
            "x-google",
            "$refs",
            "a",
        ] {
            assert_eq!(bit(other), None, "{other}");
        }
    }

    #[test]
    fn holds_every_key_anywhere_and_answers_yes_outside_the_vocabulary() {
        let doc = json!({
            "type": "object",
            "properties": {"allOf": {"type": "string"}},
            "enum": [{"$ref": 1}, [[{"default": 2}]]],
            "x-custom": true
        });
        let holds = Holds::of(&doc);
        for k in ["type", "properties", "allOf", "enum", "$ref", "default"] {
            assert!(holds.may_hold(k), "{k}");
        }
        for k in ["anyOf", "oneOf", "const", "description", "$defs"] {
            assert!(!holds.may_hold(k), "{k}");
        }
        assert!(holds.may_hold("x-custom") && holds.may_hold("x-other"));
        let mut added = holds;
        added.add("anyOf");
        assert!(added.may_hold("anyOf") && !added.may_hold("oneOf"));
    }
}
