//! Arguments back from the model: undo what the adaptation changed, validate against the
//! original schema (re-imposing every constraint the provider did not enforce), deserialize.
//! A value the original schema rejects is never returned.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::adapt::Adapted;
use crate::nullable::accepts_null;
use crate::walk::resolve_local;

mod encoding;
mod lenient;
mod wording;
pub use encoding::encode;
pub use wording::describe;

/// What went wrong with a tool call's arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
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
#[non_exhaustive]
pub struct Problem {
    /// RFC 6901 JSON Pointer into the arguments (`""` for the whole object).
    pub pointer: String,
    /// The rule the value there must meet, worded to follow the place: `must be at most 7`.
    pub expected: String,
    /// What arrived, quoted short ([`describe`]); empty where the rule names its own subject (a
    /// missing or unexpected property).
    pub found: String,
}

impl Problem {
    /// A problem at `pointer`: the value there must meet `rule` (`"must be one of a, b"`), and
    /// `found` is what arrived (`None` when the rule says it all, as for a missing property).
    pub fn new(pointer: impl Into<String>, rule: impl Into<String>, found: Option<&Value>) -> Self {
        Problem {
            pointer: pointer.into(),
            expected: rule.into(),
            found: found.map(describe).unwrap_or_default(),
        }
    }
}

/// Arguments that cannot be used, worded so a model can fix its call when this is sent back as
/// the tool result.
///
/// A server's own checks (the ones that replace a union: "this field goes with that kind") build
/// one too, so every refusal reads alike:
///
/// ```
/// use serde_json::json;
/// use toolschema::ArgsError;
///
/// let err = ArgsError::invalid()
///     .with("/field_values/0/kind", "must be `asset` for the field `image`", Some(&json!("text")));
/// assert_eq!(
///     err.to_string(),
///     "The tool arguments were rejected:\n- /field_values/0/kind must be `asset` for the field `image`; got the string \"text\".\nFix these arguments and call the tool again."
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ArgsError {
    /// The kind.
    pub kind: ArgsErrorKind,
    /// Every problem found (validation reports them all, not only the first).
    pub problems: Vec<Problem>,
}

impl ArgsError {
    /// An empty refusal of the arguments ([`ArgsErrorKind::Invalid`]); add problems with
    /// [`ArgsError::with`].
    pub fn invalid() -> Self {
        ArgsError {
            kind: ArgsErrorKind::Invalid,
            problems: Vec::new(),
        }
    }

    /// Adds a problem: the value at `pointer` must meet `rule`; `found` is what arrived.
    pub fn with(
        mut self,
        pointer: impl Into<String>,
        rule: impl Into<String>,
        found: Option<&Value>,
    ) -> Self {
        self.problems.push(Problem::new(pointer, rule, found));
        self
    }

    /// Whether no problem was added (then the arguments are fine).
    pub fn is_empty(&self) -> bool {
        self.problems.is_empty()
    }
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
                "the arguments"
            } else {
                p.pointer.as_str()
            };
            if p.found.is_empty() {
                writeln!(f, "- {at} {}.", p.expected)?;
            } else {
                writeln!(f, "- {at} {}; got {}.", p.expected, p.found)?;
            }
        }
        if self.kind != ArgsErrorKind::Schema {
            write!(f, "Fix these arguments and call the tool again.")?;
        }
        Ok(())
    }
}

impl std::error::Error for ArgsError {}

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
    if m.get("properties").is_some_and(Value::is_object)
        || m.get("required").is_some()
        || m.get("additionalProperties").is_some_and(Value::is_object)
    {
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
/// - a missing required property that the adaptation made optional (`made_optional`: Cloud Code
///   Assist makes nullable properties optional) is set to `null`. Only those: a property a
///   union's other branch requires is not this value's business.
fn undo(instance: &mut Value, schema: &Value, root: &Value, made_optional: &HashSet<*const Value>) {
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
            // The shapes the value may have: those whose required names it has (a union's
            // branch that requires a name the value lacks is not its shape), or all of them.
            let possible: Vec<&&serde_json::Map<String, Value>> = (shapes.iter())
                .filter(|s| {
                    s.get("required").and_then(Value::as_array).is_none_or(|r| {
                        r.iter()
                            .filter_map(Value::as_str)
                            .all(|n| map.contains_key(n))
                    })
                })
                .collect();
            let possible = if possible.is_empty() {
                shapes.iter().collect()
            } else {
                possible
            };
            // Whether some shape the value may have takes `null` for this name (its own
            // property schema, or its additional properties).
            // A shape that declares the name answers for it (strict mode sent the `null` for
            // that declaration: a union's branches merged into one object at the root make
            // every branch's property required); the others only when none declares it.
            let null_fits = |name: &str| {
                let declares = |s: &&&serde_json::Map<String, Value>| {
                    s.get("properties").and_then(|p| p.get(name)).is_some()
                };
                let any_declares = possible.iter().any(declares);
                possible
                    .iter()
                    .filter(|s| !any_declares || declares(s))
                    .any(|s| match s.get("properties").and_then(|p| p.get(name)) {
                        Some(p) => accepts_null(p, root),
                        None => match s.get("additionalProperties") {
                            Some(Value::Bool(false)) => false,
                            Some(extra) => accepts_null(extra, root),
                            None => true,
                        },
                    })
            };
            let mut nulls: Vec<String> = map
                .iter()
                .filter(|(k, v)| {
                    v.is_null() && !required(k) && property(k).is_some() && !null_fits(k)
                })
                .map(|(k, _)| k.clone())
                .collect();
            // A union (a root union strict mode merged into one object): the nulls read through
            // the first branch the value fits once that branch's optional nulls are gone.
            if shapes.len() > 1 && map.values().any(Value::is_null) {
                if let Some(removal) = shapes
                    .iter()
                    .map(|s| branch_nulls(s, map, root))
                    .find(|(_, fits)| *fits)
                    .map(|(removal, _)| removal)
                {
                    nulls = removal;
                }
            }
            for k in nulls {
                map.shift_remove(&k);
            }
            for s in &shapes {
                let Some(Value::Array(req)) = s.get("required") else {
                    continue;
                };
                for name in req.iter().filter_map(Value::as_str) {
                    if !map.contains_key(name)
                        && property(name)
                            .is_some_and(|p| made_optional.contains(&(p as *const Value)))
                    {
                        map.insert(name.to_owned(), Value::Null);
                    }
                }
            }
            // A map's values too (an encoded map's values went through strict mode as well).
            let values = shapes
                .iter()
                .find_map(|s| s.get("additionalProperties").filter(|v| v.is_object()));
            let keys: Vec<String> = map.keys().cloned().collect();
            for k in keys {
                if let Some(p) = property(&k).or(values) {
                    if let Some(v) = map.get_mut(&k) {
                        undo(v, p, root, made_optional);
                    }
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                let mut schemas = Vec::new();
                item_schemas(schema, root, i, &mut schemas, 0);
                if let Some(s) = schemas.first() {
                    undo(item, s, root, made_optional);
                }
            }
        }
        _ => {}
    })
}

/// For one branch of a union: the `null` members it does not require and does not take `null`
/// for, and whether the object without them fits the branch at its own level (its required
/// names there, each member of a type its schema names, no member it closes out).
fn branch_nulls(
    shape: &serde_json::Map<String, Value>,
    map: &serde_json::Map<String, Value>,
    root: &Value,
) -> (Vec<String>, bool) {
    let required: Vec<&str> = (shape.get("required").and_then(Value::as_array))
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let properties = shape.get("properties").and_then(Value::as_object);
    let extra = shape.get("additionalProperties");
    let schema_of = |k: &str| properties.and_then(|p| p.get(k)).or(extra);
    let removal: Vec<String> = (map.iter())
        .filter(|(k, v)| {
            v.is_null()
                && !required.contains(&k.as_str())
                && schema_of(k).is_none_or(|s| !accepts_null(s, root))
        })
        .map(|(k, _)| k.clone())
        .collect();
    let type_fits = |schema: &Value, v: &Value| {
        let kind = crate::adapt::rules::value_type(v);
        let fits = |t: &str| t == kind || (t == "number" && kind == "integer");
        match schema.get("type") {
            Some(Value::String(t)) => fits(t),
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).any(fits),
            _ => !matches!(schema, Value::Bool(false)),
        }
    };
    let fits = required.iter().all(|n| map.contains_key(*n))
        && (map.iter())
            .filter(|(k, _)| !removal.contains(k))
            .all(|(k, v)| match schema_of(k) {
                Some(s) if v.is_null() => accepts_null(s, root),
                Some(s) => type_fits(s, v),
                None => true,
            });
    (removal, fits)
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
                expected: format!("need a schema that compiles: {e}"),
                found: String::new(),
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
            let found = if wording::names_its_own_subject(&e) {
                String::new()
            } else {
                args.pointer(&pointer)
                    .map_or_else(|| "nothing".to_owned(), describe)
            };
            Problem {
                expected: wording::rule(&e).unwrap_or_else(|| wording::fallback(&e)),
                pointer,
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

/// Restores arguments the model sent for `adapted`'s schema to what the original schema means,
/// then validates them against the original schema (so every constraint the provider did not
/// enforce is checked here). The result always satisfies the original schema.
///
/// Places the adaptation encoded ([`Adapted::encoded`]: key/value pairs, JSON text) are decoded
/// first; a repeated key or text that is not JSON is refused there, named.
pub fn restore(adapted: &Adapted<'_>, args: Value) -> Result<Value, ArgsError> {
    let args = prepare(adapted, args)?;
    validate(&adapted.input, &args)?;
    Ok(args)
}

/// [`restore`] into `T`, for callers that know the type: arguments the schema refuses but `T`
/// itself reads as sent (a lenient `deserialize_with`) are coerced where that has one reading and
/// validated again ([`lenient`]).
pub(crate) fn restore_into<T: DeserializeOwned>(
    adapted: &Adapted<'_>,
    args: Value,
) -> Result<T, ArgsError> {
    let args = prepare(adapted, args)?;
    match validate(&adapted.input, &args) {
        Ok(()) => deserialize(args),
        Err(error) if error.kind == ArgsErrorKind::Invalid => {
            lenient::retry::<T>(&adapted.input, args, error)
        }
        Err(error) => Err(error),
    }
}

/// The arguments decoded and the adaptation's nulls undone, not yet validated.
fn prepare(adapted: &Adapted<'_>, mut args: Value) -> Result<Value, ArgsError> {
    encoding::decode(adapted, &mut args)?;
    let original = &adapted.input;
    // Arguments the original schema already accepts are never changed: the undoing below is for
    // what only the adapted schema made the model send.
    if validate(original, &args).is_ok() {
        return Ok(args);
    }
    // The property schemas the adaptation made optional, by identity (their pointers name
    // places in the input).
    let made_optional: HashSet<*const Value> = adapted
        .changes
        .iter()
        .filter(|c| c.rule == "nullable-properties-optional")
        .filter_map(|c| original.pointer(&c.pointer))
        .map(|v| v as *const Value)
        .collect();
    undo(&mut args, original, original, &made_optional);
    Ok(args)
}

/// How many `$ref`s are followed in a row at one place (a cycle of references stops there).
const MAX_HOPS: usize = 32;

/// `node` with its local `$ref`s followed while it has no `type` of its own; `None` when one does
/// not resolve (or a cycle goes past [`MAX_HOPS`]: the last node reached is returned).
fn follow_refs<'a>(mut node: &'a Value, root: &'a Value) -> Option<&'a Value> {
    for _ in 0..MAX_HOPS {
        match node.get("$ref").and_then(Value::as_str) {
            Some(r) if node.get("type").is_none() => node = resolve_local(root, r)?,
            _ => break,
        }
    }
    Some(node)
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
                expected: format!("must have the shape the server reads ({})", e.inner()),
                found: String::new(),
            }],
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Target;
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
        let a = Target::OpenAiStrict.adapt_owned(schema());
        let restored = restore(
            &a,
            json!({"q": "hi", "limit": null, "note": null, "inner": {"x": null}}),
        )
        .unwrap();
        assert_eq!(restored, json!({"q": "hi", "note": null, "inner": {}}));
    }

    #[test]
    fn cca_missing_nullables_are_null() {
        let a = Target::CcaClaude.adapt_owned(schema());
        assert_eq!(
            restore(&a, json!({"q": "hi"})).unwrap(),
            json!({"q": "hi", "note": null})
        );
    }

    #[test]
    fn constraints_are_reimposed_with_a_message_a_model_can_use() {
        let a = Target::AnthropicStrict.adapt_owned(schema());
        let err = restore(&a, json!({"q": "too long", "note": null, "limit": 0})).unwrap_err();
        assert_eq!(err.kind, ArgsErrorKind::Invalid);
        let pointers: Vec<&str> = err.problems.iter().map(|p| p.pointer.as_str()).collect();
        assert!(
            pointers.contains(&"/q") && pointers.contains(&"/limit"),
            "{err}"
        );
        let text = err.to_string();
        assert!(
            text.contains("- /q must be at most 5 characters long; got the string \"too long\".")
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

    /// Every keyword the validator reports, worded as the rule the value must meet.
    #[test]
    fn each_keyword_reads_as_a_rule() {
        let cases: Vec<(Value, Value, &str)> = vec![
            (
                json!({"type": ["integer", "null"]}),
                json!("3"),
                "/v must be an integer or null; got the string \"3\".",
            ),
            (
                json!({"type": "object"}),
                json!(1),
                "/v must be an object; got 1.",
            ),
            (
                json!({"maximum": 7}),
                json!(9),
                "/v must be at most 7; got 9.",
            ),
            (
                json!({"minimum": 1}),
                json!(0),
                "/v must be at least 1; got 0.",
            ),
            (
                json!({"exclusiveMaximum": 7}),
                json!(7),
                "/v must be less than 7; got 7.",
            ),
            (
                json!({"exclusiveMinimum": 0}),
                json!(0),
                "/v must be greater than 0; got 0.",
            ),
            (
                json!({"multipleOf": 5}),
                json!(7),
                "/v must be a multiple of 5; got 7.",
            ),
            (
                json!({"maxLength": 2}),
                json!("abc"),
                "/v must be at most 2 characters long; got the string \"abc\".",
            ),
            (
                json!({"minLength": 1}),
                json!(""),
                "/v must be at least 1 character long; got the string \"\".",
            ),
            (
                json!({"minItems": 2}),
                json!([1]),
                "/v must have at least 2 items; got an array of 1 item: [1].",
            ),
            (
                json!({"maxItems": 1}),
                json!([1, 2]),
                "/v must have at most 1 item; got an array of 2 items: [1,2].",
            ),
            (
                json!({"minProperties": 1}),
                json!({}),
                "/v must have at least 1 property; got an object: {}.",
            ),
            (
                json!({"maxProperties": 0}),
                json!({"a": 1}),
                "/v must have at most 0 properties; got an object: {\"a\":1}.",
            ),
            (
                json!({"pattern": "^[a-z]+$"}),
                json!("A"),
                "/v must match the pattern `^[a-z]+$`; got the string \"A\".",
            ),
            (
                json!({"format": "email"}),
                json!("nope"),
                "/v must be a valid `email`; got the string \"nope\".",
            ),
            (
                json!({"enum": ["a", "b"]}),
                json!("c"),
                "/v must be one of \"a\", \"b\"; got the string \"c\".",
            ),
            (
                json!({"const": "x"}),
                json!("y"),
                "/v must be \"x\"; got the string \"y\".",
            ),
            (
                json!({"type": "object", "required": ["id"]}),
                json!({}),
                "/v must include the property `id`.",
            ),
            (
                json!({"type": "object", "properties": {"a": {}}, "additionalProperties": false}),
                json!({"zz": 1}),
                "/v must not have the property `zz` (not in the schema).",
            ),
            (
                json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
                json!(true),
                "/v must be a string or an integer; got true.",
            ),
            (
                json!({"anyOf": [{"type": "object", "required": ["a"]}, {"type": "integer"}]}),
                json!({"b": 1}),
                "/v must match one of the allowed forms; got an object: {\"b\":1}.",
            ),
            (
                json!({"oneOf": [{"type": "number"}, {"type": "integer"}]}),
                json!(1),
                "/v must match exactly one of the allowed forms, and matches several; got 1.",
            ),
            (
                json!({"not": {"type": "string"}}),
                json!("s"),
                "/v must not match the excluded form; got the string \"s\".",
            ),
            (json!(false), json!(1), "/v is not allowed here; got 1."),
            (
                json!({"uniqueItems": true}),
                json!([1, 1]),
                "/v must not contain the same item twice; got an array of 2 items: [1,1].",
            ),
            (
                json!({"contains": {"type": "string"}}),
                json!([1]),
                "/v must contain at least one item of the required form; got an array of 1 item: [1].",
            ),
        ];
        for (schema, value, line) in cases {
            let schema = json!({"type": "object", "properties": {"v": schema}});
            let err = validate(&schema, &json!({"v": value})).unwrap_err();
            let text = err.to_string();
            assert!(
                text.lines().any(|l| l == format!("- {line}")),
                "want `{line}` in:\n{text}"
            );
        }
    }

    #[test]
    fn a_huge_argument_is_never_echoed_whole() {
        let schema = json!({"type": "object", "properties": {"v": {"maxLength": 10}}});
        let err = validate(&schema, &json!({"v": "x".repeat(5_000_000)})).unwrap_err();
        let text = err.to_string();
        assert!(text.len() < 400, "{}", text.len());
        assert!(text.contains("(5,000,000 characters)"), "{text}");
    }
}
