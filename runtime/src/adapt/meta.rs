//! JSON Schema 2020-12's meta-schema as one document, for Cloud Code Assist's meta-schema check.
//!
//! The published meta-schema (as the `referencing` crate bundles it, the copy `jsonschema`
//! validates with) is an `allOf` of seven vocabulary meta-schemas, each listing its keywords'
//! `properties` and naming subschemas with `$dynamicRef: "#meta"`. Validation starting at the
//! top document resolves every `#meta` to that top document (the outermost `$dynamicAnchor:
//! meta` of the dynamic scope), so the conjunction is the same as one document holding every
//! vocabulary's `properties` and `$defs` (no keyword and no definition is in two vocabularies;
//! checked as it is built) with each `$dynamicRef: "#meta"` a `$ref: "#"`. That document is
//! checked once per node instead of seven times through `allOf` and `$dynamicRef`.
//!
//! It is built from the bundled documents on first use, and only if they have exactly the shape
//! described above; otherwise (a later meta-schema with another form) the check uses
//! `jsonschema::meta` itself. The test `one_document_accepts_what_the_meta_schema_accepts`
//! compares the two on every test document and on documents with each keyword's value wrong.

use std::sync::LazyLock;

use serde_json::{Map, Value};

/// The vocabularies of the top document's `allOf`, by the `$ref` it names them with.
fn vocabulary(name: &str) -> Option<&'static Value> {
    use referencing::meta::*;
    let doc: &'static LazyLock<_> = match name {
        "meta/core" => &DRAFT202012_CORE,
        "meta/applicator" => &DRAFT202012_APPLICATOR,
        "meta/unevaluated" => &DRAFT202012_UNEVALUATED,
        "meta/validation" => &DRAFT202012_VALIDATION,
        "meta/meta-data" => &DRAFT202012_META_DATA,
        "meta/format-annotation" => &DRAFT202012_FORMAT_ANNOTATION,
        "meta/content" => &DRAFT202012_CONTENT,
        _ => return None,
    };
    Some(doc.as_ref())
}

/// The keys a vocabulary document may have besides `properties` and `$defs` (identification and
/// annotations) and the top document besides `allOf` and `properties`.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$vocabulary",
    "$dynamicAnchor",
    "title",
    "$comment",
    "type",
];

/// Adds `from`'s entries to `into`; an error if a key is in both.
fn merge(into: &mut Map<String, Value>, from: Option<&Value>, what: &str) -> Result<(), String> {
    let Some(from) = from else { return Ok(()) };
    let from = from.as_object().ok_or(format!("{what} is not an object"))?;
    for (k, v) in from {
        if into.insert(k.clone(), v.clone()).is_some() {
            return Err(format!("{what} `{k}` twice"));
        }
    }
    Ok(())
}

/// The keys of `doc` are among `allowed`, its `type` is `["object", "boolean"]` and its
/// `$dynamicAnchor` is `meta`.
fn shaped(doc: &Map<String, Value>, allowed: &[&str]) -> Result<(), String> {
    if let Some(k) = doc.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!("unexpected `{k}`"));
    }
    let type_ok = doc.get("type") == Some(&serde_json::json!(["object", "boolean"]));
    let anchor_ok = doc.get("$dynamicAnchor") == Some(&Value::from("meta"));
    if type_ok && anchor_ok {
        Ok(())
    } else {
        Err("not a `meta` vocabulary of objects and booleans".into())
    }
}

/// References rewritten for the one document: `$dynamicRef: "#meta"` to `$ref: "#"`, a
/// definition of a vocabulary (`#/$defs/X`, `meta/core#/$defs/X`) to the merged `#/$defs/X`.
fn rewrite(value: &mut Value) -> Result<(), String> {
    match value {
        Value::Object(map) => {
            // A reference's value is a string; an object under these names is the schema of
            // the keyword itself (core's `properties`).
            if map.get("$dynamicRef").is_some_and(Value::is_string) {
                if map.remove("$dynamicRef").is_some_and(|r| r != "#meta") {
                    return Err("a `$dynamicRef` other than `#meta`".into());
                }
                map.insert("$ref".into(), "#".into());
            } else if let Some(Value::String(r)) = map.get_mut("$ref") {
                let local = match r.split_once('#') {
                    Some((doc, local)) if doc.is_empty() || vocabulary(doc).is_some() => local,
                    _ => return Err(format!("`$ref: {r}`")),
                };
                if !local.starts_with("/$defs/") {
                    return Err(format!("`$ref: {r}`"));
                }
                *r = format!("#{local}");
            }
            map.values_mut().try_for_each(rewrite)
        }
        Value::Array(items) => items.iter_mut().try_for_each(rewrite),
        _ => Ok(()),
    }
}

/// The one document, or why the bundled meta-schema does not have the form it is built from.
pub(crate) fn one_document() -> Result<Value, String> {
    let top = referencing::meta::DRAFT202012.as_ref();
    let top = top.as_object().ok_or("the meta-schema is not an object")?;
    let mut allowed = ANNOTATIONS.to_vec();
    allowed.extend(["allOf", "properties"]);
    shaped(top, &allowed)?;
    let mut properties = Map::new();
    let mut defs = Map::new();
    let parts = top
        .get("allOf")
        .and_then(Value::as_array)
        .ok_or("no `allOf`")?;
    let mut allowed = ANNOTATIONS.to_vec();
    allowed.extend(["properties", "$defs"]);
    for part in parts {
        let name = match part.as_object() {
            Some(m) if m.len() == 1 => m.get("$ref").and_then(Value::as_str),
            _ => None,
        }
        .ok_or("an `allOf` entry that is not a `$ref`")?;
        let doc = vocabulary(name).ok_or(format!("unknown vocabulary `{name}`"))?;
        let doc = doc
            .as_object()
            .ok_or("a vocabulary that is not an object")?;
        shaped(doc, &allowed).map_err(|e| format!("{name}: {e}"))?;
        merge(&mut properties, doc.get("properties"), "keyword")?;
        merge(&mut defs, doc.get("$defs"), "definition")?;
    }
    merge(&mut properties, top.get("properties"), "keyword")?;
    let mut one = serde_json::json!({
        "type": ["object", "boolean"],
        "properties": properties,
        "$defs": defs,
    });
    rewrite(&mut one)?;
    Ok(one)
}

/// The one document, compiled once (`None`: it could not be built; the check then uses
/// `jsonschema::meta`).
static VALIDATOR: LazyLock<Option<jsonschema::Validator>> = LazyLock::new(|| {
    let one = one_document().ok()?;
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&one)
        .ok()
});

/// Whether `schema` is a valid JSON Schema 2020-12 document (what `jsonschema::meta::is_valid`
/// answers for a document without `$schema`).
pub(crate) fn is_valid(schema: &Value) -> bool {
    match VALIDATOR.as_ref() {
        Some(validator) => validator.is_valid(schema),
        None => jsonschema::meta::is_valid(schema),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::adapt::Target;

    /// The bundled meta-schema has the form the one document is built from (were a later
    /// `jsonschema` to bundle another form, the check would silently take the slower path).
    #[test]
    fn the_meta_schema_has_the_form_it_is_read_in() {
        let one = super::one_document().unwrap();
        assert!(super::VALIDATOR.is_some());
        // Every keyword of the seven vocabularies and the four kept from earlier drafts.
        let keywords = one["properties"].as_object().unwrap();
        for k in [
            "$ref",
            "$dynamicRef",
            "anyOf",
            "type",
            "minLength",
            "format",
            "contentSchema",
        ] {
            assert!(keywords.contains_key(k), "{k}");
        }
        assert!(keywords.contains_key("definitions") && keywords.contains_key("$recursiveRef"));
        assert_eq!(one["properties"]["items"], json!({"$ref": "#"}));
    }

    /// Values of each keyword the meta-schema constrains, wrong (and a few right), to put in a
    /// document at its root and in a property.
    fn keyword_values() -> Vec<(&'static str, Value)> {
        vec![
            ("type", json!(5)),
            ("type", json!("strin")),
            ("type", json!([])),
            ("type", json!(["string", "string"])),
            ("type", json!(["string", "null"])),
            ("required", json!("a")),
            ("required", json!([1])),
            ("required", json!(["a", "a"])),
            ("properties", json!([])),
            ("properties", json!({"a": 5})),
            ("properties", json!({"a": true, "b": {"type": 1}})),
            ("items", json!(5)),
            ("items", json!([{"type": "string"}])),
            ("prefixItems", json!([])),
            ("anyOf", json!([])),
            ("anyOf", json!({})),
            ("anyOf", json!([5])),
            ("oneOf", json!([{"type": "x"}])),
            ("allOf", json!([true, {}])),
            ("not", json!(5)),
            ("if", json!("x")),
            ("minLength", json!(-1)),
            ("minLength", json!(1.5)),
            ("minLength", json!("2")),
            ("minLength", json!(2.0)),
            ("maxItems", json!(-1)),
            ("minContains", json!(-3)),
            ("enum", json!(5)),
            ("enum", json!([])),
            ("multipleOf", json!(0)),
            ("multipleOf", json!(-1)),
            ("maximum", json!("1")),
            ("pattern", json!(5)),
            ("pattern", json!("[")),
            ("$ref", json!(5)),
            ("$defs", json!([])),
            ("$defs", json!({"a": 3})),
            ("additionalProperties", json!(5)),
            ("patternProperties", json!({"^a": 5})),
            ("dependentRequired", json!({"a": [1]})),
            ("dependentSchemas", json!({"a": 1})),
            ("definitions", json!(5)),
            ("dependencies", json!({"a": 5})),
            ("dependencies", json!({"a": ["b"]})),
            ("$recursiveAnchor", json!(5)),
            ("$anchor", json!("1bad")),
            ("$anchor", json!("good")),
            ("$id", json!(5)),
            ("$dynamicAnchor", json!(5)),
            ("$dynamicRef", json!(5)),
            ("$vocabulary", json!(5)),
            ("$comment", json!(5)),
            ("format", json!(5)),
            ("format", json!("no-such-format")),
            ("title", json!(5)),
            ("description", json!(["d"])),
            ("deprecated", json!("x")),
            ("readOnly", json!(1)),
            ("examples", json!(5)),
            ("default", json!({"anything": [1]})),
            ("const", json!(null)),
            ("uniqueItems", json!("x")),
            ("unevaluatedProperties", json!(5)),
            ("propertyNames", json!(5)),
            ("contains", json!(5)),
            ("contentMediaType", json!(5)),
            ("contentSchema", json!(5)),
            ("x-extension", json!({"type": 5})),
        ]
    }

    /// The one document accepts exactly what `jsonschema::meta` accepts for a document without
    /// `$schema`: on every test document (real tools, fuzz fixtures, generated documents; each
    /// as given, without its `$schema`, and as Cloud Code Assist's rules leave it, which is what
    /// the check is asked), and on documents with each keyword's value wrong or right, at the
    /// root and two levels down.
    #[test]
    fn one_document_accepts_what_the_meta_schema_accepts() {
        let mut docs: Vec<Value> = Vec::new();
        for mut doc in crate::adapt::tree::corpus::documents() {
            if let Some(map) = doc.as_object_mut() {
                map.remove("$schema");
            }
            let adapted = stacker::grow(64 << 20, || Target::CcaClaude.adapt(&doc).schema);
            docs.push(adapted);
            docs.push(doc);
        }
        for (keyword, value) in keyword_values() {
            docs.push(json!({"type": "object", keyword: value.clone()}));
            docs.push(json!({"type": "object", "properties": {"a": {"items": {keyword: value}}}}));
        }
        docs.extend([
            json!(true),
            json!(false),
            json!(5),
            json!("x"),
            json!([]),
            json!(null),
        ]);
        let (mut valid, mut invalid) = (0, 0);
        for doc in &docs {
            let expected = jsonschema::meta::is_valid(doc);
            assert_eq!(super::is_valid(doc), expected, "{doc}");
            if expected {
                valid += 1;
            } else {
                invalid += 1;
            }
        }
        assert!(
            valid > 1_000 && invalid > 100,
            "{valid} valid, {invalid} invalid"
        );
    }
}
