//! Arguments back from the model: undo what the adaptation changed, validate against the
//! original schema (re-imposing every constraint the provider did not enforce), deserialize.
//! A value the original schema rejects is never returned.

use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::adapt::Adapted;
use crate::walk::resolve_local;

/// What went wrong with a tool call's arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArgsErrorKind {
    /// The arguments break the tool's schema.
    Invalid,
    /// They fit the schema but not the Rust type (a server-side mismatch between the two).
    Shape,
    /// The tool's own schema cannot be compiled (the server's fault, not the model's).
    Schema,
}

/// One problem, at one place in the arguments.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// JSON Pointer into the arguments (`""` for the whole object).
    pub pointer: String,
    /// What the schema expects there.
    pub expected: String,
    /// What arrived (JSON, shortened).
    pub found: String,
}

/// Arguments that cannot be used, worded so a model can fix its call when this is sent back as
/// the tool result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ArgsError {
    /// The kind.
    pub kind: ArgsErrorKind,
    /// Every problem found (validation reports them all, not only the first).
    pub problems: Vec<Problem>,
}

impl fmt::Display for ArgsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ArgsErrorKind::Invalid | ArgsErrorKind::Shape => {
                writeln!(f, "The tool arguments were rejected:")?
            }
            ArgsErrorKind::Schema => writeln!(
                f,
                "The tool's parameter schema is broken (a server error, not a problem with the call):"
            )?,
        }
        for p in &self.problems {
            let at = if p.pointer.is_empty() {
                "the arguments".to_owned()
            } else {
                format!("`{}`", p.pointer)
            };
            writeln!(f, "- at {at}: expected {}; got {}.", p.expected, p.found)?;
        }
        if self.kind != ArgsErrorKind::Schema {
            write!(f, "Fix these arguments and call the tool again.")?;
        }
        Ok(())
    }
}

impl std::error::Error for ArgsError {}

fn short(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(120) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

/// Whether `schema` (inside the document `root`) can accept `null`, as far as its keywords say.
fn accepts_null(schema: &Value, root: &Value, depth: usize) -> bool {
    if depth > 64 {
        return true;
    }
    let Value::Object(m) = schema else {
        return schema != &Value::Bool(false);
    };
    if let Some(Value::String(r)) = m.get("$ref") {
        if let Some(t) = resolve_local(root, r) {
            if !accepts_null(t, root, depth + 1) {
                return false;
            }
        }
    }
    match m.get("type") {
        Some(Value::String(t)) if t != "null" => return false,
        Some(Value::Array(ts)) if !ts.iter().any(|t| t == "null") => return false,
        _ => {}
    }
    if let Some(Value::Array(values)) = m.get("enum") {
        if !values.iter().any(Value::is_null) {
            return false;
        }
    }
    if let Some(c) = m.get("const") {
        if !c.is_null() {
            return false;
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(bs)) = m.get(key) {
            if !bs.iter().any(|b| accepts_null(b, root, depth + 1)) {
                return false;
            }
        }
    }
    if let Some(Value::Array(bs)) = m.get("allOf") {
        if !bs.iter().all(|b| accepts_null(b, root, depth + 1)) {
            return false;
        }
    }
    true
}

/// The object-shaped schemas that describe an instance at `schema`: itself, its `$ref` target,
/// and its combinator branches (recursively).
fn object_schemas<'a>(
    schema: &'a Value,
    root: &'a Value,
    out: &mut Vec<&'a serde_json::Map<String, Value>>,
    depth: usize,
) {
    if depth > 32 {
        return;
    }
    let Value::Object(m) = schema else { return };
    if m.get("properties").is_some_and(Value::is_object) || m.get("required").is_some() {
        out.push(m);
    }
    if let Some(Value::String(r)) = m.get("$ref") {
        if let Some(t) = resolve_local(root, r) {
            object_schemas(t, root, out, depth + 1);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(bs)) = m.get(key) {
            for b in bs {
                object_schemas(b, root, out, depth + 1);
            }
        }
    }
}

fn item_schemas<'a>(
    schema: &'a Value,
    root: &'a Value,
    index: usize,
    out: &mut Vec<&'a Value>,
    depth: usize,
) {
    if depth > 32 {
        return;
    }
    let Value::Object(m) = schema else { return };
    match m
        .get("prefixItems")
        .and_then(Value::as_array)
        .and_then(|p| p.get(index))
    {
        Some(s) => out.push(s),
        None => {
            if let Some(items) = m.get("items") {
                out.push(items);
            }
        }
    }
    if let Some(Value::String(r)) = m.get("$ref") {
        if let Some(t) = resolve_local(root, r) {
            item_schemas(t, root, index, out, depth + 1);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(bs)) = m.get(key) {
            for b in bs {
                item_schemas(b, root, index, out, depth + 1);
            }
        }
    }
}

/// Undoes the argument-shape changes of any adaptation, guided by the original schema:
/// - a `null` for an optional property whose original schema does not accept `null` is removed
///   (OpenAI strict makes optional properties required and nullable; serde defaults then apply);
/// - a missing required property whose original schema accepts `null` is set to `null` (Cloud
///   Code Assist makes nullable properties optional).
fn undo(instance: &mut Value, schema: &Value, root: &Value) {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || match instance {
        Value::Object(map) => {
            let mut shapes = Vec::new();
            object_schemas(schema, root, &mut shapes, 0);
            if shapes.is_empty() {
                return;
            }
            let required = |name: &str| {
                shapes.iter().any(|s| {
                    s.get("required")
                        .and_then(Value::as_array)
                        .is_some_and(|r| r.iter().any(|x| x == name))
                })
            };
            let property = |name: &str| {
                shapes
                    .iter()
                    .find_map(|s| s.get("properties").and_then(|p| p.get(name)))
            };
            let nulls: Vec<String> = map
                .iter()
                .filter(|(k, v)| {
                    v.is_null()
                        && !required(k)
                        && property(k).is_some_and(|p| !accepts_null(p, root, 0))
                })
                .map(|(k, _)| k.clone())
                .collect();
            for k in nulls {
                map.shift_remove(&k);
            }
            for s in &shapes {
                let Some(Value::Array(req)) = s.get("required") else {
                    continue;
                };
                for name in req.iter().filter_map(Value::as_str) {
                    if !map.contains_key(name)
                        && property(name).is_some_and(|p| accepts_null(p, root, 0))
                    {
                        map.insert(name.to_owned(), Value::Null);
                    }
                }
            }
            let keys: Vec<String> = map.keys().cloned().collect();
            for k in keys {
                if let Some(p) = property(&k) {
                    if let Some(v) = map.get_mut(&k) {
                        undo(v, p, root);
                    }
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                let mut schemas = Vec::new();
                item_schemas(schema, root, i, &mut schemas, 0);
                if let Some(s) = schemas.first() {
                    undo(item, s, root);
                }
            }
        }
        _ => {}
    })
}

type Compiled = Arc<jsonschema::Validator>;

/// Compiled validators of original schemas, by content (tool schemas are few and long-lived).
fn validator(schema: &Value) -> Result<Compiled, ArgsError> {
    static CACHE: OnceLock<Mutex<HashMap<u64, Compiled>>> = OnceLock::new();
    let text = schema.to_string();
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    let key = hasher.finish();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(v) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(Arc::clone(v));
    }
    let compiled = jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .map_err(|e| ArgsError {
            kind: ArgsErrorKind::Schema,
            problems: vec![Problem {
                pointer: String::new(),
                expected: "a schema that compiles".into(),
                found: e.to_string(),
            }],
        })?;
    let compiled = Arc::new(compiled);
    let mut guard = cache.lock().unwrap_or_else(|e| e.into_inner());
    if guard.len() > 4096 {
        guard.clear();
    }
    guard.insert(key, Arc::clone(&compiled));
    Ok(compiled)
}

/// Validates `args` against `schema`, listing every problem.
pub fn validate(schema: &Value, args: &Value) -> Result<(), ArgsError> {
    let compiled = validator(schema)?;
    let problems: Vec<Problem> = compiled
        .iter_errors(args)
        .map(|e| {
            let pointer = e.instance_path().to_string();
            let found = args
                .pointer(&pointer)
                .map_or_else(|| "nothing".to_owned(), short);
            let message = e.to_string();
            Problem {
                pointer,
                expected: expected_from(&message, &found),
                found,
            }
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(ArgsError {
            kind: ArgsErrorKind::Invalid,
            problems,
        })
    }
}

/// The validator's sentence, minus the echo of the value (which `found` already shows).
fn expected_from(message: &str, found: &str) -> String {
    let trimmed = message
        .strip_prefix(found)
        .map(str::trim_start)
        .unwrap_or(message);
    if trimmed.is_empty() {
        message.to_owned()
    } else {
        trimmed.to_owned()
    }
}

/// Restores arguments the model sent for `adapted`'s schema to what the original schema means,
/// then validates them against the original schema (so every constraint the provider did not
/// enforce is checked here). The result always satisfies the original schema.
pub fn restore(adapted: &Adapted, mut args: Value) -> Result<Value, ArgsError> {
    let original = &adapted.input;
    undo(&mut args, original, original);
    validate(original, &args)?;
    Ok(args)
}

/// The RFC 6901 JSON Pointer of a deserialization path (`/items/0/x`, `~0` and `~1` escaped).
/// An externally tagged enum's variant is the key it stands under; a segment serde could not
/// name is left out.
fn json_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => {
                out.push('/');
                out.push_str(&index.to_string());
            }
            Segment::Map { key } | Segment::Enum { variant: key } => {
                out.push('/');
                out.push_str(&crate::walk::escape(key));
            }
            Segment::Unknown => {}
        }
    }
    out
}

/// Deserializes restored arguments into `T`; an error names the path.
pub fn deserialize<T: DeserializeOwned>(args: Value) -> Result<T, ArgsError> {
    serde_path_to_error::deserialize(args).map_err(|e| {
        let pointer = json_pointer(e.path());
        ArgsError {
            kind: ArgsErrorKind::Shape,
            problems: vec![Problem {
                pointer,
                expected: e.inner().to_string(),
                found: "a value of another shape".into(),
            }],
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Target, adapt};
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "q": {"type": "string", "maxLength": 5},
                "limit": {"type": "integer", "minimum": 1},
                "note": {"type": ["string", "null"]},
                "inner": {"type": "object", "properties": {"x": {"type": "integer"}}}
            },
            "required": ["q", "note"]
        })
    }

    #[test]
    fn openai_strict_nulls_are_dropped() {
        let a = adapt(&schema(), Target::OpenAiStrict);
        let restored = restore(
            &a,
            json!({"q": "hi", "limit": null, "note": null, "inner": {"x": null}}),
        )
        .unwrap();
        assert_eq!(restored, json!({"q": "hi", "note": null, "inner": {}}));
    }

    #[test]
    fn cca_missing_nullables_are_null() {
        let a = adapt(&schema(), Target::CcaClaude);
        assert_eq!(
            restore(&a, json!({"q": "hi"})).unwrap(),
            json!({"q": "hi", "note": null})
        );
    }

    #[test]
    fn constraints_are_reimposed_with_a_message_a_model_can_use() {
        let a = adapt(&schema(), Target::AnthropicStrict);
        let err = restore(&a, json!({"q": "too long", "note": null, "limit": 0})).unwrap_err();
        assert_eq!(err.kind, ArgsErrorKind::Invalid);
        let pointers: Vec<&str> = err.problems.iter().map(|p| p.pointer.as_str()).collect();
        assert!(
            pointers.contains(&"/q") && pointers.contains(&"/limit"),
            "{err}"
        );
        let text = err.to_string();
        assert!(
            text.contains("`/q`")
                && text.contains("\"too long\"")
                && text.contains("call the tool again"),
            "{text}"
        );
    }

    #[test]
    fn shape_errors_name_the_path() {
        #[derive(Debug, serde::Deserialize)]
        struct P {
            #[allow(dead_code)]
            inner: Inner,
        }
        #[derive(Debug, serde::Deserialize)]
        struct Inner {
            #[allow(dead_code)]
            x: u8,
        }
        let err = deserialize::<P>(json!({"inner": {"x": 300}})).unwrap_err();
        assert_eq!(err.kind, ArgsErrorKind::Shape);
        assert_eq!(err.problems[0].pointer, "/inner/x");
    }

    #[test]
    fn shape_error_pointers_are_rfc_6901() {
        #[derive(Debug, serde::Deserialize)]
        struct P {
            #[allow(dead_code)]
            #[serde(rename = "a/b~c.d")]
            items: Vec<Item>,
        }
        #[derive(Debug, serde::Deserialize)]
        struct Item {
            #[allow(dead_code)]
            #[serde(rename = "x.y")]
            x: u8,
        }
        let err = deserialize::<P>(json!({"a/b~c.d": [{"x.y": 1}, {"x.y": "no"}]})).unwrap_err();
        let pointer = &err.problems[0].pointer;
        assert_eq!(pointer, "/a~1b~0c.d/1/x.y");
        let args = json!({"a/b~c.d": [{"x.y": 1}, {"x.y": "no"}]});
        assert_eq!(args.pointer(pointer), Some(&json!("no")));
        // The validator's pointers too.
        let schema = json!({"type": "object", "properties": {"a/b~c.d": {"type": "array",
            "items": {"type": "object", "properties": {"x.y": {"type": "integer"}}}}}});
        let err = validate(&schema, &args).unwrap_err();
        assert_eq!(err.problems[0].pointer, "/a~1b~0c.d/1/x.y");
    }
}
