//! Which keywords a document holds, found in one scan, so that the engine can pass over a rule
//! that has nothing to act on ([`Rule::wanted`]) instead of walking the whole document for it.
//!
//! The record is a set over a fixed vocabulary (the keywords of JSON Schema 2020-12 and draft-07,
//! OpenAPI 3.0's and Google's additions, MCP's `x-mcp-header`, python-genai's snake_case
//! spellings): a key anywhere in the document counts, a property name too, which can only make a
//! rule run that finds nothing. A keyword outside the vocabulary is always taken to be there. After a rule runs,
//! the keywords it declares it may add ([`Rule::adds`]) join the set; a rule that declares
//! nothing makes the engine scan again before the next rule that asks.

use std::cell::Cell;

use serde_json::Value;

use super::rules::Rule;
use crate::keys::Keys;

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
    // MCP's extension (a property sent as an HTTP header), which Google's schema rejects.
    "x-mcp-header",
    // python-genai's snake_case spellings.
    "any_of",
    "additional_properties",
    "prefix_items",
    "property_ordering",
    // Facts about a keyword's value, set by the scan (see `FACT_SOURCES`); the names are not
    // keywords, and a key spelled like one only makes a rule run that finds nothing.
    ITEMS_LIST,
    REF_DEFINITIONS,
    BOOL_SCHEMA,
    ARRAY_NO_ITEMS,
    ANY_OF_IN_ANY_OF,
    TYPE_LIST,
    UNION_PAST_NULL,
    TYPE_NULL,
    TYPE_OBJECT,
    UNTYPED,
    OPEN_MAP,
    ANNOTATIONS_ONLY,
    DEEP,
    LARGE,
];

/// The fact "an `items` whose value is an array" (draft-07's tuple form).
pub(crate) const ITEMS_LIST: &str = "items:[...]";
/// The fact "a `$ref` whose value starts with `#/definitions/`" (draft-07's definitions).
pub(crate) const REF_DEFINITIONS: &str = "$ref:#/definitions/";

/// The fact "a boolean where a subschema stands": `true` or `false` as a property, definition,
/// union branch or tuple position, or as the value of `not`, `if`, `contains`, ... (the value
/// of `additionalProperties`, `items` and their unevaluated forms is the keyword's own, not a
/// subschema to rewrite).
pub(crate) const BOOL_SCHEMA: &str = "true|false";

/// The fact "a `type` naming `array` (`"array"`, or a list of types with it) on a node whose
/// `items` is not a schema object" (absent, a boolean or a draft-07 list: the array strict mode
/// cannot enforce). A rule that writes a `type` naming `array`, or takes `items` away from such
/// a node or replaces it, declares it.
pub(crate) const ARRAY_NO_ITEMS: &str = "{type:array, no items}";

/// The fact "an `anyOf` branch that has an `anyOf` of its own".
pub(crate) const ANY_OF_IN_ANY_OF: &str = "anyOf:[{anyOf}]";

/// The fact "a `type` whose value is a list".
pub(crate) const TYPE_LIST: &str = "type:[...]";

/// The fact "an `anyOf` or `oneOf` with a branch after its first that is not the null schema
/// alone" (a union that is more than `[T, {"type": "null"}]`).
pub(crate) const UNION_PAST_NULL: &str = "anyOf|oneOf:[T, U]";

/// The fact "a `type` that is the string `null`" (a list naming `null` is [`TYPE_LIST`]).
pub(crate) const TYPE_NULL: &str = "type:null";

/// The fact "a `type` that is the string `object`" (a list naming `object` is [`TYPE_LIST`]).
/// Declaring `type` declares it too: only a rule that makes an existing `type` the string
/// `object` (a list narrowed to it) names it.
pub(crate) const TYPE_OBJECT: &str = "type:object";

/// The fact "an object with no `type`, `anyOf`, `oneOf`, `allOf` or `$ref` that has
/// `properties`, `items`, `prefixItems`, `enum` or `const`" (a node infer-type may give a
/// type). A rule that takes one of the former keywords away from such a node, or gives it one
/// of the latter, declares it.
pub(crate) const UNTYPED: &str = "{untyped}";

/// The fact "an `additionalProperties` that is `true` or a schema" (an open map, which no
/// strict object can be). A rule that writes one declares it.
pub(crate) const OPEN_MAP: &str = "additionalProperties:true|{...}";

/// The fact "a subschema of annotations alone (`{}` included: no key but `description`,
/// `title`, `default`, `examples`, `$comment`) as an entry of a map or list of subschemas, or as
/// `items`/`additionalItems`; or a boolean `items`/`additionalItems`" (with [`BOOL_SCHEMA`]: a
/// subschema that types nothing where OpenAI strict mode needs a type). A rule that takes a
/// subschema's last other key away, or writes such a subschema, declares it.
pub(crate) const ANNOTATIONS_ONLY: &str = "{annotations alone}";

/// The fact "a node below the root with more than 9 nodes typed `object` (or with a list of
/// types) on its path from the root's child down to itself": an object nesting that may pass
/// OpenAI strict mode's 10 levels, the root's own type included. Declaring `type`, a list of
/// types or the object-type fact below the root declares it too; a rule that puts a subschema
/// deeper (a definition copied where it is referenced) declares it.
pub(crate) const DEEP: &str = "{nesting past 9 below the root}";

/// The fact "more than 5,000 entries in the maps that are the value of a `properties` key, in
/// all" (more than OpenAI strict mode's 5,000 properties). A rule that adds properties or copies
/// a subschema (a definition put where it is referenced) declares it.
pub(crate) const LARGE: &str = "{over 5,000 properties}";

/// What a rule declares when each `anyOf` it adds stands where no union branch is (at a
/// property, at `items`) and has for branches schemas the document held and at most the null
/// schema after them: an `anyOf` in a branch of the new `anyOf` is one the document held
/// already, and the new union is `[T, {"type": "null"}]` (a rule whose new union has other
/// branches declares [`UNION_PAST_NULL`] too). Not in the vocabulary (no fact of its own).
/// Declaring `anyOf` itself also notes [`ANY_OF_IN_ANY_OF`] and [`UNION_PAST_NULL`], and
/// `oneOf` the latter. A rule that writes a `type: "array"` declares [`ARRAY_NO_ITEMS`], one that
/// writes a list of types [`TYPE_LIST`].
pub(crate) const ANY_OF_AROUND: &str = "anyOf around held schemas";

const ITEMS: u128 = bit_of("items");
const REF: u128 = bit_of("$ref");
const TYPE: u128 = bit_of("type");
const ANY_OF: u128 = bit_of("anyOf");
const ONE_OF: u128 = bit_of("oneOf");
const TYPE_LIST_BIT: u128 = bit_of(TYPE_LIST);
const UNION_PAST_NULL_BIT: u128 = bit_of(UNION_PAST_NULL);
const ARRAY_NO_ITEMS_BIT: u128 = bit_of(ARRAY_NO_ITEMS);
const ANY_OF_IN_ANY_OF_BIT: u128 = bit_of(ANY_OF_IN_ANY_OF);
const ITEMS_LIST_BIT: u128 = bit_of(ITEMS_LIST);
const REF_DEFINITIONS_BIT: u128 = bit_of(REF_DEFINITIONS);
const BOOL_SCHEMA_BIT: u128 = bit_of(BOOL_SCHEMA);
const TYPE_NULL_BIT: u128 = bit_of(TYPE_NULL);
const TYPE_OBJECT_BIT: u128 = bit_of(TYPE_OBJECT);
const UNTYPED_BIT: u128 = bit_of(UNTYPED);
const OPEN_MAP_BIT: u128 = bit_of(OPEN_MAP);
const ANNOTATIONS_ONLY_BIT: u128 = bit_of(ANNOTATIONS_ONLY);
const DEEP_BIT: u128 = bit_of(DEEP);
const LARGE_BIT: u128 = bit_of(LARGE);
const PROPERTIES: u128 = bit_of("properties");
const DESCRIPTION: u128 = bit_of("description");
const ADDITIONAL_PROPERTIES: u128 = bit_of("additionalProperties");
const ADDITIONAL_ITEMS: u128 = bit_of("additionalItems");
/// The bits of a node that may count for [`DEEP`]: its `type` is `object`, or a list.
const OBJECT_LEVEL: u128 = TYPE_OBJECT_BIT | TYPE_LIST_BIT;
/// Object nesting below the root past which [`DEEP`] is noted.
const DEEP_PAST: usize = 9;
/// Properties in all past which [`LARGE`] is noted.
const LARGE_PAST: usize = 5_000;

/// The keys that give a node its type, or leave it to its branches or its target.
const TYPED_BY: u128 = TYPE | ANY_OF | ONE_OF | bits_of(&["allOf", "$ref"]);
/// The keys infer-type reads a type from.
const TYPE_CUES: u128 = bits_of(&["properties", "items", "prefixItems", "enum", "const"]);

/// The keywords whose value is a map of subschemas (which may be booleans).
const SCHEMA_MAPS: u128 = bits_of(crate::walk::SCHEMA_MAP_KEYWORDS);

/// The keywords whose value is a list of subschemas (`items` in its draft-07 tuple form), and
/// python-genai's snake_case spellings of two of them.
const SCHEMA_LISTS: u128 =
    bits_of(crate::walk::SCHEMA_ARRAY_KEYWORDS) | bits_of(&["any_of", "prefix_items"]);

/// The keywords whose value is one subschema, where a boolean is one: all of them but those
/// whose `true`/`false` is the keyword's own value.
const ONE_SCHEMA: u128 = bits_of(crate::walk::SINGLE_SCHEMA_KEYWORDS)
    & !bits_of(&[
        "additionalProperties",
        "unevaluatedProperties",
        "items",
        "unevaluatedItems",
    ]);

const SUBSCHEMA_HOLDERS: u128 = SCHEMA_MAPS | SCHEMA_LISTS | ONE_SCHEMA;

/// The keywords whose values the scan reads for a fact.
const FACT_SOURCES: u128 = ITEMS | REF | TYPE | ADDITIONAL_PROPERTIES | SUBSCHEMA_HOLDERS;

const fn bits_of(keywords: &[&str]) -> u128 {
    let mut bits = 0;
    let mut i = 0;
    while i < keywords.len() {
        bits |= bit_of(keywords[i]);
        i += 1;
    }
    bits
}

/// The bit of a keyword of the vocabulary, at compile time.
const fn bit_of(keyword: &str) -> u128 {
    let mut i = 0;
    while i < VOCABULARY.len() {
        if str_eq(VOCABULARY[i], keyword) {
            return 1 << i;
        }
        i += 1;
    }
    panic!("not in the vocabulary")
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The fact bits a vocabulary key `key` (of bit `b`) with value `value` sets.
///
/// `LIMITS`: also the facts only OpenAI's strict precheck reads ([`OPEN_MAP`],
/// [`ANNOTATIONS_ONLY`]); without them a map's or list's entries are looked at for booleans
/// alone, and `additionalProperties` not at all.
#[inline]
fn facts<const LIMITS: bool>(b: u128, value: &Value) -> u128 {
    if b & FACT_SOURCES == 0 || !LIMITS && b == ADDITIONAL_PROPERTIES {
        return 0;
    }
    let array = |t: &str| t.len() == 5 && t.as_bytes() == b"array";
    if b == TYPE {
        return match value {
            Value::String(t) => {
                fact_if(array(t), ARRAY_NO_ITEMS_BIT)
                    | fact_if(t.as_str() == "null", TYPE_NULL_BIT)
                    | fact_if(t.as_str() == "object", TYPE_OBJECT_BIT)
            }
            Value::Array(ts) => {
                TYPE_LIST_BIT
                    | fact_if(
                        ts.iter().any(|t| t.as_str().is_some_and(array)),
                        ARRAY_NO_ITEMS_BIT,
                    )
            }
            _ => 0,
        };
    }
    // Past the first branch, anything but `{"type": "null"}` alone (what structured-first
    // passes over).
    let past_null = |branches: &[Value]| {
        fact_if(
            !branches.iter().skip(1).all(super::rules::is_bare_null),
            UNION_PAST_NULL_BIT,
        )
    };
    match value {
        Value::Bool(open) if b == ADDITIONAL_PROPERTIES => fact_if(*open, OPEN_MAP_BIT),
        Value::Object(_) if b == ADDITIONAL_PROPERTIES => OPEN_MAP_BIT,
        Value::Array(items) if b == ITEMS => ITEMS_LIST_BIT | untyped_among::<LIMITS>(items.iter()),
        Value::Bool(_) if LIMITS && b == ITEMS => ANNOTATIONS_ONLY_BIT,
        Value::Object(m) if LIMITS && (b == ITEMS || b == ADDITIONAL_ITEMS) => {
            fact_if(annotations_alone(m), ANNOTATIONS_ONLY_BIT)
        }
        Value::Bool(_) if LIMITS && b == ADDITIONAL_ITEMS => BOOL_SCHEMA_BIT | ANNOTATIONS_ONLY_BIT,
        Value::Array(branches) if b == ANY_OF => {
            untyped_among::<LIMITS>(branches.iter())
                | past_null(branches)
                | fact_if(
                    branches
                        .iter()
                        .any(|b| b.as_object().is_some_and(|m| m.has("anyOf"))),
                    ANY_OF_IN_ANY_OF_BIT,
                )
        }
        Value::Array(branches) if b == ONE_OF => {
            untyped_among::<LIMITS>(branches.iter()) | past_null(branches)
        }
        Value::String(r) if b == REF && r.starts_with("#/definitions/") => REF_DEFINITIONS_BIT,
        Value::Bool(_) if b & ONE_SCHEMA != 0 => BOOL_SCHEMA_BIT,
        Value::Array(items) if b & SCHEMA_LISTS != 0 => untyped_among::<LIMITS>(items.iter()),
        Value::Object(map) if b & SCHEMA_MAPS != 0 => untyped_among::<LIMITS>(map.values()),
        _ => 0,
    }
}

/// The booleans ([`BOOL_SCHEMA`]) and, with `LIMITS`, the subschemas of annotations alone
/// ([`ANNOTATIONS_ONLY`]) among a map's or a list's entries.
#[inline]
fn untyped_among<'a, const LIMITS: bool>(mut entries: impl Iterator<Item = &'a Value>) -> u128 {
    if !LIMITS {
        return fact_if(entries.any(Value::is_boolean), BOOL_SCHEMA_BIT);
    }
    entries.fold(0, |found, v| {
        found
            | match v {
                Value::Bool(_) => BOOL_SCHEMA_BIT,
                Value::Object(m) if annotations_alone(m) => ANNOTATIONS_ONLY_BIT,
                _ => 0,
            }
    })
}

/// Whether an object has no key but the annotations `description`, `title`, `default`,
/// `examples` and `$comment` (`{}` included): a subschema that types nothing. A `$schema` is
/// taken for one too: the rules take it away without a word.
#[inline]
fn annotations_alone(map: &serde_json::Map<String, Value>) -> bool {
    map.keys().all(|k| {
        matches!(
            k.as_str(),
            "description" | "title" | "default" | "examples" | "$comment" | "$schema"
        )
    })
}

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
    } else if n > 0 {
        // The key's bytes as one little-endian word, read with two loads that may overlap (the
        // bytes they share are the same, so or-ing them is exact). A copy into a zeroed buffer
        // and one load of it stalled on the store. `tail` is the same bytes in reverse order.
        let head = if n >= 4 {
            let front = u32::from_le_bytes(b[..4].try_into().expect("4 bytes"));
            let back = u32::from_le_bytes(b[n - 4..].try_into().expect("4 bytes"));
            u64::from(front) | u64::from(back) << (8 * (n - 4))
        } else if n >= 2 {
            let front = u16::from_le_bytes(b[..2].try_into().expect("2 bytes"));
            let back = u16::from_le_bytes(b[n - 2..].try_into().expect("2 bytes"));
            u64::from(front) | u64::from(back) << (8 * (n - 2))
        } else {
            u64::from(b[0])
        };
        Sketch {
            len: n,
            head,
            tail: head.swap_bytes() >> (8 * (8 - n)),
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

/// For each slot, 1 + the index in [`VOCABULARY`] of the keyword there (0: none): 512 bytes,
/// so that the look-up of a key that is no keyword (most property names) reads one byte of a
/// table that stays in cache. (Slots holding the sketches too made the table 16 KiB.)
const SLOT_WORDS: [u8; SLOTS] = {
    assert!(VOCABULARY.len() <= 128, "one bit per keyword in a u128");
    let mut table = [0u8; SLOTS];
    let mut i = 0;
    while i < VOCABULARY.len() {
        table[slot(&sketch(VOCABULARY[i].as_bytes()), SEED)] = (i + 1) as u8;
        i += 1;
    }
    table
};

/// The sketch of each word of [`VOCABULARY`], in its order.
const SKETCHES: [Sketch; VOCABULARY.len()] = {
    let mut sketches = [Sketch {
        len: 0,
        head: 0,
        tail: 0,
    }; VOCABULARY.len()];
    let mut i = 0;
    while i < VOCABULARY.len() {
        sketches[i] = sketch(VOCABULARY[i].as_bytes());
        i += 1;
    }
    sketches
};

/// The bit of `key`, when it is in the vocabulary (one table look-up, no string comparison).
#[inline]
fn bit(key: &str) -> Option<u128> {
    index(key).map(|i| 1u128 << i)
}

/// The index in [`VOCABULARY`] of the word whose sketch `key` has (exact for keys of up to 16
/// bytes, see [`Sketch`]).
#[inline]
fn index(key: &str) -> Option<usize> {
    let s = sketch_of(key);
    let i = usize::from(SLOT_WORDS[slot(&s, SEED)]).checked_sub(1)?;
    (SKETCHES[i] == s).then_some(i)
}

// `pointers::fixed_id` reads a token that starts with a digit as an array index: no word does.
const _: () = {
    let mut i = 0;
    while i < VOCABULARY.len() {
        assert!(!VOCABULARY[i].as_bytes()[0].is_ascii_digit());
        i += 1;
    }
};

/// The index in [`VOCABULARY`] of the word `key` is (exact).
#[inline]
pub(crate) fn vocabulary_index(key: &str) -> Option<usize> {
    // The sketch is exact up to 16 bytes: the words are compared only past that.
    index(key).filter(|&i| key.len() <= 16 || VOCABULARY[i] == key)
}

/// The word of the vocabulary that `key` is, kept for the process (a [`crate::adapt::Pointer`]
/// token refers to it instead of copying it).
#[inline]
pub(crate) fn vocabulary_word(key: &str) -> Option<&'static str> {
    let word = VOCABULARY[index(key)?];
    // A key longer than 16 bytes may share its sketch with a word it is not.
    (word == key).then_some(word)
}

/// `key` as a report keeps a keyword's name: the vocabulary's word by reference, any other name
/// copied.
#[inline]
pub(crate) fn keyword_name(key: &str) -> std::borrow::Cow<'static, str> {
    match vocabulary_word(key) {
        Some(word) => std::borrow::Cow::Borrowed(word),
        None => std::borrow::Cow::Owned(key.to_owned()),
    }
}

/// The bits of a static keyword list's words, `None` when one is outside the vocabulary (it
/// may be held anywhere): made on a list's first use and kept ([`crate::keys::PerList`]), made
/// again at each ask past the lists kept.
fn bits_of_list(words: &'static [&'static str]) -> Option<u128> {
    static LISTS: crate::keys::PerList<Option<u128>> = crate::keys::PerList::new();
    let make = || {
        words
            .iter()
            .try_fold(0u128, |all, word| bit(word).map(|b| all | b))
    };
    LISTS.get(words, make).unwrap_or_else(make)
}

/// The keywords of the vocabulary a document holds (as keys anywhere in it), and apart from
/// that, which of them the root object itself holds and which some object below it holds (a
/// property name, or a key in a non-schema value such as a `default`, counts as below).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Holds {
    root: u128,
    below: u128,
    /// Whether `root` and `below` are as a scan found them, with what the rules since declared
    /// added to both: once a rule that may move keys between the root and the nodes below it
    /// ([`Rule::keeps_root_and_below`]) has rewritten the document, both sets are taken to be
    /// the whole record.
    split: bool,
}

/// The bits of the keys (and facts) of one object's own entries; counts the entries of its
/// `properties` map into `properties`.
#[inline]
fn own_keys<const LIMITS: bool>(
    map: &serde_json::Map<String, Value>,
    properties: &mut usize,
) -> u128 {
    let mut bits = 0;
    for (key, v) in map {
        if let Some(b) = bit(key) {
            bits |= b | facts::<LIMITS>(b, v);
            if LIMITS && b == PROPERTIES {
                *properties += v.as_object().map_or(0, serde_json::Map::len);
            }
        }
    }
    if bits & TYPED_BY == 0 && bits & TYPE_CUES != 0 {
        bits |= UNTYPED_BIT;
    }
    // `facts` notes a `type` naming `array`; an `items` schema beside it takes the fact back.
    if bits & ARRAY_NO_ITEMS_BIT != 0 && matches!(map.key("items"), Some(Value::Object(_))) {
        bits &= !ARRAY_NO_ITEMS_BIT;
    }
    bits
}

/// What the scan has found below the root so far.
struct Below {
    bits: u128,
    /// The entries of `properties` maps, in all (the root's own included).
    properties: usize,
}

/// Adds to `found` the keys of every object in `value` (its own and below), if `value`, at
/// depth `depth` of the document, nests no deeper than `limit` (as the engine's depth counts:
/// the root is depth 1, each array element or object value one more); false when it does,
/// looking no further. One frame per level. `levels`: the objects typed `object` (or with a
/// list of types) above `value`, below the root ([`DEEP`]).
///
/// `LIMITS`: as for [`facts`], and [`DEEP`] and [`LARGE`] counted.
fn scan_below<const LIMITS: bool>(
    value: &Value,
    depth: usize,
    levels: usize,
    limit: usize,
    found: &mut Below,
) -> bool {
    match value {
        Value::Object(map) => {
            let levels = scan_object::<LIMITS>(map, levels, found);
            map.is_empty()
                || depth < limit
                    && map
                        .values()
                        .all(|v| scan_child::<LIMITS>(v, depth, levels, limit, found))
        }
        Value::Array(items) => {
            items.is_empty()
                || depth < limit
                    && items
                        .iter()
                        .all(|v| scan_child::<LIMITS>(v, depth, levels, limit, found))
        }
        _ => true,
    }
}

/// Adds an object below the root to `found` (its own keys, and [`DEEP`] past OpenAI's nesting);
/// the `levels` its children are at (`levels`: the objects typed `object` above it).
#[inline]
fn scan_object<const LIMITS: bool>(
    map: &serde_json::Map<String, Value>,
    levels: usize,
    found: &mut Below,
) -> usize {
    let own = own_keys::<LIMITS>(map, &mut found.properties);
    let levels = if LIMITS {
        levels + usize::from(own & OBJECT_LEVEL != 0)
    } else {
        0
    };
    found.bits |= own | fact_if(LIMITS && levels > DEEP_PAST, DEEP_BIT);
    levels
}

#[inline]
fn fact_if(found: bool, bit: u128) -> u128 {
    if found { bit } else { 0 }
}

/// [`scan_below`] for a child of a node at depth `depth` (scalars, most of a schema's values,
/// are not called into).
#[inline]
fn scan_child<const LIMITS: bool>(
    v: &Value,
    depth: usize,
    levels: usize,
    limit: usize,
    found: &mut Below,
) -> bool {
    !matches!(v, Value::Object(_) | Value::Array(_))
        || scan_below::<LIMITS>(v, depth + 1, levels, limit, found)
}

impl Holds {
    /// Scans `value`: every key of every object in it. Recursive (one frame per level: the
    /// engine runs deep documents on a stack grown for them).
    pub(crate) fn of(value: &Value) -> Holds {
        Holds::of_shallow::<true>(value, usize::MAX).expect("no depth limit")
    }

    /// [`Holds::of`] for a document that nests no deeper than `limit` levels; `None` (found
    /// without looking below that depth) for one that does.
    ///
    /// `LIMITS`: with the facts only OpenAI's strict precheck reads ([`OPEN_MAP`],
    /// [`ANNOTATIONS_ONLY`], [`DEEP`], [`LARGE`]); without, they are not noted (for settings
    /// whose rules do not read them: the record says less than may be there only of facts
    /// no rule of theirs asks about, and a scan again notes them all).
    pub(crate) fn of_shallow<const LIMITS: bool>(value: &Value, limit: usize) -> Option<Holds> {
        let mut root = 0;
        let mut below = Below {
            bits: 0,
            properties: 0,
        };
        let fits = match value {
            Value::Object(map) => {
                root = own_keys::<LIMITS>(map, &mut below.properties);
                map.is_empty()
                    || 1 < limit
                        && map
                            .values()
                            .all(|v| scan_child::<LIMITS>(v, 1, 0, limit, &mut below))
            }
            other => scan_below::<LIMITS>(other, 1, 0, limit, &mut below),
        };
        fits.then_some(Holds {
            root,
            below: below.bits | fact_if(below.properties > LARGE_PAST, LARGE_BIT),
            split: true,
        })
    }

    /// [`Holds::of_shallow`] without a depth limit, and the document's depth (as the engine
    /// counts it: the root is 1, each array element or object value one more), in one pass
    /// without recursion: for a document too deep to scan on the caller's stack, whose work
    /// then runs on a stack sized from that depth.
    pub(crate) fn of_deep<const LIMITS: bool>(value: &Value) -> (Holds, usize) {
        let mut root = 0;
        let mut below = Below {
            bits: 0,
            properties: 0,
        };
        let mut deepest = 1;
        // The arrays and objects left to scan: each with its depth and the objects typed
        // `object` above it, below the root (as `scan_below` counts them).
        let mut stack: Vec<(&Value, usize, usize)> = Vec::new();
        /// Puts the arrays and objects among `children` (of a node at `depth`) on the stack;
        /// a scalar adds its level to the depth where it stands.
        fn push<'a>(
            children: impl Iterator<Item = &'a Value>,
            depth: usize,
            levels: usize,
            stack: &mut Vec<(&'a Value, usize, usize)>,
            deepest: &mut usize,
        ) {
            for c in children {
                match c {
                    Value::Object(_) | Value::Array(_) => stack.push((c, depth + 1, levels)),
                    _ => *deepest = (*deepest).max(depth + 1),
                }
            }
        }
        match value {
            Value::Object(map) => {
                root = own_keys::<LIMITS>(map, &mut below.properties);
                push(map.values(), 1, 0, &mut stack, &mut deepest);
            }
            Value::Array(items) => push(items.iter(), 1, 0, &mut stack, &mut deepest),
            _ => {}
        }
        while let Some((v, depth, levels)) = stack.pop() {
            match v {
                Value::Object(map) => {
                    let levels = scan_object::<LIMITS>(map, levels, &mut below);
                    push(map.values(), depth, levels, &mut stack, &mut deepest);
                }
                Value::Array(items) => push(items.iter(), depth, levels, &mut stack, &mut deepest),
                _ => {}
            }
            deepest = deepest.max(depth);
        }
        let holds = Holds {
            root,
            below: below.bits | fact_if(below.properties > LARGE_PAST, LARGE_BIT),
            split: true,
        };
        (holds, deepest)
    }

    fn all(&self) -> u128 {
        self.root | self.below
    }

    /// The whole document, as rules are told of it.
    pub(crate) fn held(&self) -> Held<'static> {
        Held(HeldBy::Bits(self.all()))
    }

    /// The root object's own keys (the whole document's once the split is unknown).
    fn held_at_root(&self) -> Held<'static> {
        Held(HeldBy::Bits(if self.split {
            self.root
        } else {
            self.all()
        }))
    }

    /// The keys of the objects below the root (the whole document's once the split is
    /// unknown).
    fn held_below(&self) -> Held<'static> {
        Held(HeldBy::Bits(if self.split {
            self.below
        } else {
            self.all()
        }))
    }

    /// Records that the document may now hold `keyword`.
    fn add(&mut self, keyword: &str) {
        let bits = declared_bits(keyword);
        self.root |= bits;
        self.below |= bits;
    }

    /// Records that the root object may now hold `keyword`.
    fn add_at_root(&mut self, keyword: &str) {
        // The root's own type is on no path below it ([`DEEP`]).
        self.root |= declared_bits(keyword) & !DEEP_BIT;
    }

    /// The document was rewritten: where each keyword is is no longer known.
    fn unsplit(&mut self) {
        self.split = false;
    }
}

/// The bits a rule's declaration of `keyword` sets: a new `anyOf` with the facts that it may
/// stand in a union's branch or hold one and be more than `[T, null]`, unless declared as
/// [`ANY_OF_AROUND`]; a new `oneOf` with the latter; a `type` with [`TYPE_OBJECT`]; a `type`,
/// a list of types or the object-type fact with [`DEEP`] (below the root); a `description`
/// with [`ANNOTATIONS_ONLY`]; an `additionalProperties` with [`OPEN_MAP`].
fn declared_bits(keyword: &str) -> u128 {
    match keyword {
        "anyOf" => ANY_OF | ANY_OF_IN_ANY_OF_BIT | UNION_PAST_NULL_BIT,
        "oneOf" => ONE_OF | UNION_PAST_NULL_BIT,
        ANY_OF_AROUND => ANY_OF,
        "type" => TYPE | TYPE_OBJECT_BIT | DEEP_BIT,
        // A description spilled into a subschema may be all that it keeps.
        "description" => DESCRIPTION | ANNOTATIONS_ONLY_BIT,
        "additionalProperties" => ADDITIONAL_PROPERTIES | OPEN_MAP_BIT,
        TYPE_OBJECT | TYPE_LIST => bit(keyword).unwrap_or(0) | DEEP_BIT,
        _ => bit(keyword).unwrap_or(0),
    }
}

/// What a rule is told of the keywords a document (or a part of it: its root object, the nodes
/// below the root) may hold, by the engine's record ([`Rule::wanted`], [`Rule::adds`],
/// [`Rule::at_root_alone`]). A keyword outside the record's fixed vocabulary is always taken to
/// be there.
#[derive(Clone, Copy)]
pub struct Held<'a>(HeldBy<'a>);

#[derive(Clone, Copy)]
enum HeldBy<'a> {
    /// The set, known.
    Bits(u128),
    /// The whole document, scanned when first asked.
    Scanned(&'a Record, &'a Value),
}

impl Held<'_> {
    /// Nothing known: every keyword may be held.
    pub(crate) fn anything() -> Held<'static> {
        Held(HeldBy::Bits(u128::MAX))
    }

    /// Whether the document (or the part) may hold `keyword` as a key somewhere; false only
    /// when it does not.
    #[inline]
    pub fn may_hold(&self, keyword: &str) -> bool {
        match bit(keyword) {
            None => true,
            Some(b) => self.bits() & b != 0,
        }
    }

    /// Whether the document may hold any of the `keywords` (what `may_hold` says of any of
    /// them), answered with the list's bits, found once per list for the process.
    pub fn may_hold_any(&self, keywords: &'static [&'static str]) -> bool {
        match bits_of_list(keywords) {
            None => true,
            Some(bits) => self.bits() & bits != 0,
        }
    }

    #[inline]
    fn bits(&self) -> u128 {
        match self.0 {
            HeldBy::Bits(bits) => bits,
            HeldBy::Scanned(record, schema) => record.holds(schema).all(),
        }
    }
}

impl std::fmt::Debug for Held<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bits = self.bits();
        let held: Vec<&str> = (0..VOCABULARY.len())
            .filter(|b| bits & (1 << b) != 0)
            .map(|b| VOCABULARY[b])
            .collect();
        f.debug_tuple("Held").field(&held).finish()
    }
}

/// The engine's record for one document as rules rewrite it: scanned when a rule first asks,
/// kept up to date from what each rule declares it adds, dropped (to scan again when asked)
/// after a rule that declares nothing.
#[derive(Debug)]
pub(crate) struct Record {
    holds: Cell<Option<Holds>>,
}

impl Record {
    /// A record for a document scanned already (`Some`: what it holds as it is now), or not
    /// (`None`: scanned when a rule first asks).
    pub(crate) fn new(holds: Option<Holds>) -> Self {
        Record {
            holds: Cell::new(holds),
        }
    }

    /// What the record knows of the document, scanning it if nothing is known.
    fn holds(&self, schema: &Value) -> Holds {
        self.holds.get().unwrap_or_else(|| {
            let holds = Holds::of(schema);
            self.holds.set(Some(holds));
            holds
        })
    }

    /// Whether `rule` may have something to do on `schema` (the document is scanned only if
    /// the rule asks about a keyword and nothing is known yet).
    pub(crate) fn wanted(&self, rule: &dyn Rule, schema: &Value) -> bool {
        if every_rule_runs() {
            return true;
        }
        rule.wanted(&Held(HeldBy::Scanned(self, schema)))
    }

    /// Whether `rule`, wanted, has work at the root alone ([`Rule::at_root_alone`]), by what
    /// the record knows of the root and of the nodes below it (no: nothing is known, or where
    /// each keyword is is not known since the last scan).
    pub(crate) fn at_root_alone(&self, rule: &dyn Rule) -> bool {
        if every_rule_runs() {
            return false;
        }
        match self.holds.get() {
            Some(holds) if holds.split => {
                rule.at_root_alone(&holds.held_at_root(), &holds.held_below())
            }
            _ => false,
        }
    }

    /// What the record knows of the document without scanning it: every keyword may be held
    /// when it knows nothing (or when every rule is made to run).
    pub(crate) fn known(&self) -> Held<'static> {
        match self.holds.get() {
            Some(holds) if !every_rule_runs() => holds.held(),
            _ => Held::anything(),
        }
    }

    /// Takes into account what `rule` did to the document.
    pub(crate) fn ran(&mut self, rule: &dyn Rule) {
        if rule.reads_only() {
            return;
        }
        if let Some(holds) = self.holds.get_mut() {
            let before = *holds;
            if !(before.split && rule.keeps_root_and_below(&before.held_at_root())) {
                holds.unsplit();
            }
            if !rule.adds(&before.held(), &mut |k| holds.add(k)) {
                self.forget();
                return;
            }
            rule.adds_at_root(&before.held(), &mut |k| holds.add_at_root(k));
        }
    }

    /// The document was replaced: nothing is known of it.
    pub(crate) fn forget(&mut self) {
        self.holds.set(None);
    }

    /// What the record knows, if anything (the key of a rule list's plans).
    pub(crate) fn state(&self) -> Option<Holds> {
        self.holds.get()
    }

    /// The record as a plan says it is after the rules it ran.
    pub(crate) fn set(&mut self, holds: Holds) {
        self.holds.set(Some(holds));
    }
}

#[cfg(test)]
thread_local! {
    /// Set by the tests that compare the engine with every rule run against the engine as it is.
    pub(crate) static EVERY_RULE_RUNS: Cell<bool> = const { Cell::new(false) };
}

#[cfg(test)]
pub(crate) fn every_rule_runs() -> bool {
    EVERY_RULE_RUNS.with(Cell::get)
}

/// `f` with every rule run (none passed over), as the engine ran before the record.
#[cfg(test)]
pub(crate) fn with_every_rule_run<R>(f: impl FnOnce() -> R) -> R {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            EVERY_RULE_RUNS.with(|f| f.set(false));
        }
    }
    EVERY_RULE_RUNS.with(|f| f.set(true));
    let _reset = Reset;
    f()
}

#[cfg(not(test))]
#[inline(always)]
pub(crate) fn every_rule_runs() -> bool {
    false
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    use crate::adapt::rules::Xorshift;
    use crate::adapt::{AdaptSettings, RuleReport, Target};
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

    /// A thread reuses the rule lists it built for equal settings (`AdaptSettings::with_rules`):
    /// what every target gives for every fixture, one after the other on one thread, with
    /// adjusted settings of the same target between them, equals what it gives on a thread of
    /// its own (whose lists are new). Some rules would carry something from one run into the
    /// next: the Anthropic strict gate's flag, a kept keyword of the settings before.
    #[test]
    fn rule_lists_reused_on_a_thread_give_what_new_ones_give() {
        let docs = fixtures();
        for &target in Target::ALL {
            let variants = [
                target.settings(),
                target.settings().keep_keyword("format"),
                target
                    .settings()
                    .with_options(crate::adapt::AdaptOptions::default().openai_conservative(true)),
                target.settings().without_strict(),
            ];
            for (v, settings) in variants.iter().enumerate() {
                let fresh: Vec<_> = docs
                    .chunks(16)
                    .flat_map(|chunk| {
                        std::thread::scope(|scope| {
                            let handles: Vec<_> = chunk
                                .iter()
                                .map(|doc| scope.spawn(|| settings.adapt(doc)))
                                .collect();
                            handles
                                .into_iter()
                                .map(|h| h.join().unwrap())
                                .collect::<Vec<_>>()
                        })
                    })
                    .collect();
                for (i, doc) in docs.iter().enumerate() {
                    // Another variant ran on this thread just before.
                    let other = &variants[(v + 1 + i) % variants.len()];
                    drop(other.adapt(doc));
                    assert_eq!(
                        settings.adapt(doc),
                        fresh[i],
                        "{target}, variant {v}, doc {i}"
                    );
                }
            }
        }
    }

    /// Schema-like documents built from the keywords rules ask about and write, in every
    /// position (xorshift, deterministic).
    pub(crate) struct Gen(pub(crate) u64);

    impl Xorshift for Gen {
        fn state(&mut self) -> &mut u64 {
            &mut self.0
        }
    }

    impl Gen {
        pub(crate) fn schema(&mut self, depth: u32) -> Value {
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
                    "$schema",
                    "additionalItems",
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
                    "items" if sub && self.next() % 3 == 0 => {
                        // Draft-07's tuple form.
                        let n = 1 + self.next() % 2;
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
                    "$schema" => json!(self.pick(&[
                        "http://json-schema.org/draft-07/schema#",
                        "https://json-schema.org/draft/2020-12/schema"
                    ])),
                    "additionalItems" if sub => self.schema(depth + 1),
                    _ => json!(self.pick(&["date-time", "^a$", "text"])),
                };
                map.insert(key.into(), value);
            }
            Value::Object(map)
        }
    }

    /// Documents where the draft-07 upgrade or the `$schema` removal has work at the root
    /// alone, or only seems to: the root's work puts a schema below it (`nullable`), or a node
    /// below holds a form too (by key, or only as a fact of a value).
    fn at_the_root() -> Vec<Value> {
        let draft07 = "http://json-schema.org/draft-07/schema#";
        vec![
            json!({"$schema": draft07, "type": "object", "properties": {"a": {"type": "string"}}}),
            json!({"$schema": 3, "properties": {"a": {"$ref": "#/$defs/x"}}}),
            json!({"$schema": draft07, "nullable": true, "properties": {}}),
            json!({"$schema": draft07, "nullable": true, "type": "object"}),
            json!({"$schema": draft07, "properties": {"a": {"$schema": draft07}}}),
            json!({"$schema": draft07, "properties": {"a": {"nullable": true}}}),
            json!({"$schema": draft07, "properties": {"a": {"items": [{"type": "string"}]}}}),
            json!({"$schema": draft07, "properties": {"a": {"$ref": "#/definitions/a"}}}),
            json!({"$schema": draft07, "default": {"$schema": 1}, "type": "object"}),
            json!({"$schema": draft07, "items": [{"type": "string"}], "additionalItems": false}),
            json!({"$ref": "#/definitions/a", "definitions": {"a": {"type": "object"}}}),
            json!({"type": "object", "properties": {"$schema": {"type": "string"}}}),
        ]
    }

    /// Documents where a rule may make a fact the scan notes that the input did not have as
    /// such: an `anyOf` in a union's branch (splice-nested-anyof), a `type: "array"`
    /// (tuple-items), a list of types (split-type-arrays), a union past `[T, null]`
    /// (structured-first).
    fn facts_made_by_rules() -> Vec<Value> {
        let str_or_null = json!({"anyOf": [{"type": "string"}, {"type": "null"}]});
        vec![
            // A single `allOf` branch merged into a union's branch.
            json!({"type": "object", "properties": {"a": {"anyOf": [{"allOf": [str_or_null]}, {"type": "integer"}]}}}),
            // A referenced definition put into a union's branch.
            json!({"type": "object", "properties": {"a": {"anyOf": [{"$ref": "#/$defs/u"}, {"type": "integer"}]}}, "$defs": {"u": str_or_null}}),
            json!({"type": "object", "properties": {"a": {"anyOf": [{"$ref": "#/$defs/u", "description": "d"}, {"type": "integer"}]}}, "$defs": {"u": str_or_null}}),
            // `oneOf` in `oneOf`, read as `anyOf`.
            json!({"type": "object", "properties": {"a": {"oneOf": [{"oneOf": [{"type": "string"}, {"type": "null"}]}, {"type": "integer"}]}}}),
            // A type list split into a union, inside a union's branch.
            json!({"type": "object", "properties": {"a": {"anyOf": [{"type": ["string", "null"]}, {"type": "integer"}]}}}),
            // An optional property that is a union with more than the union (wrapped whole).
            json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "integer"}], "enum": ["x", 1]}}}),
            json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "integer"}], "description": "d"}}, "required": []}),
            // Tuples, positions that are unions.
            json!({"type": "object", "properties": {"t": {"type": "array", "prefixItems": [str_or_null, {"type": "integer"}]}}}),
            json!({"type": "object", "properties": {"t": {"items": [{"type": "string"}], "additionalItems": false}}}),
            // Arrays whose type is inferred, or comes from a merged branch or a definition.
            json!({"type": "object", "properties": {"l": {"items": {"type": "string"}}}}),
            json!({"type": "object", "properties": {"l": {"allOf": [{"type": "array"}]}}}),
            json!({"type": "object", "properties": {"l": {"$ref": "#/$defs/l"}}, "$defs": {"l": {"type": "array"}}}),
            json!({"type": "object", "properties": {"l": {"type": ["array", "null"]}}}),
            json!({"type": "object", "properties": {"l": {"nullable": true, "type": "array"}}}),
            // An array type that meets an `items` that is no schema in a merge.
            json!({"type": "object", "properties": {"l": {"type": "array", "items": {"type": "string"}, "allOf": [{"items": true}]}}}),
            json!({"type": "object", "properties": {"l": {"items": [{"type": "string"}], "allOf": [{"type": "array", "items": {}}]}}}),
            json!({"type": "object", "properties": {"l": {"$ref": "#/$defs/l", "items": true}}, "$defs": {"l": {"type": "array", "items": {"type": "string"}}}}),
            // Unions of a schema and the null schema, and a structured branch after a null one.
            json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "null"}], "nullable": true}}}),
            json!({"type": "object", "properties": {"a": {"oneOf": [{"type": "object", "properties": {}}, {"type": "null"}]}}}),
            json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "null"}, {"type": "object", "properties": {"x": {"type": "string"}}}]}}}),
            json!({"type": "object", "properties": {"a": {"type": ["object", "null"], "properties": {"x": {"type": ["string", "integer"]}}}}}),
            // Nodes left untyped: a union, an `allOf` or a `$ref` taken away or merged into a
            // node with an enum, `items` or `properties` and no type of its own; a `null` type
            // taken away; a snake_case tuple renamed.
            json!({"type": "object", "properties": {"a": {"allOf": [{"description": "d"}], "enum": ["x"]}}}),
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/d", "enum": ["x"]}}, "$defs": {"d": {"description": "d"}}}),
            json!({"type": "object", "properties": {"a": {"anyOf": [{"description": "d"}], "enum": ["x", "y"]}}}),
            json!({"type": "object", "properties": {"a": {"oneOf": [{"description": "d"}, {"type": "null"}], "items": {"type": "string"}}}}),
            json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "null"}], "enum": ["x", null]}}}),
            json!({"type": "object", "properties": {"a": {"type": "null", "properties": {}}}}),
            json!({"type": "object", "properties": {"a": {"type": ["null"], "items": {"type": "string"}}}}),
            json!({"type": "object", "properties": {"a": {"anyOf": [{"const": "x"}, {"const": 1}]}}}),
            json!({"type": "object", "properties": {"a": {"anyOf": [{"const": null}, {"const": null}]}}}),
            json!({"type": "object", "properties": {"a": {"prefix_items": [{"type": "string"}]}}}),
            json!({"anyOf": [{"type": "object", "properties": {"x": {"type": "string", "enum": ["a"]}}}, {"type": "object", "properties": {"x": {"type": "integer", "enum": [1]}}}]}),
            // A `$schema` hidden below a snake_case spelling until it is renamed (the only
            // keyword of Google's strip list there).
            json!({"type": "object", "properties": {"a": {"any_of": [{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"}, {"type": "integer"}]}}}),
            json!({"type": "object", "additional_properties": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}}),
            // Lists of types split where the document holds no `anyOf`: one in a single `allOf`
            // branch (merged into each new branch later), one in a `oneOf` branch (made an
            // `anyOf` later), one beside another list below it.
            json!({"type": "object", "properties": {"a": {"type": ["string", "null"], "allOf": [{"type": ["string", "null"], "minLength": 1}]}}}),
            json!({"type": "object", "properties": {"a": {"oneOf": [{"type": ["string", "null"]}, {"type": "integer"}]}}}),
            json!({"type": "object", "properties": {"a": {"type": ["array", "null"], "items": {"type": ["object", "null"], "properties": {"b": {"type": ["integer", "null"]}}}}}}),
            // `null` types written: an enum of `null` alone typed, a wrapped optional property.
            json!({"type": "object", "properties": {"a": {"enum": [null]}, "b": {"type": "string"}}, "required": ["a"]}),
        ]
    }

    /// The real tools, the fuzz fixtures, documents made for particular rules, and 1,500
    /// generated documents.
    pub(crate) fn documents() -> Vec<Value> {
        let mut docs = fixtures();
        docs.extend(at_the_root());
        docs.extend(facts_made_by_rules());
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
                let settings = target.settings();
                for doc in &docs {
                    let fast = settings.adapt(doc);
                    let every = with_every_rule_run(|| settings.adapt(doc));
                    assert_same(&fast, &every, &format!("{target}: {doc}"));
                }
            }
        });
    }

    /// Two adaptations agree on everything a caller reads: the schema, the strict flag, the
    /// fallback, and every loss and change with its positions, rule and detail.
    pub(crate) fn assert_same(
        a: &crate::adapt::Adapted<'_>,
        b: &crate::adapt::Adapted<'_>,
        what: &str,
    ) {
        assert!(a.schema == b.schema, "{what}");
        assert_eq!((a.strict, a.fallback), (b.strict, b.fallback), "{what}");
        assert_eq!(a.losses, b.losses, "{what}");
        assert_eq!(a.changes, b.changes, "{what}");
    }

    /// Runs every rule of every target (both forms' lists, in the order the target runs them)
    /// on every document through `apply`, which applies the rule to the document and returns
    /// its report; a list stops at a failure.
    fn each_rule_in_order(mut apply: impl FnMut(Target, &mut dyn Rule, &mut Value) -> RuleReport) {
        stacker::grow(256 << 20, || {
            let docs = documents();
            for &target in Target::ALL {
                let settings = target.settings();
                type List = fn(&AdaptSettings) -> Vec<Box<dyn Rule>>;
                let lists: [List; 2] = [AdaptSettings::rules, AdaptSettings::relaxed_rules];
                for list in lists {
                    for doc in &docs {
                        let mut doc = doc.clone();
                        for mut rule in list(&settings) {
                            if apply(target, rule.as_mut(), &mut doc).failure.is_some() {
                                break;
                            }
                        }
                    }
                }
            }
        });
    }

    /// What each rule declares it may add is all it adds: after it, the document holds no
    /// keyword of the vocabulary that it did not hold before or the rule did not name. A rule
    /// that says it keeps the root's keys and the keys below apart leaves none at the root that
    /// the root did not hold or the rule did not name, and likewise below.
    #[test]
    fn every_rule_adds_only_what_it_declares() {
        let (mut checked, mut kept_apart) = (0, 0);
        // The first document for each rule and keyword it added undeclared (or moved across,
        // with the side it moved to).
        let mut undeclared = std::collections::BTreeMap::new();
        let mut moved = std::collections::BTreeMap::new();
        each_rule_in_order(|target, rule, doc| {
            let before = Holds::of(doc);
            let mut declared = before;
            let declares = rule.adds(&before.held(), &mut |k| declared.add(k));
            rule.adds_at_root(&before.held(), &mut |k| declared.add_at_root(k));
            let keeps_apart = rule.keeps_root_and_below(&before.held_at_root());
            let mut report = RuleReport::for_rule(rule.name());
            let was = doc.clone();
            rule.apply(doc, &mut report);
            if declares {
                let after = Holds::of(doc);
                let extra = after.all() & !declared.all();
                for b in (0..VOCABULARY.len()).filter(|b| extra & (1 << b) != 0) {
                    undeclared
                        .entry((rule.name(), VOCABULARY[b]))
                        .or_insert_with(|| format!("{target}: {was} -> {doc}"));
                }
                checked += 1;
                if keeps_apart && report.failure.is_none() {
                    let sides = [
                        ("root", after.root & !declared.root),
                        ("below", after.below & !declared.below),
                    ];
                    for (side, extra) in sides {
                        for b in (0..VOCABULARY.len()).filter(|b| extra & (1 << b) != 0) {
                            moved
                                .entry((rule.name(), VOCABULARY[b], side))
                                .or_insert_with(|| format!("{target}: {was} -> {doc}"));
                        }
                    }
                    kept_apart += 1;
                }
            }
            report
        });
        assert!(
            undeclared.is_empty(),
            "added, not declared: {:#?}",
            undeclared
        );
        assert!(
            moved.is_empty(),
            "moved across the root, said to keep them apart: {:#?}",
            moved
        );
        assert!(checked > 50_000, "{checked}");
        assert!(kept_apart > 20_000, "{kept_apart}");
    }

    /// A rule that says it only reads (the engine then keeps its record as it was) leaves every
    /// document as it was and records nothing but a failure.
    #[test]
    fn a_rule_that_only_reads_changes_nothing() {
        let mut checked = std::collections::BTreeMap::new();
        each_rule_in_order(|target, rule, doc| {
            let mut report = RuleReport::for_rule(rule.name());
            if !rule.reads_only() {
                rule.apply(doc, &mut report);
                return report;
            }
            let was = doc.clone();
            rule.apply(doc, &mut report);
            assert!(*doc == was, "{target} {}: {was} -> {doc}", rule.name());
            let failure = report.failure.take();
            assert_eq!(report, RuleReport::for_rule(rule.name()), "{target}: {was}");
            report.failure = failure;
            *checked.entry(rule.name()).or_insert(0) += 1;
            report
        });
        for name in ["strict-precheck", "residual-gate", "meta-validate"] {
            assert!(checked.get(name).is_some_and(|&n| n > 1_000), "{checked:?}");
        }
    }

    /// Facts a rule makes where the rule lists' documents cannot show them (there the root's
    /// own `type: "object"`, which object-root makes, already holds the object-type fact): every
    /// rule of every list, run on its own on documents without an object type anywhere, declares
    /// what it makes. (Root-combinators is left out: it declares nothing because object-root,
    /// before it in every list, has typed the root; `object_root_comes_before_root_combinators`.)
    #[test]
    fn rules_declare_the_facts_they_make_on_their_own() {
        let docs = [
            json!({"properties": {"p": {"type": ["object", "null"], "properties": {}}}, "required": ["p"]}),
            json!({"properties": {"p": {"anyOf": [{"type": ["object", "null"]}]}}}),
            json!({"properties": {"p": {"allOf": [{"properties": {"a": {"type": "string"}}}]}}}),
            json!({"properties": {"p": {"oneOf": [{"properties": {}}, {"type": "null"}]}}}),
            json!({"properties": {"p": {"type": "string", "nullable": true}, "q": {"properties": {}}}}),
            json!({"properties": {"p": {"$ref": "#/definitions/o"}}, "definitions": {"o": {"properties": {}}}}),
        ];
        let mut checked = 0;
        let mut undeclared = std::collections::BTreeMap::new();
        for &target in Target::ALL {
            let settings = target.settings();
            for mut rule in settings.rules().into_iter().chain(settings.relaxed_rules()) {
                if rule.name() == "root-combinators" {
                    continue;
                }
                for doc in &docs {
                    let before = Holds::of(doc);
                    assert!(!before.held().may_hold(TYPE_OBJECT), "{doc}");
                    let mut declared = before;
                    if !rule.adds(&before.held(), &mut |k| declared.add(k)) {
                        continue;
                    }
                    rule.adds_at_root(&before.held(), &mut |k| declared.add_at_root(k));
                    let mut after = doc.clone();
                    let mut report = RuleReport::for_rule(rule.name());
                    rule.apply(&mut after, &mut report);
                    let extra = Holds::of(&after).all() & !declared.all();
                    for b in (0..VOCABULARY.len()).filter(|b| extra & (1 << b) != 0) {
                        undeclared
                            .entry((rule.name(), VOCABULARY[b]))
                            .or_insert_with(|| format!("{target}: {doc} -> {after}"));
                    }
                    checked += 1;
                }
            }
        }
        assert!(
            undeclared.is_empty(),
            "added, not declared: {undeclared:#?}"
        );
        assert!(checked > 500, "{checked}");
    }

    /// root-combinators declares nothing it adds because object-root, before it in every list
    /// that has it, has made the root `type: "object"`: taking the root's union away cannot
    /// leave it untyped.
    #[test]
    fn object_root_comes_before_root_combinators() {
        let mut lists = 0;
        for &target in Target::ALL {
            let settings = target.settings();
            type List = fn(&AdaptSettings) -> Vec<Box<dyn Rule>>;
            let each: [List; 2] = [AdaptSettings::rules, AdaptSettings::relaxed_rules];
            for list in each {
                let names: Vec<&str> = list(&settings).iter().map(|r| r.name()).collect();
                let at = |name| names.iter().position(|n| *n == name);
                if let Some(combinators) = at("root-combinators") {
                    assert!(
                        at("object-root").is_some_and(|root| root < combinators),
                        "{target}: {names:?}"
                    );
                    lists += 1;
                }
            }
        }
        assert!(lists >= 8, "{lists}");
    }

    /// The strict OpenAI targets infer types once, in their first stage's last walk (the
    /// reference infers them again at the start of its second stage): after that walk, on every
    /// document, a second infer-type walk changes nothing and records nothing.
    #[test]
    fn types_are_all_inferred_by_the_first_stage() {
        use crate::adapt::rules::InferType;
        let mut checked = 0;
        each_rule_in_order(|target, rule, doc| {
            let mut report = RuleReport::for_rule(rule.name());
            rule.apply(doc, &mut report);
            if rule.name() == "split-type-arrays, infer-type" && report.failure.is_none() {
                let mut again = doc.clone();
                let mut second = RuleReport::for_rule("infer-type");
                InferType.apply(&mut again, &mut second);
                assert!(again == *doc, "{target}: {doc}");
                assert_eq!(
                    second,
                    RuleReport::for_rule("infer-type"),
                    "{target}: {doc}"
                );
                checked += 1;
            }
            report
        });
        assert!(checked > 1_000, "{checked}");
    }

    /// Where a rule says its work is at the root alone (asked with the record of a fresh scan,
    /// as the engine asks it), its work at the root gives what its whole walk gives: the
    /// document and the report.
    #[test]
    fn work_at_the_root_alone_is_the_whole_work() {
        let mut checked = 0;
        each_rule_in_order(|target, rule, doc| {
            let holds = Holds::of(doc);
            let alone = rule.wanted(&holds.held())
                && rule.at_root_alone(&holds.held_at_root(), &holds.held_below());
            let mut report = RuleReport::for_rule(rule.name());
            if alone {
                let mut at_root = doc.clone();
                let mut root_report = RuleReport::for_rule(rule.name());
                rule.apply_at_root(&mut at_root, &mut root_report);
                rule.apply(doc, &mut report);
                assert!(at_root == *doc, "{target} {}: {doc}", rule.name());
                assert_eq!(root_report, report, "{target} {}", rule.name());
                checked += 1;
            } else {
                rule.apply(doc, &mut report);
            }
            report
        });
        assert!(checked > 1_000, "{checked}");
    }

    /// The scan finds a document shallow exactly when the engine's depth count says it is,
    /// and then records what the unlimited scan records.
    #[test]
    fn the_shallow_scan_stops_where_the_depth_count_does() {
        let mut docs = documents();
        docs.extend([
            json!(1),
            json!([]),
            json!({}),
            json!([[[]]]),
            json!({"a": [{"b": {}}]}),
            json!({"a": [1, {"b": [2]}]}),
        ]);
        // Past OpenAI's nesting limit, in objects typed `object` and through arrays between
        // them (levels count objects only).
        for (levels, arrays) in [(4, false), (12, false), (12, true), (40, true)] {
            let mut doc = json!({"type": "string", "maxLength": 2});
            for i in 0..levels {
                doc = json!({"type": "object", "properties": {"x": doc}, "required": ["x"]});
                if arrays && i % 3 == 0 {
                    doc = json!({"type": "array", "items": [doc, {"type": "null"}]});
                }
            }
            docs.push(doc);
        }
        for doc in &docs {
            let depth = crate::adapt::json_depth(doc);
            for limit in [1, 2, 3, 4, 5, 8, depth.saturating_sub(1), depth, depth + 1] {
                let limit = limit.max(1);
                let shallow = Holds::of_shallow::<true>(doc, limit);
                assert_eq!(shallow.is_some(), depth <= limit, "{limit} {depth}: {doc}");
                if let Some(holds) = shallow {
                    assert_eq!(holds, Holds::of(doc), "{doc}");
                }
            }
            // The pass without recursion finds what the recursive scan finds, with the depth.
            assert_eq!(
                Holds::of_deep::<true>(doc),
                (Holds::of(doc), depth),
                "{doc}"
            );
            assert_eq!(
                Holds::of_deep::<false>(doc).0,
                Holds::of_shallow::<false>(doc, usize::MAX).expect("no limit"),
                "{doc}"
            );
        }
    }

    /// The sketch read at run time is the one the table was built with, for keys of every
    /// length.
    #[test]
    fn run_time_sketches_are_the_table_s() {
        let text = "abcdefghijklmnopqrstuvwxyz0123456789";
        for n in 0..text.len() {
            let key = &text[..n];
            assert!(sketch_of(key) == sketch(key.as_bytes()), "{key}");
        }
    }

    /// The scan notes an array type without an `items` schema and an `anyOf` branch holding
    /// an `anyOf`, and neither where there is none.
    #[test]
    fn an_array_without_items_and_a_union_in_a_union_are_noted() {
        let noted = |doc: &Value, fact| Holds::of(doc).held().may_hold(fact);
        for doc in [
            json!({"type": "array"}),
            json!({"properties": {"a": {"type": ["null", "array"]}}}),
            json!({"$defs": {"a": {"items": {"type": "array"}}}}),
            json!({"type": "array", "items": true}),
            json!({"type": "array", "items": [{"type": "string"}]}),
            json!({"items": {"type": "string"}, "type": "array", "properties": {"a": {"type": "array", "prefixItems": []}}}),
        ] {
            assert!(noted(&doc, ARRAY_NO_ITEMS), "{doc}");
        }
        for doc in [
            json!({"type": "object", "properties": {"type": {"type": "string"}}}),
            json!({"enum": ["array"], "type": ["string", "null"]}),
            json!({"properties": {"array": {"type": "integer"}}}),
            json!({"type": "array", "items": {}}),
            json!({"items": {"type": "array", "items": {"type": "string"}}, "type": ["array", "null"]}),
        ] {
            assert!(!noted(&doc, ARRAY_NO_ITEMS), "{doc}");
        }
        for doc in [
            json!({"anyOf": [{"anyOf": [{"type": "string"}]}, {"type": "null"}]}),
            json!({"properties": {"a": {"anyOf": [{"type": "null"}, {"anyOf": [], "title": "t"}]}}}),
        ] {
            assert!(noted(&doc, ANY_OF_IN_ANY_OF), "{doc}");
        }
        for doc in [
            json!({"anyOf": [{"type": "string"}, {"properties": {"anyOf": {"type": "null"}}}]}),
            json!({"anyOf": [{"oneOf": [{"type": "string"}]}], "properties": {"b": {"anyOf": [{"type": "null"}]}}}),
        ] {
            assert!(!noted(&doc, ANY_OF_IN_ANY_OF), "{doc}");
        }
    }

    /// The scan notes a node infer-type may type (no `type`, union, `allOf` or `$ref`, and a
    /// keyword a type is read from) and a `type: "null"`, and neither where there is none.
    #[test]
    fn an_untyped_node_a_null_type_and_an_object_type_are_noted() {
        let noted = |doc: &Value, fact| Holds::of(doc).held().may_hold(fact);
        for doc in [
            json!({"properties": {}}),
            json!({"type": "object", "properties": {"a": {"enum": ["x"]}}}),
            json!({"type": "object", "properties": {"a": {"const": 1, "description": "d"}}}),
            json!({"type": "array", "items": {"items": {"type": "string"}}}),
            json!({"$defs": {"t": {"prefixItems": []}}}),
        ] {
            assert!(noted(&doc, UNTYPED), "{doc}");
        }
        for doc in [
            json!({"type": "object", "properties": {"a": {"type": "string", "enum": ["x"]}}}),
            json!({"anyOf": [{"type": "string"}], "enum": ["x"]}),
            json!({"oneOf": [], "items": {}, "properties": {"a": {"allOf": [], "const": 1}}}),
            json!({"$ref": "#/$defs/a", "enum": ["x"], "$defs": {"a": {"type": "string"}}}),
            json!({"type": "object", "properties": {"a": {"description": "no type, no cue"}}}),
        ] {
            assert!(!noted(&doc, UNTYPED), "{doc}");
        }
        for doc in [
            json!({"type": "null"}),
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
        ] {
            assert!(noted(&doc, TYPE_NULL), "{doc}");
        }
        for doc in [
            json!({"type": ["string", "null"]}),
            json!({"enum": [null], "type": "string"}),
            json!({"properties": {"null": {"type": "string"}}}),
        ] {
            assert!(!noted(&doc, TYPE_NULL), "{doc}");
        }
        // An object type where it is the string: at the root or below, as the record keeps it.
        let root_and_below = |doc: &Value| {
            let holds = Holds::of(doc);
            let bit = |held: Held<'_>| held.may_hold(TYPE_OBJECT);
            (bit(holds.held_at_root()), bit(holds.held_below()))
        };
        assert_eq!(root_and_below(&json!({"type": "object"})), (true, false));
        assert_eq!(
            root_and_below(&json!({"properties": {"a": {"type": "object"}}})),
            (false, true)
        );
        for doc in [
            json!({"type": ["object", "null"]}),
            json!({"type": "string", "enum": ["object"]}),
            json!({"properties": {"object": {"type": "string"}}}),
        ] {
            assert_eq!(root_and_below(&doc), (false, false), "{doc}");
        }
    }

    /// The scan notes a boolean where a subschema stands (what bool-schemas rewrites), and
    /// not a boolean keyword value.
    #[test]
    fn a_boolean_subschema_is_noted_where_it_stands() {
        let noted = |doc: Value| Holds::of(&doc).held().may_hold(BOOL_SCHEMA);
        for doc in [
            json!({"properties": {"a": true}}),
            json!({"$defs": {"a": false}}),
            json!({"anyOf": [{"type": "string"}, false]}),
            json!({"items": [true, {"type": "string"}]}),
            json!({"prefixItems": [false]}),
            json!({"prefix_items": [false]}),
            json!({"not": true}),
            json!({"properties": {"x": {"if": false}}}),
            json!({"dependencies": {"a": true}}),
        ] {
            assert!(noted(doc.clone()), "{doc}");
        }
        for doc in [
            json!({"additionalProperties": false, "uniqueItems": true}),
            json!({"items": true, "unevaluatedItems": false}),
            json!({"items": {"additionalProperties": false}, "not": {"deprecated": true}}),
            json!({"dependencies": {"a": ["b"]}, "properties": {"a": {"readOnly": true}}}),
            json!({"default": {"x": true}, "enum": [true, false]}),
        ] {
            assert!(!noted(doc.clone()), "{doc}");
        }
    }

    /// A list's answer is what its words' answers give, for every document: lists of the
    /// vocabulary's words, with a word outside it (then always yes), and the empty list.
    #[test]
    fn a_list_may_be_held_when_one_of_its_words_may() {
        let lists: [&'static [&'static str]; 5] = [
            &["pattern", "format", "minLength"],
            &["anyOf", "oneOf"],
            &["pattern", "x-not-a-keyword"],
            &[],
            &["nullable", ITEMS_LIST, REF_DEFINITIONS],
        ];
        let docs = documents();
        let mut yes = 0;
        for doc in &docs {
            let holds = Holds::of(doc);
            for held in [holds.held(), holds.held_at_root(), holds.held_below()] {
                for list in lists {
                    let each = list.iter().any(|k| held.may_hold(k));
                    assert_eq!(held.may_hold_any(list), each, "{list:?}: {doc}");
                    // Asked again: the kept bits answer the same.
                    assert_eq!(held.may_hold_any(list), each, "{list:?}: {doc}");
                    yes += usize::from(each);
                }
            }
        }
        assert!(yes > docs.len() * 3 && yes < docs.len() * 12, "{yes}");
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
            assert!(holds.held().may_hold(k), "{k}");
        }
        for k in ["anyOf", "oneOf", "const", "description", "$defs"] {
            assert!(!holds.held().may_hold(k), "{k}");
        }
        assert!(holds.held().may_hold("x-custom") && holds.held().may_hold("x-other"));
        let mut added = holds;
        added.add("anyOf");
        assert!(added.held().may_hold("anyOf") && !added.held().may_hold("oneOf"));
    }

    /// The facts of OpenAI's strict limits, each where it is noted and where it is not.
    #[test]
    fn the_facts_of_the_strict_limits_are_noted_where_they_may_be() {
        let noted = |doc: &Value, fact| Holds::of(doc).held().may_hold(fact);
        let object = |properties: Value| json!({"type": "object", "properties": properties});
        // A subschema that types nothing, in each place one stands.
        for doc in [
            object(json!({"a": {}})),
            object(json!({"a": {"description": "d", "title": "t", "default": 1}})),
            object(json!({"a": {"$schema": "https://json-schema.org/draft/2020-12/schema"}})),
            json!({"type": "object", "$defs": {"d": {"examples": [1]}}}),
            json!({"type": "object", "definitions": {"d": {}}}),
            object(json!({"a": {"type": "array", "items": {}}})),
            object(json!({"a": {"type": "array", "items": true}})),
            object(json!({"a": {"items": [{"type": "string"}], "additionalItems": {}}})),
            object(json!({"a": {"anyOf": [{"type": "string"}, {"$comment": "c"}]}})),
            object(json!({"a": {"prefixItems": [{}]}})),
        ] {
            assert!(noted(&doc, ANNOTATIONS_ONLY), "{doc}");
        }
        for doc in [
            object(json!({"a": {"type": "string"}, "b": {"description": "d", "enum": ["x"]}})),
            object(json!({"a": {"x-custom": 1}})),
            json!({"type": "object", "properties": {}}),
            object(json!({"a": {"type": "string", "default": {}}})),
            object(json!({"a": {"type": "array", "items": {"type": "string"}}})),
        ] {
            assert!(!noted(&doc, ANNOTATIONS_ONLY), "{doc}");
        }
        // An open map, at the root or below.
        for (doc, open) in [
            (
                json!({"type": "object", "additionalProperties": true}),
                true,
            ),
            (json!({"type": "object", "additionalProperties": {}}), true),
            (
                object(
                    json!({"a": {"type": "object", "additionalProperties": {"type": "string"}}}),
                ),
                true,
            ),
            (
                json!({"type": "object", "additionalProperties": false}),
                false,
            ),
            // A property of that name counts (the precheck then runs and finds nothing).
            (
                object(json!({"additionalProperties": {"type": "string"}})),
                true,
            ),
            (
                object(json!({"a": {"type": "object", "additionalProperties": false}})),
                false,
            ),
        ] {
            assert_eq!(noted(&doc, OPEN_MAP), open, "{doc}");
        }
        // Object nesting below the root, the root's own type not counted; through `items` too.
        let nested = |levels: usize, through: &str| {
            let mut doc = json!({"type": "string"});
            for _ in 0..levels {
                doc = match through {
                    "items" => json!({"type": ["object", "array"], "items": doc}),
                    _ => object(json!({"p": doc})),
                };
            }
            json!({"type": "object", "properties": {"p": doc}})
        };
        for through in ["properties", "items"] {
            assert!(!noted(&nested(9, through), DEEP), "{through}");
            assert!(noted(&nested(10, through), DEEP), "{through}");
        }
        let mut untyped_root = nested(9, "properties");
        untyped_root.as_object_mut().unwrap().remove("type");
        assert!(!noted(&untyped_root, DEEP));
        // Properties in all, in every `properties` map (the root's included).
        let many = |n: usize, split: bool| {
            let map = |range: std::ops::Range<usize>| -> Value {
                range
                    .map(|i| (format!("p{i}"), json!({"type": "string"})))
                    .collect()
            };
            if split {
                object(json!({"a": object(map(0..n / 2))}))
                    .as_object()
                    .map(|o| {
                        let mut o = o.clone();
                        o["properties"]["a"]["properties"] = map(0..n - n / 2);
                        let root: serde_json::Map<String, Value> =
                            map(0..n / 2 - 1).as_object().unwrap().clone();
                        for (k, v) in root {
                            o["properties"].as_object_mut().unwrap().insert(k, v);
                        }
                        Value::Object(o)
                    })
                    .unwrap()
            } else {
                object(map(0..n))
            }
        };
        assert!(!noted(&many(5_000, false), LARGE));
        assert!(noted(&many(5_001, false), LARGE));
        assert!(!noted(&many(5_000, true), LARGE));
        assert!(noted(&many(5_002, true), LARGE));
    }

    /// Documents at OpenAI's strict limits, where the facts the precheck is asked with must say
    /// what the rules before it may have made: nesting and properties near the limits, reached
    /// in the input or only once a root `$ref` is replaced by its target.
    fn at_the_strict_limits() -> Vec<Value> {
        let object = |properties: Value| json!({"type": "object", "properties": properties});
        let nested = |levels: usize| {
            let mut doc = json!({"type": "string"});
            for _ in 0..levels {
                doc = object(json!({"p": doc}));
            }
            doc
        };
        let flat = |n: usize| -> Value {
            object(
                (0..n)
                    .map(|i| (format!("p{i}"), json!({"type": "string"})))
                    .collect(),
            )
        };
        let mut docs = Vec::new();
        for levels in 9..=11 {
            docs.push(nested(levels));
            let mut untyped = nested(levels);
            untyped.as_object_mut().unwrap().remove("type");
            docs.push(untyped);
            // The definition is copied where the root refers to it, and kept.
            docs.push(json!({"$ref": "#/$defs/d", "$defs": {"d": nested(levels - 1)}}));
            docs.push(
                object(json!({"a": {"$ref": "#/$defs/d"}, "b": {"$ref": "#/$defs/d"}}))
                    .as_object()
                    .map(|o| {
                        let mut o = o.clone();
                        o.insert("$defs".into(), json!({"d": nested(levels - 2)}));
                        Value::Object(o)
                    })
                    .unwrap(),
            );
        }
        for n in [5_000, 5_001] {
            docs.push(flat(n));
        }
        docs.push(json!({"$ref": "#/$defs/d", "$defs": {"d": flat(2_600)}}));
        docs.push(json!({"$ref": "#/$defs/d", "$defs": {"d": flat(2_400)}}));
        // The same with an enum value the check at the end refuses first: only the precheck
        // names the limit.
        let mismatched = |mut doc: Value| {
            let mut at = &mut doc;
            while at["properties"]["p"].is_object() {
                at = &mut at["properties"]["p"];
            }
            at["properties"]["e"] = json!({"type": "string", "enum": [1]});
            doc
        };
        docs.push(json!({"$ref": "#/$defs/d", "$defs": {"d": mismatched(flat(2_600))}}));
        docs.push(json!({"$ref": "#/$defs/d", "$defs": {"d": mismatched(nested(10))}}));
        docs
    }

    /// The strict precheck, passed over where the record says nothing it refuses may be there,
    /// gives what running it gives on the documents at OpenAI's limits, for both strict OpenAI
    /// targets (the other documents: `passing_over_idle_rules_changes_nothing`).
    #[test]
    fn the_precheck_passed_over_at_the_limits_changes_nothing() {
        stacker::grow(256 << 20, || {
            let docs = at_the_strict_limits();
            for target in [Target::OpenAiStrict, Target::OpenAiResponses] {
                let settings = target.settings();
                let mut refused = 0;
                for doc in &docs {
                    let fast = settings.adapt(doc);
                    let every = with_every_rule_run(|| settings.adapt(doc));
                    assert_same(&fast, &every, &format!("{target}: {doc:.200}"));
                    refused += usize::from(fast.strict == Some(false));
                }
                // Past a limit: 11 levels (the root typed, or typed by object-root), 11 once
                // the root's `$ref` is replaced by its target (kept in `$defs`), 5,001
                // properties, 5,200 once the root's `$ref` is replaced; and the two with an
                // enum value of another type.
                assert_eq!(refused, 7, "{target}");
            }
        });
    }

    /// Most real tools hold nothing the strict precheck refuses, and it is passed over for
    /// them: the facts it reads are noted by the first scan and declared by the rules before
    /// it only where they may be made.
    #[test]
    fn the_precheck_is_passed_over_for_most_real_tools() {
        use crate::adapt::rules::StrictPrecheck;
        let tools: Vec<Value> = fixtures().into_iter().take(206).collect();
        for target in [Target::OpenAiStrict, Target::OpenAiResponses] {
            let settings = target.settings();
            let asked = settings.with_rules(|rules| {
                assert!(rules.limits, "{target}");
                tools
                    .iter()
                    .filter(|tool| {
                        let mut doc = (*tool).clone();
                        let mut record = Record::new(Some(Holds::of(&doc)));
                        let mut report = RuleReport::default();
                        rules.shared.run(&mut report, &mut doc, &mut record);
                        record.wanted(&StrictPrecheck, &doc)
                    })
                    .count()
            });
            assert!(asked * 5 < tools.len(), "{target}: asked for {asked} tools");
        }
        // Settings whose rules do not read the facts have them left out of the first scan.
        AdaptSettings::openai().with_rules(|rules| assert!(!rules.limits));
        AdaptSettings::anthropic_strict().with_rules(|rules| assert!(!rules.limits));
    }
}
