//! The tree engine against the old one, while targets move over: every ported target gives the
//! same output and the same report on every test document (the generated ones, the fuzz
//! suite's regressions, the real catalogs and the reference vectors).

use serde_json::Value;

use super::*;
use crate::adapt::{AdaptSettings, Adapted, Target};

/// Every test document: generated, fuzz regressions, real tools, reference-vector inputs.
pub(crate) fn corpus() -> Vec<Value> {
    let mut docs = crate::adapt::holds::tests::documents();
    // More generated documents than the old engine's own tests use.
    let mut generator = crate::adapt::holds::tests::Gen(0x7ee5_0001);
    docs.extend((0..4_000).map(|_| generator.schema(0)));
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures");
    let read = |path: &std::path::Path| -> Value {
        serde_json::from_str(&std::fs::read_to_string(path).expect("readable")).expect("JSON")
    };
    let mut files: Vec<_> = std::fs::read_dir(format!("{fixtures}/fuzz"))
        .expect("fuzz fixtures")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    docs.extend(files.iter().map(|f| read(f)["schema"].clone()));
    let mut files: Vec<_> = std::fs::read_dir(format!("{fixtures}/tools"))
        .expect("tool catalogs")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.file_name().is_some_and(|n| n != "SOURCES.json")
                && p.extension().is_some_and(|e| e == "json")
        })
        .collect();
    files.sort();
    for f in files {
        if let Value::Array(tools) = read(&f) {
            docs.extend(tools.iter().filter_map(|t| t.get("inputSchema").cloned()));
        }
    }
    if let Value::Array(vectors) = read(std::path::Path::new(&format!(
        "{fixtures}/omp/vectors.json"
    ))) {
        docs.extend(vectors.iter().filter_map(|v| v.get("input").cloned()));
    }
    docs
}

/// The old engine's adaptation with the same settings.
fn old(settings: &AdaptSettings, doc: &Value) -> Adapted<'static> {
    let mut settings = settings.clone();
    settings.tree = None;
    settings.adapt(doc).into_owned()
}

/// How two adaptations' report entries may differ on purpose.
#[derive(Default)]
struct Departures {
    /// A node below a merged branch that is not written (an `anyOf` of a root union's branch,
    /// dropped with it) has no `at`, where the old engine named the node the branch was merged
    /// into for some of them (under a union) and none for others (under `$defs`, `prefixItems`).
    unplaced: usize,
    /// The entry's `pointer` is where its keyword or node stood in the input, read from the
    /// origin the node carried; the old engine took positions back through logged moves and
    /// guessed some (a node of `definitions` named under `$defs`, a tuple position named under
    /// the `prefixItems` it became, a wrapped node named at its first branch).
    repointed: Vec<(String, String)>,
    /// The entry's `at` is where its node is written: for a property made nullable by
    /// close-objects, the wrapper at the property's place (where its description, with what was
    /// spilled, now is), where the old engine named the wrapper's first branch when the property
    /// held a union and the wrapper otherwise; below a property named `anyOf` or `$ref`, the
    /// node itself, where the old engine took the name for the keyword.
    replaced: Vec<(String, String)>,
    /// Has an `at` where the old engine gave none (a tuple rewritten as `items`: the array).
    placed: usize,
    /// Names the keyword lost where the old engine named another: a `oneOf` under a property or
    /// branch list called `anyOf` (reported as `anyOf`), a keyword below a property called
    /// `items` (reported as `items`); the new keyword is the one its pointer names.
    renamed: usize,
    /// Documents whose unreferenced definitions an inlining target removed first.
    pruned: usize,
    /// Where the old engine guessed the pointer, its keyword or its verdict on a dropped
    /// description followed the guess (a snake-case key read as the keyword it spells, a
    /// `const` union's values named at its first branch).
    followed: usize,
}

/// What differs between two adaptations, in words (empty: nothing), beside the departures.
fn differences(old: &Adapted<'_>, new: &Adapted<'_>, departures: &mut Departures) -> Vec<String> {
    let mut out = Vec::new();
    if old.schema != new.schema {
        out.push(format!(
            "schema:\n  old {}\n  new {}",
            old.schema, new.schema
        ));
    }
    if (old.strict, old.fallback) != (new.strict, new.fallback) {
        out.push(format!(
            "strict/fallback: old {:?} new {:?}",
            (old.strict, old.fallback),
            (new.strict, new.fallback)
        ));
    }
    // Whether the old engine guessed a place in this document: its post-processing (a spill
    // into a dropped subschema, the keyword read back from a place) then followed the guess
    // for other entries too.
    let pointers = |a: &Adapted<'_>| -> Vec<String> {
        (a.losses.iter().map(|l| l.pointer.to_string()))
            .chain(a.changes.iter().map(|c| c.pointer.to_string()))
            .collect()
    };
    let guessed = pointers(old) != pointers(new);
    let mut entries = |kind: &str, old: Vec<Value>, new: Vec<Value>| {
        let same = old.len() == new.len()
            && old.iter().zip(&new).all(|(o, n)| {
                let (mut o, mut n) = (o.clone(), n.clone());
                let (o_map, n_map) = (
                    o.as_object_mut().expect("an entry"),
                    n.as_object_mut().expect("an entry"),
                );
                let (op, np) = (o_map.remove("pointer"), n_map.remove("pointer"));
                match (o_map.remove("at"), n_map.remove("at")) {
                    (Some(_), None) => departures.unplaced += 1,
                    (None, Some(_)) => departures.placed += 1,
                    (Some(o), Some(n)) if o != n => {
                        departures.replaced.push((o.to_string(), n.to_string()));
                    }
                    _ => {}
                }
                // A property named `anyOf` made the old engine report a `oneOf` → `anyOf`
                // under that name.
                let keyword = |m: &serde_json::Map<String, Value>| m.get("keyword").cloned();
                let last = np
                    .as_ref()
                    .and_then(Value::as_str)
                    .and_then(|p| p.rsplit('/').next());
                let named_by_pointer = keyword(n_map) != keyword(o_map)
                    && keyword(n_map).as_ref().and_then(Value::as_str) == last;
                let one_of = keyword(o_map) == Some(Value::from("anyOf"))
                    && keyword(n_map) == Some(Value::from("oneOf"));
                if named_by_pointer || one_of {
                    o_map.insert("keyword".into(), keyword(n_map).unwrap_or_default());
                    departures.renamed += 1;
                }
                // Where the old engine guessed the place, the keyword it named and whether it
                // found the description dropped followed its guess: the rule and what was said
                // must agree.
                if guessed {
                    let said = |m: &serde_json::Map<String, Value>| {
                        let detail = m.get("detail").and_then(Value::as_str).unwrap_or_default();
                        let detail = detail.split(", but that description was dropped").next();
                        (m.get("rule").cloned(), detail.map(str::to_owned))
                    };
                    if o_map != n_map && said(o_map) == said(n_map) {
                        departures.followed += 1;
                        *o_map = n_map.clone();
                    }
                }
                if o_map != n_map {
                    return false;
                }
                if op != np {
                    departures.repointed.push((
                        format!("{}", op.unwrap_or_default()),
                        format!("{}", np.unwrap_or_default()),
                    ));
                }
                true
            });
        if !same {
            let without_places = |e: &Value| {
                let mut e = e.clone();
                let map = e.as_object_mut().expect("an entry");
                map.remove("pointer");
                map.remove("at");
                e
            };
            let first =
                (old.iter().zip(&new)).position(|(o, n)| without_places(o) != without_places(n));
            let at = first.unwrap_or(old.len().min(new.len()));
            out.push(format!(
                "{kind} ({} old, {} new), from entry {at}:\n  old {}\n  new {}",
                old.len(),
                new.len(),
                Value::from(
                    old.get(at..at + 2)
                        .unwrap_or(old.get(at..).unwrap_or(&[]))
                        .to_vec()
                ),
                Value::from(
                    new.get(at..at + 2)
                        .unwrap_or(new.get(at..).unwrap_or(&[]))
                        .to_vec()
                )
            ));
        }
    };
    let list = |v: Value| match v {
        Value::Array(items) => items,
        _ => unreachable!("a list"),
    };
    entries("losses", list(json(&old.losses)), list(json(&new.losses)));
    entries(
        "changes",
        list(json(&old.changes)),
        list(json(&new.changes)),
    );
    out
}

/// Every entry's `pointer` names a place in the input, and its `at` one in the output.
fn places_resolve(adapted: &Adapted<'_>) -> Result<(), String> {
    let places = (adapted.losses.iter().map(|l| (&l.pointer, &l.at)))
        .chain(adapted.changes.iter().map(|c| (&c.pointer, &c.at)));
    for (pointer, at) in places {
        if adapted.input.pointer(pointer).is_none() {
            return Err(format!("pointer {pointer} is not in the input"));
        }
        if let Some(at) = at {
            if adapted.schema.pointer(at).is_none() {
                return Err(format!("at {at} is not in the output"));
            }
        }
    }
    Ok(())
}

/// `doc` with the root's definitions that nothing references removed, as the inlining targets
/// do first.
fn without_unreferenced_definitions(doc: &Value) -> Value {
    let mut tree = Tree::read(doc);
    let mut report = Report::default();
    super::rules::UnreferencedDefinitions.apply(&mut tree, &mut report);
    tree.write(&|_| false).0
}

/// A report's entries as JSON, as a client reads them.
fn json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("JSON")
}

/// The ported targets adapt every test document exactly as the old engine does.
#[test]
fn ported_targets_adapt_as_the_old_engine() {
    let docs = corpus();
    let mut failures = Vec::new();
    let mut compared = 0;
    let mut departures = Departures::default();
    for target in Target::ALL {
        let settings = target.settings();
        if settings.tree.is_none() {
            continue;
        }
        for (i, doc) in docs.iter().enumerate() {
            compared += 1;
            let mut new = settings.adapt(doc);
            // On the targets that inline references, the definitions nothing references are
            // removed first (one change); the old engine is given the document without them.
            let inlines = matches!(
                target,
                Target::Gemini | Target::GeminiOpenApi | Target::CcaClaude
            );
            let old = if inlines {
                let before = new.changes.len();
                new.changes.retain(|c| c.rule != "unreferenced-definitions");
                departures.pruned += before - new.changes.len();
                old(&settings, &without_unreferenced_definitions(doc))
            } else {
                old(&settings, doc)
            };
            let mut diff = differences(&old, &new, &mut departures);
            if let Err(why) = places_resolve(&new) {
                diff.push(why);
            }
            if !diff.is_empty() {
                failures.push(format!("{target} document {i}: {doc}\n{}", diff.join("\n")));
            }
        }
    }
    assert!(compared > 0);
    eprintln!(
        "{compared} adaptations compared; {} entries name a node that is not written, {} a place the old engine guessed, {} are written elsewhere than the old engine said, {} are placed where the old engine said nowhere, {} name the keyword where the old engine named a property; {} had unreferenced definitions removed; {} entries' keyword or kind followed the old engine's guessed place",
        departures.unplaced,
        departures.repointed.len(),
        departures.replaced.len(),
        departures.placed,
        departures.renamed,
        departures.pruned,
        departures.followed,
    );
    for (old, new) in departures.repointed.iter().take(40) {
        eprintln!("  pointer {old} → {new}");
    }
    for (old, new) in departures.replaced.iter().take(40) {
        eprintln!("  at {old} → {new}");
    }
    assert!(
        failures.is_empty(),
        "{} of {compared} differ; the first ones:\n\n{}",
        failures.len(),
        failures
            .iter()
            .take(6)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

/// Reading and writing a document without rules gives it back as it was, whatever its shape;
/// every node's origin names where it stood.
#[test]
fn read_then_write_is_the_identity() {
    for doc in corpus() {
        let tree = Tree::read(&doc);
        let mut origins = Vec::new();
        let mut t = tree.clone();
        t.walk(|t, id| origins.push((id, t.node(id).origin)));
        let (out, at) = tree.clone().write(&|_| true);
        assert_eq!(out, doc);
        for (id, origin) in origins {
            // Nothing moved: a node is written where it stood.
            let mut memo = std::collections::HashMap::new();
            assert_eq!(
                tree.pointer(origin, &mut memo).as_str(),
                at[&id].1.as_str(),
                "{doc}"
            );
        }
    }
}

/// A rule ported ahead of its targets against the old one, on every test document: the same
/// output, no failure, and the same losses and changes (kind, keyword, detail) in the same
/// order. Their places are checked where the targets move over (each rule alone records them
/// in the document as it runs, not in the input).
///
/// With `flips`, a `oneOf` the old rule called overlapping (a `widened` loss) may be exclusive
/// for the new one (a change): the old rule looked its verdict up by the union's path after the
/// `oneOf`s above it were renamed, missed it, and took "overlapping" for a union with a `$ref`
/// branch under another `oneOf`. The count of such flips is returned beside the rewritten ones.
fn same_as_old_rule(old: &mut dyn crate::adapt::rules::Rule, new: &mut dyn Rule) -> usize {
    same_as_old_rule_but(old, new, false).0
}

fn same_as_old_rule_but(
    old: &mut dyn crate::adapt::rules::Rule,
    new: &mut dyn Rule,
    flips: bool,
) -> (usize, usize) {
    const WIDENED: &str = "`oneOf` → `anyOf`: the branches may overlap, and a value matching several is no longer rejected";
    const EXCLUSIVE: &str = "`oneOf` → `anyOf` (the branches are exclusive)";
    let without = |entries: &[Value], detail: &str| -> (Vec<Value>, usize) {
        let kept: Vec<Value> = (entries.iter())
            .filter(|e| !flips || e["detail"] != detail)
            .cloned()
            .collect();
        let gone = entries.len() - kept.len();
        (kept, gone)
    };
    let mut flipped = 0;
    let strip = |entries: Value| -> Vec<Value> {
        let Value::Array(entries) = entries else {
            unreachable!()
        };
        (entries.into_iter())
            .map(|mut e| {
                let map = e.as_object_mut().expect("an entry");
                map.remove("pointer");
                map.remove("at");
                map.remove("rule");
                e
            })
            .collect()
    };
    let mut rewritten = 0;
    for doc in corpus() {
        let (old_out, old_report) = crate::adapt::rules::run(old, doc.clone());
        let (new_out, losses, changes, failure) = super::rules::run(new, doc.clone());
        assert_eq!(new_out, old_out, "{}: {doc}", new.name());
        assert_eq!(failure, None);
        let (new_losses, new_widened) = without(&strip(json(&losses)), WIDENED);
        let (old_losses, old_widened) = without(&strip(json(&old_report.losses)), WIDENED);
        let (new_changes, new_exclusive) = without(&strip(json(&changes)), EXCLUSIVE);
        let (old_changes, old_exclusive) = without(&strip(json(&old_report.changes)), EXCLUSIVE);
        assert_eq!(new_losses, old_losses, "{doc}");
        assert_eq!(new_changes, old_changes, "{doc}");
        assert!(new_widened <= old_widened, "{doc}");
        assert_eq!(
            old_widened - new_widened,
            new_exclusive - old_exclusive,
            "{doc}"
        );
        flipped += old_widened - new_widened;
        rewritten += usize::from(new_out != doc);
    }
    (rewritten, flipped)
}

/// The rules ported ahead of their targets (the strict targets, Gemini, CCA), each with how many
/// test documents it must rewrite for the comparison to mean something.
#[test]
fn rules_ported_ahead_rewrite_as_the_old_ones() {
    use super::rules as new;
    use crate::adapt::rules as old;
    macro_rules! pair {
        ($rule:ident, $more_than:expr) => {
            (
                Box::new(old::$rule) as Box<dyn old::Rule>,
                Box::new(new::$rule) as Box<dyn Rule>,
                $more_than,
            )
        };
        ($rule:ident { $($field:ident: $value:expr),* }, $more_than:expr) => {
            (
                Box::new(old::$rule { $($field: $value),* }) as Box<dyn old::Rule>,
                Box::new(new::$rule { $($field: $value),* }) as Box<dyn Rule>,
                $more_than,
            )
        };
    }
    let pairs = [
        pair!(CollapseCombiners, 100),
        pair!(SpliceNestedAnyOf, 20),
        pair!(MergeSingleAllOf, 50),
        pair!(DefaultToDescription, 100),
        pair!(ConstToEnum, 100),
        pair!(AllConstToEnum, 5),
        pair!(InferType, 200),
        pair!(SplitTypeArrays, 200),
        pair!(SnakeCaseKeywords, 100),
        pair!(BoolSchemas, 100),
        pair!(EnsureProperties, 100),
        pair!(PropertyOrdering, 50),
        pair!(
            GoogleNullable {
                mark_nullable: true
            },
            100
        ),
        pair!(
            GoogleNullable {
                mark_nullable: false
            },
            100
        ),
        pair!(StringEnumsOnly, 50),
        pair!(OneBranchUnions, 20),
        pair!(RequiredAreProperties, 20),
    ];
    for (mut old, mut new, more_than) in pairs {
        let rewritten = same_as_old_rule(old.as_mut(), new.as_mut());
        assert!(
            rewritten > more_than,
            "{}: only {rewritten} documents rewritten",
            new.name()
        );
    }
}

/// `oneof-to-anyof`, with the verdicts the old rule missed counted.
#[test]
fn oneof_to_anyof_rewrites_as_the_old_rule() {
    let (rewritten, flipped) = same_as_old_rule_but(
        &mut crate::adapt::rules::OneOfToAnyOf,
        &mut super::rules::OneOfToAnyOf,
        true,
    );
    assert!(rewritten > 100, "only {rewritten} documents had a `oneOf`");
    eprintln!("oneof-to-anyof: {flipped} verdicts the old rule missed");
}

/// The keyword strip of the strict targets, ported ahead of them: OpenAI strict's table (with
/// the values it keeps) and Anthropic strict's.
#[test]
fn keyword_rules_rewrite_as_the_old_ones() {
    type Table = (&'static [&'static str], fn(&str, &Value) -> bool);
    let tables: [Table; 2] = [
        (
            &[
                "format",
                "pattern",
                "minLength",
                "maxLength",
                "minimum",
                "title",
                "$comment",
                "if",
                "then",
                "else",
                "not",
                "patternProperties",
                "contains",
                "examples",
                "deprecated",
                "minProperties",
            ],
            |k, v| k == "pattern" && v.is_string(),
        ),
        (
            &[
                "minimum",
                "maximum",
                "multipleOf",
                "minLength",
                "maxLength",
                "minItems",
                "format",
                "pattern",
                "not",
                "if",
                "propertyNames",
                "contentSchema",
            ],
            |k, v| k == "minItems" && v.as_u64().is_some_and(|n| n <= 1),
        ),
    ];
    for (keywords, keep) in tables {
        let old = crate::adapt::rules::StripKeywords {
            name: "strip",
            keywords,
            spill: crate::adapt::rules::keywords::HUMAN_READABLE,
            why: "not supported",
            keep,
            also_keep: vec!["title".into()],
        };
        let new = super::rules::StripKeywords {
            name: "strip",
            keywords,
            spill: crate::adapt::rules::keywords::HUMAN_READABLE,
            why: "not supported",
            keep,
            also_keep: vec!["title".into()],
        };
        let rewritten = same_as_old_rule(&mut old.node_rule(), &mut new.clone());
        assert!(
            rewritten > 200,
            "only {rewritten} documents had a keyword to strip"
        );
    }
}

/// The definitions nothing reaches go first, with one change naming them: a chain reached from
/// the root's own `$ref` stays, a cycle and a definition used only by an unreferenced one go.
#[test]
fn unreferenced_definitions_are_removed_first() {
    let doc = serde_json::json!({
        "$ref": "#/$defs/A",
        "$defs": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
            "B": {"type": "string"},
            "C": {"$ref": "#/$defs/D"},
            "D": {"$ref": "#/$defs/C"},
            "E": {"not": {"$ref": "#/$defs/F"}},
            "F": {"title": "T"}
        }
    });
    let (out, _, changes, failure) =
        super::rules::run(&mut super::rules::UnreferencedDefinitions, doc);
    assert_eq!(failure, None);
    let kept: Vec<&String> = out["$defs"].as_object().expect("kept").keys().collect();
    assert_eq!(kept, ["A", "B"]);
    assert_eq!(changes.len(), 1);
    assert_eq!(
        changes[0].detail,
        "4 definitions nothing references removed before adapting: `C`, `D`, `E`, `F`"
    );
}
