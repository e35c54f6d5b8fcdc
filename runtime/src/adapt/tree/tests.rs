//! The engine's promises on every test document (generated ones, the fuzz suite's regressions,
//! the real catalogs and the reference vectors): every report entry's `pointer` is in the
//! input and its `at` in the output, and a tree written without rules is its input.

use serde_json::{Value, json};

use super::*;
use crate::adapt::{AdaptSettings, Adapted, LossKind, Target};

/// Every test document: generated, fuzz regressions, real tools, reference-vector inputs.
pub(crate) fn corpus() -> Vec<Value> {
    let mut docs = corpus::documents();
    // More generated documents, from a second seed.
    let mut generator = corpus::Gen(0x7ee5_0001);
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

/// Every target, every test document: each loss and change names a place in the input, and,
/// where it has one, a place in the output.
#[test]
fn every_entry_is_placed_in_the_input_and_the_output() {
    let docs = corpus();
    let mut failures = Vec::new();
    let mut placed = 0;
    stacker::grow(256 << 20, || {
        for target in Target::ALL {
            let settings = target.settings();
            for (i, doc) in docs.iter().enumerate() {
                let adapted = settings.adapt(doc);
                placed += adapted.losses.len() + adapted.changes.len();
                if let Err(why) = places_resolve(&adapted) {
                    failures.push(format!("{target} document {i}: {why}\n{doc}"));
                }
            }
        }
    });
    assert!(placed > 100_000, "{placed} entries");
    assert!(
        failures.is_empty(),
        "{}",
        failures[..failures.len().min(5)].join("\n\n")
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
        let (out, at) = tree.clone().write(&vec![true; tree.nodes.len()]);
        assert_eq!(out, doc);
        for (id, origin) in origins {
            // Nothing moved: a node is written where it stood.
            assert_eq!(
                tree.pointer(origin).as_str(),
                at.get(id).expect("written").1.as_str(),
                "{doc}"
            );
        }
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
        crate::adapt::rules::run(&mut crate::adapt::rules::UnreferencedDefinitions, doc);
    assert_eq!(failure, None);
    let kept: Vec<&String> = out["$defs"].as_object().expect("kept").keys().collect();
    assert_eq!(kept, ["A", "B"]);
    assert_eq!(changes.len(), 1);
    assert_eq!(
        changes[0].detail,
        "4 definitions nothing references removed: `C`, `D`, `E`, `F`"
    );
}

/// What a `spilled` loss says the description holds (its detail ends `the description says
/// "…"`).
fn said(detail: &str) -> &str {
    let (_, said) = (detail.rsplit_once("the description says \""))
        .unwrap_or_else(|| panic!("a spilled loss says where: {detail}"));
    said.strip_suffix('"').expect("quoted")
}

/// A spilled keyword's `at` names the node whose description holds it, after the rules moved
/// union branches: a nested `anyOf` spliced into its parent (OpenAI strict), a structured branch
/// put first (every target). The branch node moves and `at` is where it is written (a guess
/// from what each branch holds once named the integer branch here, and the string branch for
/// `Untagged`, whose `format` is on the integer branch).
#[test]
fn spilled_keywords_are_at_the_branch_that_holds_them_after_branches_move() {
    let spliced = json!({"type": "object", "required": ["p"], "properties": {"p": {"anyOf": [
        {"type": "null"},
        {"anyOf": [{"type": "integer"}, {"type": "string", "minLength": 2}]}
    ]}}});
    let reordered = json!({"type": "object", "required": ["u"], "properties": {"u": {"anyOf": [
        {"type": "string"},
        {"type": "integer", "format": "uint64"},
        {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"], "additionalProperties": false}
    ]}}});
    for (schema, keyword, at) in [
        (&spliced, "minLength", "/properties/p/anyOf/2"),
        (&reordered, "format", "/properties/u/anyOf/2"),
    ] {
        let adapted = Target::OpenAiStrict.adapt(schema);
        let loss = adapted
            .losses
            .iter()
            .find(|l| l.keyword == keyword)
            .expect("spilled");
        assert_eq!(loss.at.as_ref().map(|p| p.as_str()), Some(at));
        let description = adapted
            .schema
            .pointer(at)
            .and_then(|n| n.get("description"));
        assert!(
            description
                .and_then(Value::as_str)
                .is_some_and(|d| d.contains(said(&loss.detail))),
            "{keyword} at {at}: {description:?}"
        );
    }
}

/// A spilled keyword's `at` names the node whose description holds it, after the rewrites that
/// move schemas: a definition inlined and then its branches reordered, a tuple sent as `items`,
/// an optional property wrapped with null, a type list split, collapsed branches whose words
/// the node keeps, and a property named `properties` or `description`. Each case is a fuzz
/// finding (seeds 0x70015c4e and 0x2) of the check that the description at `at` holds the text.
#[test]
fn spilled_keywords_are_at_the_node_that_holds_them_after_schemas_move() {
    let cases = [
        (
            Target::GeminiCompat,
            json!({"properties": {"id": {"$ref": "#/$defs/D1"}}, "$defs": {"D1": {"anyOf": [
                {"type": "string", "format": "date-time"}, {"type": ["object", "null"]}]}}}),
            "format",
            "/properties/id/anyOf/1",
        ),
        (
            Target::GeminiCompat,
            json!({"type": "object", "properties": {"id": {"type": "array", "prefixItems": [
                {"oneOf": [{"enum": [null]}, {"type": "string"}]},
                {"anyOf": [{"type": "string", "format": "date-time"}]}]}}}),
            "format",
            "/properties/id/items/anyOf/1",
        ),
        (
            Target::GeminiOpenApi,
            json!({"type": "object", "properties": {"properties": {"oneOf": [{"anyOf": [
                {"enum": [false]}, {"const": 0}]}]}}}),
            "const",
            "/properties/properties/anyOf/1",
        ),
        (
            Target::CcaClaude,
            json!({"type": "object", "properties": {"id": {"anyOf": [
                {"type": "array", "items": {"type": "string"}},
                {"type": "array", "items": {"type": "integer", "format": "date-time"}}]}}}),
            "format",
            "/properties/id",
        ),
        (
            Target::CcaClaude,
            json!({"type": "object", "properties": {"id": {"properties": {"description": {"anyOf": [
                {"type": "string"}, {"type": "string", "pattern": "^[a-z]*$"}]}}}}}),
            "pattern",
            "/properties/id/properties/description",
        ),
        (
            Target::CcaClaude,
            json!({"type": "object", "$defs": {"D0": {"properties": {}}},
                "properties": {"id": {"type": "array", "prefixItems": [
                {"anyOf": [{"$ref": "#/$defs/D0"}, {"properties": {"id": {"type": "string", "pattern": "^[a-z]*$"}}}]},
                {"type": "string", "format": "date-time"}]}}}),
            "pattern",
            "/properties/id/items/properties/id",
        ),
        (
            Target::OpenAiResponses,
            json!({"type": "object", "properties": {"id": {"type": "array", "prefixItems": [
                {"type": "string", "maxLength": 2}, {"properties": {}}]}}}),
            "maxLength",
            "/properties/id/anyOf/0/items/anyOf/1",
        ),
        (
            Target::OpenAiStrict,
            json!({"type": "object", "properties": {"id": {"type": "string", "default": null}}}),
            "default",
            "/properties/id",
        ),
        (
            Target::OpenAiStrict,
            json!({"type": "object", "required": ["root"], "properties": {"root": {"oneOf": [
                {"type": "null"},
                {"type": ["object", "null"], "properties": {"x": {"type": "string", "maxLength": 8}}}]}}}),
            "maxLength",
            "/properties/root/anyOf/0/properties/x",
        ),
    ];
    for (target, schema, keyword, at) in cases {
        let adapted = target.adapt(&schema);
        let loss = adapted
            .losses
            .iter()
            .find(|l| l.keyword == keyword && l.kind == LossKind::Spilled)
            .unwrap_or_else(|| panic!("{target}: {keyword} spilled: {:?}", adapted.losses));
        assert_eq!(
            loss.at.as_ref().map(|p| p.as_str()),
            Some(at),
            "{target}: {keyword}"
        );
        let text = said(&loss.detail);
        let description = adapted
            .schema
            .pointer(at)
            .and_then(|n| n.get("description"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        assert!(
            description.contains(text),
            "{target}: `{text}` at {at}: {description:?}"
        );
    }
}

/// Property names that read as array indices or keywords (`0`, `anyOf`, `oneOf`, ...) keep
/// their own places when the report's positions are taken through the moves (such tokens get
/// an id without hashing their text, and a name must not be taken for the keyword or index it
/// spells): on every target, each spilled keyword's pointer names it in the input, and the
/// description at its `at` holds it.
#[test]
fn names_spelled_like_indices_or_keywords_keep_their_places_through_moves() {
    let object = json!({"type": "object", "additionalProperties": false,
    "required": ["0", "1", "anyOf", "oneOf", "items"],
    "properties": {
        "0": {"type": "string", "maxLength": 1},
        "1": {"type": "string", "pattern": "^b"},
        "anyOf": {"type": "string", "maxLength": 3},
        "oneOf": {"type": "integer", "minimum": 4},
        "items": {"type": "string", "format": "email"}
    }});
    let schema = json!({"type": "object", "required": ["u", "t"], "properties": {
        "u": {"anyOf": [{"type": "string", "maxLength": 9}, object.clone()]},
        "t": {"type": "array", "prefixItems": [{"type": "integer", "minimum": 5}, object]}
    }});
    let mut spilled = 0;
    for &target in Target::ALL {
        let adapted = target.adapt(&schema);
        for loss in adapted
            .losses
            .iter()
            .filter(|l| l.kind == LossKind::Spilled)
        {
            spilled += 1;
            let keyword = loss.pointer.last_token().expect("names the keyword");
            assert_eq!(keyword, loss.keyword, "{target}: {loss:?}");
            assert!(
                schema.pointer(&loss.pointer).is_some(),
                "{target}: {} is not in the input",
                loss.pointer
            );
            let at = loss.at.as_ref().expect("spilled somewhere");
            let description = adapted
                .schema
                .pointer(at)
                .and_then(|n| n.get("description"))
                .and_then(Value::as_str);
            assert!(
                description.is_some_and(|d| d.contains(said(&loss.detail))),
                "{target}: {} spilled at {at}: {description:?}",
                loss.pointer
            );
        }
    }
    assert!(spilled > 20, "{spilled}");
}

/// A rule that says it only reads ([`Rule::reads_only`]: the engine then keeps its tree when it
/// refuses a strict attempt) leaves the tree as it was and records nothing but a refusal, run
/// where each target's lists put it, on every test document.
#[test]
fn checks_change_nothing() {
    let docs = corpus();
    let mut checked = 0;
    stacker::grow(256 << 20, || {
        for target in Target::ALL {
            let settings = target.settings();
            type List = fn(&AdaptSettings) -> Vec<Box<dyn Rule>>;
            let lists: [List; 2] = [AdaptSettings::rules, AdaptSettings::relaxed_rules];
            for list in lists {
                if !list(&settings).iter().any(|r| r.reads_only()) {
                    continue;
                }
                for doc in &docs {
                    let mut tree = Tree::read(doc);
                    let mut report = Report::default();
                    for mut rule in list(&settings) {
                        if report.failed() {
                            break;
                        }
                        report.rule = rule.name();
                        if !rule.reads_only() {
                            rule.apply(&mut tree, &mut report);
                            continue;
                        }
                        let before = (tree.to_value(tree.root), report.entries());
                        rule.apply(&mut tree, &mut report);
                        let after = (tree.to_value(tree.root), report.entries());
                        assert_eq!(before, after, "{target} {}: {doc}", rule.name());
                        checked += 1;
                    }
                }
            }
        }
    });
    assert!(checked > 10_000, "{checked}");
}
