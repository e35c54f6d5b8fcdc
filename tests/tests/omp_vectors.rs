//! The reference implementation's vectors (strict, responses, mcp, google and cca paths), run through the
//! matching stage of our adapters and compared with the reference output. Every difference must
//! be listed, with its reason, in `docs/omp-differences.md`; a listed vector that no longer
//! differs fails too, so the table cannot go stale.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Value, json};
use toolschema::Target;
use toolschema::adapt::rules::{
    self, InferType, OneOfToAnyOf, ResponsesPrepass, Rule, UpgradeDraft07,
};
use toolschema::adapt::{AdaptOptions, AdaptSettings};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The reference's two strict stages, cut out of our strict attempt (so that the vectors test
/// the rules we run): `sanitizeSchemaForStrictMode` is what follows `strict-precheck` up to the
/// first `infer-type`;
/// `enforceStrictSchema` is the rest (run on a vector's own input after an `infer-type`, as the
/// reference's second stage starts: see [`ours`]).
type Rules = Vec<Box<dyn Rule>>;

fn strict_stages() -> (Rules, Rules) {
    let rules = AdaptSettings::openai_strict().with_options(seed()).rules();
    let names: Vec<&str> = rules.iter().map(|r| r.name()).collect();
    let start = names.iter().position(|n| *n == "strict-precheck").unwrap() + 1;
    let end = start
        + names[start..]
            .iter()
            .position(|n| *n == "infer-type")
            .unwrap()
        + 1;
    let mut rules = rules.into_iter();
    let sanitize: Vec<_> = rules.by_ref().take(end).skip(start).collect();
    (sanitize, rules.collect())
}

fn vectors() -> Vec<Value> {
    serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/omp/vectors.json")).unwrap(),
    )
    .unwrap()
}

/// `| vector name | reason |` rows of the differences table.
fn listed() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(root().join("../docs/omp-differences.md")).unwrap();
    text.lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split(" | ").map(str::trim).collect();
            (cells[0].trim_matches('`').to_owned(), cells[1].to_owned())
        })
        .collect()
}

fn not_json(v: &Value) -> bool {
    let text = v.to_string();
    text.contains("$nonJson") || text.contains("$cycle")
}

/// The reference implements the second seed, which spills every OpenAI value constraint: our
/// conservative option.
fn seed() -> AdaptOptions {
    AdaptOptions::default().openai_conservative(true)
}

/// What our matching stage produces for a vector, or why there is no matching stage.
fn ours(vector: &Value) -> Result<Value, &'static str> {
    let input = &vector["input"];
    if not_json(input) {
        return Err("not-json");
    }
    let call = vector["call"].as_str().unwrap_or("");
    let stage = |mut rules: Vec<Box<dyn Rule>>| {
        let applied = rules::apply(&mut rules, input);
        (applied.schema, applied.failure.is_none())
    };
    match vector["fn"].as_str().unwrap() {
        // Our sanitize stage runs after the draft upgrade, which handles `nullable` (the
        // reference's sanitizer does that itself).
        "sanitizeSchemaForStrictMode" => {
            let mut rules: Vec<Box<dyn Rule>> = vec![Box::new(UpgradeDraft07)];
            rules.extend(strict_stages().0);
            Ok(stage(rules).0)
        }
        // The reference's second stage starts by inferring types; our list infers them once,
        // at the end of the first stage, so a vector that calls the second stage on its own
        // input gets that inference first.
        "enforceStrictSchema" => {
            let mut rules: Vec<Box<dyn Rule>> = vec![Box::new(InferType)];
            rules.extend(strict_stages().1);
            let (schema, ok) = stage(rules);
            Ok(if ok { schema } else { json!({"$throws": true}) })
        }
        "tryEnforceStrictSchema" => {
            let a = Target::OpenAiStrict
                .settings()
                .with_options(seed())
                .adapt(input);
            Ok(json!({"schema": a.schema, "strict": a.strict == Some(true)}))
        }
        "adaptSchemaForStrict" => {
            if call.contains(", false)") {
                let (schema, _) = stage(vec![Box::new(UpgradeDraft07)]);
                Ok(json!({"schema": schema, "strict": false}))
            } else {
                let a = Target::OpenAiStrict
                    .settings()
                    .with_options(seed())
                    .adapt(input);
                Ok(json!({"schema": a.schema, "strict": a.strict == Some(true)}))
            }
        }
        "sanitizeSchemaForOpenAIResponses" => {
            Ok(stage(vec![Box::new(ResponsesPrepass), Box::new(OneOfToAnyOf)]).0)
        }
        "normalizeSchemaForMCP" => Ok(Target::Mcp.adapt(input).schema),
        "normalizeSchemaForGoogle" => Ok(node_level(input, Target::GeminiCompat)),
        "normalizeSchemaForCCA" => Ok(node_level(input, Target::CcaClaude)),
        _ => Err("provider-call"),
    }
}

/// The reference normalizes any schema node; our targets adapt a tool's parameters (an object).
/// A vector whose input is not an object schema is run as the one property of an object, and
/// that property's output is compared.
fn node_level(input: &Value, target: Target) -> Value {
    let object_shaped = |v: &Value| {
        v.get("type").and_then(Value::as_str) == Some("object")
            || (v.get("type").is_none()
                && (v.get("properties").is_some() || v.get("required").is_some()))
    };
    let union_of_objects = ["anyOf", "oneOf"].iter().any(|k| {
        input
            .get(*k)
            .and_then(Value::as_array)
            .is_some_and(|bs| !bs.is_empty() && bs.iter().all(object_shaped))
    });
    if object_shaped(input)
        || input.get("$ref").is_some()
        || (input.get("type").is_none() && union_of_objects)
    {
        return target.adapt(input).schema;
    }
    let wrapped = json!({"type": "object", "properties": {"v": input}});
    let adapted = target.adapt(&wrapped);
    if adapted.fallback {
        // Cloud Code Assist's per-tool fallback replaces the whole schema.
        return adapted.schema;
    }
    adapted.schema["properties"]["v"].clone()
}

#[test]
fn reference_vectors_match_or_are_listed_with_a_reason() {
    let vectors = vectors();
    assert_eq!(vectors.len(), 191);
    let listed = listed();
    let mut differing = BTreeMap::new();
    let mut matching = 0;
    for v in &vectors {
        let name = v["name"].as_str().unwrap().to_owned();
        let expected = if v["assertions"]
            .to_string()
            .contains("evaluating the call throws")
        {
            json!({"$throws": true})
        } else {
            v["oracle_output"].clone()
        };
        match ours(v) {
            Ok(out) if out == expected => matching += 1,
            Ok(out) => {
                differing.insert(name, format!("ours: {out}\nreference: {expected}"));
            }
            Err(why) => {
                differing.insert(name, why.to_owned());
            }
        }
    }
    let unlisted: Vec<(&String, &String)> = differing
        .iter()
        .filter(|(n, _)| !listed.contains_key(*n))
        .collect();
    assert!(
        unlisted.is_empty(),
        "{} differences not in docs/omp-differences.md:\n{unlisted:#?}",
        unlisted.len()
    );
    let stale: Vec<&String> = listed
        .keys()
        .filter(|n| !differing.contains_key(*n))
        .collect();
    assert!(
        stale.is_empty(),
        "listed in docs/omp-differences.md but no longer different: {stale:#?}"
    );
    for (name, reason) in &listed {
        assert!(reason.len() > 10, "`{name}` needs a reason");
    }
    println!(
        "{matching} of {} reference vectors match exactly; {} differ, each listed",
        vectors.len(),
        differing.len()
    );
}
