//! Values a model could send for an adapted schema: a proptest strategy built from the schema
//! (the subset providers accept: types, `enum`, `anyOf`, local `$ref`, objects, arrays,
//! `nullable`). Constraints the provider no longer enforces (spilled into descriptions) are
//! ignored on purpose: a model may break them, and the restore step must catch it.

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use toolschema::walk::resolve_local;

pub fn strategy(schema: &Value, root: &Value, depth: u32) -> BoxedStrategy<Value> {
    let Value::Object(m) = schema else {
        return scalar().boxed();
    };
    if let Some(Value::String(r)) = m.get("$ref") {
        return match resolve_local(root, r) {
            Some(t) if depth > 0 => strategy(t, root, depth - 1),
            _ => Just(Value::Null).boxed(),
        };
    }
    let nullable = m.get("nullable") == Some(&Value::Bool(true));
    let base = inner(m, root, depth);
    if nullable {
        prop_oneof![3 => base, 1 => Just(Value::Null)].boxed()
    } else {
        base
    }
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-50i64..50).prop_map(Value::from),
        "[a-z]{0,6}".prop_map(Value::from)
    ]
}

fn inner(m: &Map<String, Value>, root: &Value, depth: u32) -> BoxedStrategy<Value> {
    if let Some(Value::Array(values)) = m.get("enum") {
        if !values.is_empty() {
            return proptest::sample::select(values.clone()).boxed();
        }
    }
    if let Some(Value::Array(branches)) = m.get("anyOf") {
        let strategies: Vec<BoxedStrategy<Value>> = branches
            .iter()
            .map(|b| strategy(b, root, depth.saturating_sub(1)))
            .collect();
        if !strategies.is_empty() {
            return proptest::strategy::Union::new(strategies).boxed();
        }
    }
    let ty = match m.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .first()
            .and_then(Value::as_str)
            .unwrap_or("null")
            .to_owned(),
        _ => return scalar().boxed(),
    };
    match ty.as_str() {
        // What the provider still enforces is respected: a model cannot break it.
        "string" => {
            let min = m
                .get("minLength")
                .and_then(Value::as_u64)
                .unwrap_or(0)
                .min(12) as usize;
            let max = m
                .get("maxLength")
                .and_then(Value::as_u64)
                .unwrap_or(12)
                .clamp(min as u64, 12) as usize;
            // Patterns are anchored by the schema's meaning (a match anywhere); generate whole
            // matches of the pattern without its anchors.
            let pattern = m
                .get("pattern")
                .and_then(Value::as_str)
                .map(|p| p.trim_start_matches('^').trim_end_matches('$').to_owned());
            match pattern.and_then(|p| proptest::string::string_regex(&p).ok()) {
                Some(re) => re
                    .prop_filter("length", move |s| (min..=max).contains(&s.chars().count()))
                    .prop_map(Value::from)
                    .boxed(),
                None => proptest::string::string_regex(&format!("[a-zA-Z0-9 _-]{{{min},{max}}}"))
                    .expect("a valid regex")
                    .prop_map(Value::from)
                    .boxed(),
            }
        }
        "integer" => {
            let lo = m
                .get("minimum")
                .and_then(Value::as_f64)
                .unwrap_or(-1_000.0)
                .max(-1_000.0) as i64;
            let hi = m
                .get("maximum")
                .and_then(Value::as_f64)
                .unwrap_or(1_000.0)
                .min(1_000.0) as i64;
            (lo..=hi.max(lo)).prop_map(Value::from).boxed()
        }
        "number" => {
            let lo = m
                .get("minimum")
                .and_then(Value::as_f64)
                .unwrap_or(-1_000.0)
                .max(-1_000.0);
            let hi = m
                .get("maximum")
                .and_then(Value::as_f64)
                .unwrap_or(1_000.0)
                .min(1_000.0);
            (lo..=hi.max(lo)).prop_map(|f| json!(f)).boxed()
        }
        "boolean" => any::<bool>().prop_map(Value::from).boxed(),
        "null" => Just(Value::Null).boxed(),
        "array" => {
            let items = m.get("items").cloned().unwrap_or(json!({}));
            if depth == 0 {
                return Just(json!([])).boxed();
            }
            if let Some(Value::Array(prefix)) = m.get("prefixItems") {
                let parts: Vec<BoxedStrategy<Value>> = prefix
                    .iter()
                    .map(|p| strategy(p, root, depth - 1))
                    .collect();
                return parts.prop_map(Value::Array).boxed();
            }
            proptest::collection::vec(strategy(&items, root, depth - 1), 0..3)
                .prop_map(Value::Array)
                .boxed()
        }
        "object" => {
            let props: Vec<(String, Value)> = m
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default();
            let required: Vec<String> = m
                .get("required")
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(|x| x.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            let mut fields: Vec<BoxedStrategy<Option<(String, Value)>>> = Vec::new();
            for (name, schema) in props {
                let value = strategy(&schema, root, depth.saturating_sub(1));
                let n = name.clone();
                if required.contains(&name) {
                    fields.push(value.prop_map(move |v| Some((n.clone(), v))).boxed());
                } else {
                    fields.push(
                        proptest::option::of(value.prop_map(move |v| (n.clone(), v))).boxed(),
                    );
                }
            }
            fields
                .prop_map(|fs| Value::Object(fs.into_iter().flatten().collect()))
                .boxed()
        }
        _ => scalar().boxed(),
    }
}
