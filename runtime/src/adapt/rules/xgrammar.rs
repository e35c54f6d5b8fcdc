//! What xgrammar's converter from JSON Schema to a grammar reads (`cpp/json_schema_converter.cc`,
//! `SchemaParser::Parse` and the `Parse*`/`Generate*` functions, read at commit
//! 53da3ff8ce3fb1d1ebe7f8a36ec2f0a6c4f9ec4b; patterns through `cpp/regex_converter.cc`), as vLLM
//! and SGLang run it: strict mode on (their default), and vLLM's up-front refusals
//! (`has_xgrammar_unsupported_json_features` in its xgrammar backend) kept clear of.
//!
//! The parser takes one reading per node, the first that applies: `$ref`; `const`; `enum`;
//! `anyOf`; `oneOf` (as `anyOf` unless it can prove the branches disjoint); `allOf` (one member
//! read, several read as "any value"); `type` (a type list: one copy of the node per type); an
//! object keyword (`properties`, `additionalProperties`, `unevaluatedProperties`) read as an
//! object; an array keyword (`items`, `prefixItems`, `unevaluatedItems`) as an array; else any
//! value. Under a type: an integer's bounds (whole numbers) and `multipleOf` (only in narrow
//! cases, vLLM refuses it); a number's bounds; a string's `format` if it knows it, else its
//! `pattern`, else its lengths (one of the three); an array's `prefixItems`, `items`,
//! `minItems`, `maxItems`; an object's `properties`, `required`, `additionalProperties`,
//! `minProperties`, `maxProperties`. In strict mode an object without `additionalProperties`
//! is closed, and an array without `items` takes no item past its `prefixItems`.

use std::collections::HashSet;

use serde_json::Value;

use super::grammar::{ASSERTIONS, count, effective, type_names};
use super::keywords::Strip;
use super::{HUMAN_READABLE, keep_none};
use crate::adapt::report::LossKind;
use crate::adapt::tree::{Body, Entry, Key, Keyword, NodeId, Report, Rule, Slot, Tree};

/// The formats xgrammar writes a regular expression for (`JSONFormatToRegexPattern`), the same
/// list vLLM checks a string's `format` against before it sends a schema to xgrammar.
pub const XGRAMMAR_FORMATS: &[&str] = &[
    "email",
    "date",
    "time",
    "date-time",
    "duration",
    "ipv4",
    "ipv6",
    "hostname",
    "uuid",
    "uri",
    "uri-reference",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
];

/// The integer bounds xgrammar takes: whole numbers within 64 bits (others are refused, "Integer
/// constraint must be a whole number", or abort the conversion).
fn whole(v: &Value) -> Option<i128> {
    if let Some(i) = v.as_i64() {
        return Some(i128::from(i));
    }
    let f = v.as_f64()?;
    // Doubles at ±2^63 abort the conversion ("precision loss at 64-bit boundary").
    (f.fract() == 0.0 && f.abs() < 9.2e18).then_some(f as i128)
}

/// Whether the numeric bounds of node `id` leave some value (read as integers when `integer`):
/// xgrammar refuses an empty range ("Invalid range").
fn range_holds(tree: &Tree, id: NodeId, integer: bool) -> bool {
    let get = |k| tree.value(id, k).and_then(Value::as_f64);
    let lower = [
        get(Keyword::Minimum).map(|v| (v, false)),
        get(Keyword::ExclusiveMinimum).map(|v| (v, true)),
    ];
    let upper = [
        get(Keyword::Maximum).map(|v| (v, false)),
        get(Keyword::ExclusiveMaximum).map(|v| (v, true)),
    ];
    lower.iter().flatten().all(|(lo, lo_ex)| {
        upper.iter().flatten().all(|(hi, hi_ex)| {
            if integer {
                let lo = if *lo_ex { lo.floor() + 1.0 } else { lo.ceil() };
                let hi = if *hi_ex { hi.ceil() - 1.0 } else { hi.floor() };
                lo <= hi
            } else if *lo_ex || *hi_ex {
                lo < hi
            } else {
                lo <= hi
            }
        })
    })
}

/// What xgrammar's parser reads at node `id` (with `ty` as its type when given: one member of a
/// type list), among its assertion keywords.
fn reads(tree: &Tree, id: NodeId, ty: Option<&str>) -> HashSet<Keyword> {
    let has = |k: Keyword| tree.has(id, k);
    let own_type = tree.value(id, Keyword::Type);
    let mut read: HashSet<Keyword> = HashSet::new();
    if ty.is_none() {
        for k in [Keyword::Ref, Keyword::Const, Keyword::Enum] {
            if has(k) {
                // The type beside the values is what the values say (kept as a statement).
                return [k, Keyword::Type].into();
            }
        }
        for k in [Keyword::AnyOf, Keyword::OneOf] {
            if let Some(Slot::Schemas(branches)) = tree.get(id, k).map(|e| &e.value) {
                read.insert(k);
                // A type every branch states too holds without being read here.
                let implied = own_type.is_some_and(|t| {
                    let outer = type_names(t);
                    (branches.iter()).all(|b| {
                        effective(tree, *b, 8)
                            .is_some_and(|e| e.iter().all(|n| outer.contains(&n.as_str())))
                    })
                });
                if implied {
                    read.insert(Keyword::Type);
                } else if id == tree.root {
                    // The root stays an object: a union there whose branches do not all keep to
                    // it (a branch's own type cut away by the reads below it) is what goes.
                    read.clear();
                    break;
                }
                return read;
            }
        }
        // One member is read as that member; several as any value: such an `allOf` is not read,
        // so it goes, and the node is read by what stays. So does one left at the root (which
        // collided with the root's own keywords): the root stays an object.
        if let Some(Slot::Schemas(members)) = tree.get(id, Keyword::AllOf).map(|e| &e.value)
            && members.len() == 1
            && id != tree.root
        {
            return [Keyword::AllOf].into();
        }
        if let Some(Value::Array(types)) = own_type {
            read.insert(Keyword::Type);
            for t in types.iter().filter_map(Value::as_str) {
                read.extend(reads(tree, id, Some(t)));
            }
            return read;
        }
    }
    let ty = ty.or_else(|| own_type.and_then(Value::as_str)).or_else(|| {
        if has(Keyword::Properties)
            || has(Keyword::AdditionalProperties)
            || has(Keyword::UnevaluatedProperties)
        {
            Some("object")
        } else if has(Keyword::Items) || has(Keyword::PrefixItems) || has(Keyword::UnevaluatedItems)
        {
            Some("array")
        } else {
            None
        }
    });
    read.insert(Keyword::Type);
    let bounds = [
        Keyword::Minimum,
        Keyword::Maximum,
        Keyword::ExclusiveMinimum,
        Keyword::ExclusiveMaximum,
    ];
    match ty {
        Some("integer") => {
            let all_whole = bounds
                .iter()
                .all(|k| tree.value(id, *k).is_none_or(|v| whole(v).is_some()));
            if all_whole && range_holds(tree, id, true) {
                read.extend(bounds);
            }
        }
        Some("number") => {
            let numbers = bounds
                .iter()
                .all(|k| tree.value(id, *k).is_none_or(Value::is_number));
            if numbers && range_holds(tree, id, false) {
                read.extend(bounds);
            }
        }
        Some("string") => {
            let format = tree.value(id, Keyword::Format).and_then(Value::as_str);
            if format.is_some_and(|f| XGRAMMAR_FORMATS.contains(&f)) {
                read.insert(Keyword::Format);
            } else if tree
                .value(id, Keyword::Pattern)
                .is_some_and(Value::is_string)
            {
                read.insert(Keyword::Pattern);
            } else {
                let min = count(tree, id, Keyword::MinLength).unwrap_or(0);
                let max = count(tree, id, Keyword::MaxLength);
                let integers = [Keyword::MinLength, Keyword::MaxLength]
                    .iter()
                    .all(|k| tree.value(id, *k).is_none_or(|v| v.as_u64().is_some()));
                if integers && max.is_none_or(|m| min <= m) {
                    read.extend([Keyword::MinLength, Keyword::MaxLength]);
                }
            }
        }
        Some("array") => {
            read.extend([Keyword::PrefixItems, Keyword::Items]);
            let min = count(tree, id, Keyword::MinItems).unwrap_or(0);
            let max = count(tree, id, Keyword::MaxItems);
            let integers = [Keyword::MinItems, Keyword::MaxItems]
                .iter()
                .all(|k| tree.value(id, *k).is_none_or(|v| v.as_u64().is_some()));
            let prefix = match tree.get(id, Keyword::PrefixItems).map(|e| &e.value) {
                Some(Slot::Schemas(list)) => list.len() as u64,
                _ => 0,
            };
            let closed = matches!(
                tree.get(id, Keyword::Items).map(|e| &e.value),
                Some(Slot::Schema(n)) if matches!(tree.node(*n).body, Body::Bool(false))
            ) || !has(Keyword::Items);
            let fits = max.is_none_or(|m| min <= m && prefix <= m) && (!closed || min <= prefix);
            if integers && fits {
                read.extend([Keyword::MinItems, Keyword::MaxItems]);
            }
        }
        Some("object") => {
            read.extend([
                Keyword::Properties,
                Keyword::Required,
                Keyword::AdditionalProperties,
            ]);
            let min = count(tree, id, Keyword::MinProperties).unwrap_or(0);
            let max = count(tree, id, Keyword::MaxProperties);
            let required = (tree.value(id, Keyword::Required))
                .and_then(Value::as_array)
                .map_or(0, |r| r.iter().collect::<HashSet<_>>().len() as u64);
            let integers = [Keyword::MinProperties, Keyword::MaxProperties]
                .iter()
                .all(|k| tree.value(id, *k).is_none_or(|v| v.as_u64().is_some()));
            if integers && max.is_none_or(|m| min <= m && required <= m) {
                read.extend([Keyword::MinProperties, Keyword::MaxProperties]);
            }
        }
        _ => {}
    }
    read
}

/// Every assertion keyword xgrammar's parser would skip at a node (or vLLM would refuse the
/// schema over) spilled into the description (or dropped), each with a loss. Then what strict
/// mode closes: an object with properties and no `additionalProperties` is written closed
/// (`additionalProperties: false`), a `closed` loss; one without properties is written open
/// (`additionalProperties: true`: strict mode would take only `{}`); an array without `items`
/// gets `items: {}` (it would take only `[]`), or, after a tuple's `prefixItems`,
/// `items: false`, a `closed` loss.
#[derive(Clone, Copy, Debug, Default)]
pub struct XgrammarReads;

impl Rule for XgrammarReads {
    fn name(&self) -> &'static str {
        "xgrammar-reads"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        tree.walk(|tree, id| read_node(tree, id, report));
        // The root once more, its branches read: a root union whose branches no longer all keep
        // to an object (a type cut away below) goes, and the root is read as the object it is.
        read_node(tree, tree.root, report);
    }
}

/// [`XgrammarReads`] at one node.
fn read_node(tree: &mut Tree, id: NodeId, report: &mut Report) {
    if !tree.is_object(id) {
        return;
    }
    let read = reads(tree, id, None);
    Strip {
        removed: &|k| matches!(k, Key::Kw(k) if ASSERTIONS.contains(k) && !read.contains(k)),
        spill: HUMAN_READABLE,
        why: "xgrammar skips it here, or vLLM refuses the schema over it",
        keep: keep_none,
        also_keep: &[],
    }
    .node(tree, id, report);
    // The readings that take an object or an array (a type list's included).
    let origin = tree.node(id).origin;
    let typed = |t: &str| match t {
        "object" => read.contains(&Keyword::Properties),
        _ => read.contains(&Keyword::Items),
    };
    if typed("object") && !tree.has(id, Keyword::AdditionalProperties) {
        let declared = matches!(
            tree.get(id, Keyword::Properties).map(|e| &e.value),
            Some(Slot::Map(m)) if !m.is_empty()
        );
        if declared {
            tree.set_value(id, Keyword::AdditionalProperties, Value::Bool(false));
            report.loss(
                origin,
                Some(id),
                "additionalProperties",
                LossKind::Closed,
                "xgrammar (strict mode, as vLLM and SGLang run it) closes an object without `additionalProperties`: properties beyond the declared ones, which the schema allows, can no longer be sent",
            );
        } else {
            tree.set_value(id, Keyword::AdditionalProperties, Value::Bool(true));
            report.change(
                origin,
                Some(id),
                "`additionalProperties: true` written (xgrammar's strict mode would take only `{}` for an object that declares no property)",
            );
        }
    }
    if typed("array") && !tree.has(id, Keyword::Items) {
        if tree.has(id, Keyword::PrefixItems) {
            let closed = tree.add(origin, Body::Bool(false));
            tree.set(
                id,
                Entry {
                    key: Key::Kw(Keyword::Items),
                    value: Slot::Schema(closed),
                    origin,
                },
            );
            report.loss(
                origin,
                Some(id),
                "items",
                LossKind::Closed,
                "xgrammar (strict mode) takes no item past `prefixItems` where `items` is absent: written `items: false`; more items, which the schema allows, can no longer be sent",
            );
        } else {
            let any = tree.add(origin, Body::Object(Vec::new()));
            tree.set(
                id,
                Entry {
                    key: Key::Kw(Keyword::Items),
                    value: Slot::Schema(any),
                    origin,
                },
            );
            report.change(
                origin,
                Some(id),
                "`items: {}` written (xgrammar's strict mode would take only `[]` for an array without `items`)",
            );
        }
    }
}

/// References as xgrammar resolves them: kept (recursion with them, which xgrammar compiles)
/// when every one is plain: `#`, or `#/` and a path of names without `~` or `%` (xgrammar splits
/// the path on `/` and looks each name up as it is), resolving in the document, to a node that is
/// not itself a bare reference, with no assertion beside it (xgrammar reads a `$ref` alone).
/// Otherwise every reference is inlined ([`super::InlineRefs`]: siblings merged over the copy,
/// recursion unrolled two levels then cut, a reference that does not resolve dropped; each a
/// loss), as llama.cpp's target does.
#[derive(Clone, Copy, Debug, Default)]
pub struct XgrammarRefs;

impl Rule for XgrammarRefs {
    fn name(&self) -> &'static str {
        "xgrammar-refs"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let plain = |tree: &Tree, id: NodeId| {
            let Some(entry) = tree.get(id, Keyword::Ref) else {
                return true;
            };
            let Some(reference) = entry.value.as_value().and_then(Value::as_str) else {
                return false;
            };
            let path_ok = reference == "#"
                || reference
                    .strip_prefix("#/")
                    .is_some_and(|p| !p.contains(['~', '%']));
            let alone = (tree.entries(id).iter()).all(
                |e| !matches!(e.key, Key::Kw(k) if k != Keyword::Ref && ASSERTIONS.contains(&k)),
            );
            let target = tree.resolve(reference);
            path_ok
                && alone
                && target.is_some_and(|t| {
                    t != id && (!tree.has(t, Keyword::Ref) || tree.entries(t).len() > 1)
                })
        };
        if tree.any_node(|tree, id| !plain(tree, id)) {
            super::InlineRefs::default().apply(tree, report);
        }
    }
}

/// ECMA-262's `.` (any character but a line terminator), as xgrammar's regex converter reads it
/// (its own `.` is every code point).
const XGRAMMAR_DOT: &str = r"[^\n\r\u2028\u2029]";

/// `pattern` in the form xgrammar's regex converter takes with the same meaning: it matches the
/// whole string and ignores `^`/`$` (an unanchored end gets "any characters"), its `\s` is
/// narrower than ECMA-262's and its `.` wider (both written as classes); lookaround, back-references, `\b`,
/// `\p{..}`, flags and an anchor inside the pattern are refused or ignored there, so such a
/// pattern is spilled.
#[derive(Clone, Copy, Debug, Default)]
pub struct XgrammarPatterns;

impl Rule for XgrammarPatterns {
    fn name(&self) -> &'static str {
        "xgrammar-patterns"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        super::grammar::rewrite_patterns(
            tree,
            report,
            |p| super::grammar::anchored_pattern(p, None, Some(XGRAMMAR_DOT)),
            "to xgrammar (it matches the whole string: an unanchored end now says \"any characters\"; `\\s` and `.` written as ECMA-262's classes)",
            "xgrammar's regex converter cannot take it",
        );
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::adapt::rules::apply;

    fn run(rule: impl Rule + 'static, schema: Value) -> crate::adapt::rules::Applied {
        apply(&mut [Box::new(rule) as Box<dyn Rule>], &schema)
    }

    #[test]
    fn lengths_beside_a_pattern_are_spilled_and_the_pattern_kept() {
        let out = run(
            XgrammarReads,
            json!({"type": "object", "properties": {"s": {"type": "string", "pattern": "^a+$", "maxLength": 8}}, "additionalProperties": false}),
        );
        assert_eq!(out.schema["properties"]["s"]["pattern"], "^a+$");
        assert!(out.schema["properties"]["s"].get("maxLength").is_none());
        assert!(
            out.losses
                .iter()
                .any(|l| l.keyword == "maxLength" && l.kind == LossKind::Spilled)
        );
    }

    #[test]
    fn multiple_of_and_an_unknown_format_are_spilled() {
        let out = run(
            XgrammarReads,
            json!({"type": "object", "properties": {
                "n": {"type": "integer", "multipleOf": 5, "minimum": 0},
                "s": {"type": "string", "format": "color"}
            }, "additionalProperties": false}),
        );
        assert_eq!(out.schema["properties"]["n"]["minimum"], 0);
        assert!(out.schema["properties"]["n"].get("multipleOf").is_none());
        assert!(out.schema["properties"]["s"].get("format").is_none());
        assert_eq!(out.losses.len(), 2, "{:?}", out.losses);
    }

    #[test]
    fn a_fractional_integer_bound_is_spilled() {
        let out = run(
            XgrammarReads,
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1.5}}, "additionalProperties": false}),
        );
        assert!(out.schema["properties"]["n"].get("minimum").is_none());
        assert!(out.losses.iter().any(|l| l.keyword == "minimum"));
    }

    #[test]
    fn strict_mode_closing_is_written_out() {
        let out = run(
            XgrammarReads,
            json!({"type": "object", "properties": {
                "declared": {"type": "object", "properties": {"a": {"type": "string"}}},
                "free": {"type": "object"},
                "list": {"type": "array"},
                "pair": {"type": "array", "prefixItems": [{"type": "string"}]}
            }}),
        );
        let p = &out.schema["properties"];
        assert_eq!(p["declared"]["additionalProperties"], false);
        assert_eq!(p["free"]["additionalProperties"], true);
        assert_eq!(p["list"]["items"], json!({}));
        assert_eq!(p["pair"]["items"], false);
        let closed: Vec<&str> = (out.losses.iter())
            .filter(|l| l.kind == LossKind::Closed)
            .filter_map(|l| l.at.as_ref().map(|p| p.as_str()))
            .collect();
        assert_eq!(closed, ["", "/properties/declared", "/properties/pair"]);
    }

    #[test]
    fn several_all_of_members_are_spilled_one_is_read() {
        let out = run(
            XgrammarReads,
            json!({"type": "object", "properties": {
                "one": {"allOf": [{"type": "string"}]},
                "two": {"allOf": [{"type": "string"}, {"minLength": 1}]}
            }, "additionalProperties": false}),
        );
        assert!(out.schema["properties"]["one"].get("allOf").is_some());
        assert!(out.schema["properties"]["two"].get("allOf").is_none());
        assert!(out.losses.iter().any(|l| l.keyword == "allOf"));
    }

    #[test]
    fn patterns_are_anchored_and_lookaround_spilled() {
        let out = run(
            XgrammarPatterns,
            json!({"type": "object", "properties": {
                "a": {"type": "string", "pattern": "ab"},
                "b": {"type": "string", "pattern": "^(?!x)"}
            }, "additionalProperties": false}),
        );
        let a = out.schema["properties"]["a"]["pattern"].as_str().unwrap();
        assert!(
            a.starts_with('^') && a.ends_with('$') && a.contains("ab"),
            "{a}"
        );
        assert!(out.schema["properties"]["b"].get("pattern").is_none());
        assert_eq!(out.changes.len(), 1);
        assert!(out.losses.iter().any(|l| l.keyword == "pattern"));
    }
}
