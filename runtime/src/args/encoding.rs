//! Encoded places ([`crate::adapt::Encoding`]) in arguments: decoded back to their own form
//! before validation ([`decode`], run by [`super::restore`]), and encoded from it ([`encode`]).
//!
//! Both walk the value beside the *adapted* schema, whose encoded places the adaptation listed
//! by output pointer ([`Adapted::encoded`]): a node written at several places (a definition
//! inlined twice, recursion unrolled) is decoded wherever the value reaches one of them, and only
//! there.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::{ArgsError, Problem};
use crate::adapt::{Adapted, Encoding};
use crate::walk::{escape, resolve_local};

use super::MAX_HOPS;

/// One encoded place, as the walks read it.
struct Place<'a> {
    encoding: &'a Encoding,
    /// The original place takes a string as it is (any value): JSON text holding a string is
    /// then that string, and text that is not JSON is the string itself.
    takes_text: bool,
}

/// The adapted schema and its encoded places.
struct Guide<'a> {
    root: &'a Value,
    places: HashMap<&'a str, Place<'a>>,
    /// Where strict mode made an optional property required and nullable (output pointers).
    made_required: HashSet<String>,
    /// Where the adaptation made a nullable property optional, its `null` gone (Cloud Code
    /// Assist): the forward encoding leaves such a property out instead of sending `null`.
    made_optional: HashSet<String>,
    /// Validators of union members, by pointer (`None`: the member does not compile alone).
    members: std::cell::RefCell<HashMap<String, Option<jsonschema::Validator>>>,
}

impl<'a> Guide<'a> {
    fn new(adapted: &'a Adapted<'_>) -> Guide<'a> {
        let input: &Value = &adapted.input;
        let places = (adapted.encoded.iter())
            .map(|e| {
                let original = input.pointer(e.pointer.as_str());
                let takes_text = original.is_some_and(|o| takes_string(o, input));
                let place = Place {
                    encoding: &e.encoding,
                    takes_text,
                };
                (e.at.as_str(), place)
            })
            .collect();
        let made_required = (adapted.changes.iter())
            .filter(|c| c.rule == "close-objects")
            .filter_map(|c| c.at.as_ref().map(|at| at.as_str().to_owned()))
            .collect();
        let made_optional = (adapted.changes.iter())
            .filter(|c| c.rule == "nullable-properties-optional")
            .filter_map(|c| c.at.as_ref().map(|at| at.as_str().to_owned()))
            .collect();
        Guide {
            root: &adapted.schema,
            places,
            made_required,
            made_optional,
            members: Default::default(),
        }
    }

    /// Whether the adapted schema's member at `at` takes `value` (`None`: it cannot be checked
    /// alone). The member is compiled with the root's definitions, so its references resolve.
    fn takes(&self, at: &str, value: &Value) -> Option<bool> {
        let mut cache = self.members.borrow_mut();
        let validator = cache.entry(at.to_owned()).or_insert_with(|| {
            let mut doc = self.root.pointer(at)?.clone();
            if let Value::Object(m) = &mut doc {
                for key in ["$defs", "definitions"] {
                    if let Some(defs) = self.root.get(key) {
                        m.entry(key).or_insert_with(|| defs.clone());
                    }
                }
            }
            jsonschema::options().build(&doc).ok()
        });
        validator.as_ref().map(|v| v.is_valid(value))
    }

    /// The node at `at` (a JSON Pointer into the adapted schema) and its pointer, with local
    /// references followed unless the referring node is itself an encoded place.
    fn node(&self, mut at: String) -> Option<(String, &'a Value)> {
        for _ in 0..MAX_HOPS {
            let node = self.root.pointer(&at)?;
            if self.places.contains_key(at.as_str()) {
                return Some((at, node));
            }
            match node.get("$ref").and_then(Value::as_str) {
                Some(r) if resolve_local(self.root, r).is_some() => {
                    at = crate::walk::percent_decoded(r.strip_prefix('#')?)?;
                }
                _ => return Some((at, node)),
            }
        }
        None
    }

    /// Whether the object node at `at` has an added property for its undeclared members.
    fn has_extra(&self, at: &str, node: &Value) -> bool {
        (node.get("properties").and_then(Value::as_object)).is_some_and(|p| {
            p.keys().any(|name| {
                let child = format!("{at}/properties/{}", escape(name));
                (self.places.get(child.as_str())).is_some_and(|place| {
                    matches!(
                        place.encoding,
                        Encoding::ExtraPairs { .. } | Encoding::ExtraJsonText { .. }
                    )
                })
            })
        })
    }

    /// Where the values' schema of the pairs at `at` is: `items.properties.value` of the node,
    /// or of its member that has `items` (strict mode wraps a nullable place in
    /// `anyOf: [..., {"type": "null"}]`).
    fn pair_values(&self, at: &str) -> String {
        let has_items = |p: &str| {
            self.root
                .pointer(p)
                .is_some_and(|n| n.get("items").is_some())
        };
        if !has_items(at) {
            for key in ["anyOf", "oneOf"] {
                let count = (self.root.pointer(at))
                    .and_then(|n| n.get(key))
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                for i in 0..count {
                    let member = format!("{at}/{key}/{i}");
                    if let Some((resolved, _)) = self.node(member)
                        && has_items(&resolved)
                    {
                        return format!("{resolved}/items/properties/value");
                    }
                }
            }
        }
        format!("{at}/items/properties/value")
    }

    /// One `{"key", "value"}` pair; a `null` value is left out where the adaptation made the
    /// pairs' `value` optional (its `null` gone), as it does for any such property.
    fn pair(&self, key: String, value: Value, values_at: &str) -> Value {
        if value.is_null() && self.made_optional.contains(values_at) {
            serde_json::json!({ "key": key })
        } else {
            serde_json::json!({ "key": key, "value": value })
        }
    }

    /// Of a node's `anyOf`/`oneOf`/`allOf` members, the one the value goes through: a member
    /// encoded in the form the value has (`encoded_form`: the value is in the encoded form),
    /// else the first whose type takes the value.
    ///
    /// A member whose `type` names the value's type goes first, then an encoded one, then one
    /// without a `type`. (The encoding never puts an encoded member beside one of the same JSON
    /// type, so a value in either form has one reading.)
    ///
    /// `through`: the unions the walk entered for this same value (`at` among them), which a
    /// trial encoding does not enter again.
    fn branch(
        &self,
        at: &str,
        node: &Value,
        value: &Value,
        encoded_form: bool,
        through: &mut Vec<String>,
    ) -> Option<String> {
        // The member the value (as sent, or once encoded through it) is valid against.
        for key in ["anyOf", "oneOf"] {
            let count = node.get(key).and_then(Value::as_array).map_or(0, Vec::len);
            for i in 0..count {
                let member = format!("{at}/{key}/{i}");
                let taken = if encoded_form {
                    self.takes(&member, value)
                } else {
                    let mut sent = value.clone();
                    encode_at(self, &mut sent, member.clone(), through);
                    self.takes(&member, &sent)
                };
                if taken == Some(true) {
                    return Some(member);
                }
            }
        }
        // Else read from the members' types.
        let (mut typed, mut encoded, mut untyped) = (None, None, None);
        for key in ["anyOf", "oneOf", "allOf"] {
            let Some(Value::Array(members)) = node.get(key) else {
                continue;
            };
            for i in 0..members.len() {
                let member = format!("{at}/{key}/{i}");
                let Some((resolved, m)) = self.node(member.clone()) else {
                    continue;
                };
                if let Some(place) = self.places.get(resolved.as_str()) {
                    if encoded.is_none() && matches_encoded(place.encoding, value, encoded_form) {
                        encoded = Some(member);
                    }
                } else if m.get("type").is_some() {
                    // In the original form, an object's undeclared members go under its added
                    // property: its closing does not refuse them.
                    let fits = if !encoded_form && self.has_extra(&resolved, m) {
                        admits_type(m, value)
                    } else {
                        admits(m, value)
                    };
                    if typed.is_none() && fits {
                        typed = Some(member);
                    }
                } else if untyped.is_none() && admits(m, value) {
                    untyped = Some(member);
                }
            }
        }
        typed.or(encoded).or(untyped)
    }
}

/// The schema of item `i` of an array at `at`: its tuple position, else `items`.
fn item_at(node: &Value, at: &str, prefix: Option<&Vec<Value>>, i: usize) -> Option<String> {
    match prefix {
        Some(p) if i < p.len() => Some(format!("{at}/prefixItems/{i}")),
        _ if node.get("items").is_some_and(Value::is_object) => Some(format!("{at}/items")),
        _ => None,
    }
}

/// Whether a value in one form or the other goes through an encoded member.
fn matches_encoded(encoding: &Encoding, value: &Value, encoded_form: bool) -> bool {
    match (encoding, encoded_form) {
        (Encoding::Pairs, true) => value.is_array(),
        (Encoding::Pairs, false) => value.is_object(),
        (Encoding::JsonText, true) => value.is_string(),
        // Any value has JSON text (`null` too: a member of type null goes first where there is one).
        (Encoding::JsonText, false) => true,
        _ => false,
    }
}

/// Whether a node's `type` (absent: any) takes the value's JSON type, and, for an object the node
/// closes (`additionalProperties: false`), its members.
fn admits(node: &Value, value: &Value) -> bool {
    if let (Value::Object(members), Some(Value::Bool(false))) =
        (value, node.get("additionalProperties"))
    {
        let declared = node.get("properties").and_then(Value::as_object);
        if !members
            .keys()
            .all(|k| declared.is_some_and(|d| d.contains_key(k)))
        {
            return false;
        }
    }
    admits_type(node, value)
}

/// Whether a node's `type` (absent: any) takes the value's JSON type.
fn admits_type(node: &Value, value: &Value) -> bool {
    let kind = crate::adapt::rules::value_type(value);
    let fits = |t: &str| t == kind || (t == "number" && kind == "integer");
    match node.get("type") {
        Some(Value::String(t)) => fits(t),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).any(fits),
        _ => !matches!(node, Value::Bool(false)),
    }
}

/// Whether the original schema node takes a string as it is (no `type`, or one naming
/// `string`), its local `$ref` followed.
fn takes_string(node: &Value, root: &Value) -> bool {
    // A reference that does not resolve says nothing against a string.
    let Some(node) = super::follow_refs(node, root) else {
        return true;
    };
    match node {
        Value::Bool(b) => *b,
        Value::Object(m) => match m.get("type") {
            Some(Value::String(t)) => t == "string",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "string"),
            _ => true,
        },
        _ => true,
    }
}

/// Decodes every encoded place in `args` (the adapted form) back to the original form. A value
/// a model sent in the original form instead is kept when that is unambiguous (an object where
/// pairs were asked, an object or array where text was asked); JSON text encoded twice is read
/// through both layers where the original place takes no string. A repeated key, a pair that
/// names a declared property, and text that is not JSON are refused, each named.
pub(crate) fn decode(adapted: &Adapted<'_>, args: &mut Value) -> Result<(), ArgsError> {
    if adapted.encoded.is_empty() {
        return Ok(());
    }
    let guide = Guide::new(adapted);
    let mut problems = Vec::new();
    decode_at(
        &guide,
        args,
        String::new(),
        &mut String::new(),
        &mut problems,
        &mut Vec::new(),
    );
    if problems.is_empty() {
        Ok(())
    } else {
        Err(ArgsError {
            problems,
            ..ArgsError::invalid()
        })
    }
}

/// `through`: the union nodes the walk already entered for this same value, so that a union
/// reaching itself through a member (`D: {"anyOf": [{"$ref": "#/$defs/D"}, ...]}`) is read once.
fn decode_at(
    guide: &Guide<'_>,
    value: &mut Value,
    at: String,
    path: &mut String,
    problems: &mut Vec<Problem>,
    through: &mut Vec<String>,
) {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
        let Some((at, node)) = guide.node(at) else {
            return;
        };
        if through.contains(&at) {
            return;
        }
        if let Some(place) = guide.places.get(at.as_str()) {
            decode_place(guide, place, value, &at, path, problems);
            return;
        }
        match value {
            Value::Object(map) => {
                let properties = node.get("properties").and_then(Value::as_object);
                // An added property for the undeclared ones: decoded into the object.
                let extra = properties.and_then(|p| {
                    p.keys().find_map(|name| {
                        let child = format!("{at}/properties/{}", escape(name));
                        let place = guide.places.get(child.as_str())?;
                        matches!(
                            place.encoding,
                            Encoding::ExtraPairs { .. } | Encoding::ExtraJsonText { .. }
                        )
                        .then(|| (name.clone(), child))
                    })
                });
                // A `null` where strict mode made an optional property required and nullable,
                // at JSON text: the property left out (the value's own `null` is the text
                // `null` there, see [`encode`]).
                if let Some(p) = properties {
                    map.retain(|key, v| {
                        !(v.is_null() && p.contains_key(key) && {
                            let child = format!("{at}/properties/{}", escape(key));
                            guide.made_required.contains(&child)
                                && (guide.places.get(child.as_str())).is_some_and(|place| {
                                    matches!(place.encoding, Encoding::JsonText)
                                })
                        })
                    });
                }
                let keys: Vec<String> = map.keys().cloned().collect();
                for key in keys {
                    if extra.as_ref().is_some_and(|(name, _)| *name == key) {
                        continue;
                    }
                    let child = if properties.is_some_and(|p| p.contains_key(&key)) {
                        format!("{at}/properties/{}", escape(&key))
                    } else if node
                        .get("additionalProperties")
                        .is_some_and(Value::is_object)
                    {
                        format!("{at}/additionalProperties")
                    } else {
                        continue;
                    };
                    let len = path.len();
                    path.push('/');
                    path.push_str(&escape(&key));
                    if let Some(v) = map.get_mut(&key) {
                        decode_at(guide, v, child, path, problems, &mut Vec::new());
                    }
                    path.truncate(len);
                }
                if let Some((name, child)) = extra {
                    decode_extra(guide, map, &name, &child, path, problems);
                }
            }
            Value::Array(items) => {
                let prefix = node.get("prefixItems").and_then(Value::as_array);
                for (i, item) in items.iter_mut().enumerate() {
                    let Some(child) = item_at(node, &at, prefix, i) else {
                        continue;
                    };
                    let len = path.len();
                    path.push('/');
                    path.push_str(&i.to_string());
                    decode_at(guide, item, child, path, problems, &mut Vec::new());
                    path.truncate(len);
                }
            }
            _ => {}
        }
        through.push(at.clone());
        if let Some(member) = guide.branch(&at, node, value, true, through) {
            decode_at(guide, value, member, path, problems, through);
        }
        through.pop();
    })
}

/// A value at an encoded place, in its original form again.
fn decode_place(
    guide: &Guide<'_>,
    place: &Place<'_>,
    value: &mut Value,
    at: &str,
    path: &mut String,
    problems: &mut Vec<Problem>,
) {
    match place.encoding {
        Encoding::Pairs => {
            if let Some(map) = pairs_to_map(guide, value, at, path, &[], problems) {
                *value = Value::Object(map);
            }
        }
        Encoding::JsonText => {
            if let Some(parsed) = text_to_value(place, value, path, problems) {
                *value = parsed;
            }
        }
        // Decoded with the object that holds them.
        Encoding::ExtraPairs { .. } | Encoding::ExtraJsonText { .. } => {}
    }
}

/// A list of `{"key", "value"}` objects as the map it stands for (`None`: not a list, left as
/// it is, or refused). `declared` names keys the map may not hold.
fn pairs_to_map(
    guide: &Guide<'_>,
    value: &mut Value,
    at: &str,
    path: &mut String,
    declared: &[&str],
    problems: &mut Vec<Problem>,
) -> Option<Map<String, Value>> {
    // Anything but a list is left to the original schema's check (an object is the map itself;
    // another value may be one the original takes beside the map).
    let Value::Array(items) = value else {
        return None;
    };
    let mut map = Map::new();
    let mut ok = true;
    let values_at = guide.pair_values(at);
    // Where the pairs' `value` was made optional, a pair without one stands for `null`.
    let value_optional = guide.made_optional.contains(&values_at);
    for (i, item) in std::mem::take(items).into_iter().enumerate() {
        let here = format!("{path}/{i}");
        let Value::Object(mut pair) = item else {
            problems.push(Problem::new(
                here,
                "must be an object with a string `key` and a `value`",
                Some(&item),
            ));
            ok = false;
            continue;
        };
        let key = match pair.get("key") {
            Some(Value::String(k))
                if pair.len() == 2 && pair.contains_key("value")
                    || value_optional && pair.len() == 1 =>
            {
                k.clone()
            }
            _ => {
                problems.push(Problem::new(
                    here,
                    "must be an object with exactly a string `key` and a `value`",
                    Some(&Value::Object(pair)),
                ));
                ok = false;
                continue;
            }
        };
        if declared.contains(&key.as_str()) {
            problems.push(Problem::new(
                format!("{here}/key"),
                format!("must not be `{key}`, a declared property: set `{key}` itself instead"),
                None,
            ));
            ok = false;
            continue;
        }
        if map.contains_key(&key) {
            problems.push(Problem::new(
                format!("{here}/key"),
                format!("repeats the key `{key}`: give each key once"),
                None,
            ));
            ok = false;
            continue;
        }
        let mut v = pair.remove("value").unwrap_or(Value::Null);
        let mut inner = format!("{here}/value");
        decode_at(
            guide,
            &mut v,
            values_at.clone(),
            &mut inner,
            problems,
            &mut Vec::new(),
        );
        map.insert(key, v);
    }
    ok.then_some(map)
}

/// JSON text as its value (`None`: not text, left as it is, or refused).
fn text_to_value(
    place: &Place<'_>,
    value: &Value,
    path: &str,
    problems: &mut Vec<Problem>,
) -> Option<Value> {
    let Value::String(text) = value else {
        return None;
    };
    match crate::adapt::parse_deep(text) {
        Ok(Value::String(inner)) if !place.takes_text => {
            // Encoded twice: the text of the text.
            match crate::adapt::parse_deep(&inner) {
                Ok(parsed) => Some(parsed),
                Err(_) => Some(Value::String(inner)),
            }
        }
        Ok(parsed) => Some(parsed),
        // Not JSON: where the original takes a string as it is, this is that string.
        Err(_) if place.takes_text => None,
        Err(e) => {
            problems.push(Problem::new(
                path.to_owned(),
                format!("must be JSON text ({e})"),
                Some(value),
            ));
            None
        }
    }
}

/// The added property `name` of `object` (its undeclared properties, encoded) merged back into
/// it.
fn decode_extra(
    guide: &Guide<'_>,
    object: &mut Map<String, Value>,
    name: &str,
    at: &str,
    path: &mut String,
    problems: &mut Vec<Problem>,
) {
    let Some(mut extra) = object.shift_remove(name) else {
        return;
    };
    let len = path.len();
    path.push('/');
    path.push_str(&escape(name));
    let owner = at.rsplit_once("/properties/").map_or("", |(o, _)| o);
    let declared: Vec<String> = (guide.root.pointer(owner))
        .and_then(|n| n.get("properties"))
        .and_then(Value::as_object)
        .map(|p| p.keys().filter(|k| *k != name).cloned().collect())
        .unwrap_or_default();
    let declared: Vec<&str> = declared.iter().map(String::as_str).collect();
    let map = match guide.places.get(at).map(|p| p.encoding) {
        Some(Encoding::ExtraPairs { .. }) => {
            pairs_to_map(guide, &mut extra, at, path, &declared, problems)
        }
        Some(Encoding::ExtraJsonText { .. }) => {
            let place = Place {
                encoding: &Encoding::JsonText,
                takes_text: false,
            };
            match text_to_value(&place, &extra, path, problems) {
                Some(Value::Object(m)) => Some(m),
                Some(other) => {
                    problems.push(Problem::new(
                        path.clone(),
                        "must be the JSON text of an object",
                        Some(&other),
                    ));
                    None
                }
                None => extra.as_object().cloned(),
            }
        }
        _ => None,
    };
    let Some(map) = map else {
        if !extra.is_null()
            && !problems
                .iter()
                .any(|p| p.pointer.starts_with(path.as_str()))
        {
            problems.push(Problem::new(
                path.clone(),
                "must hold the properties beyond the declared ones",
                Some(&extra),
            ));
        }
        path.truncate(len);
        return;
    };
    for (key, v) in map {
        if declared.contains(&key.as_str()) || object.contains_key(&key) {
            problems.push(Problem::new(
                path.clone(),
                format!("must not hold `{key}`, a declared property: set `{key}` itself instead"),
                None,
            ));
            continue;
        }
        object.insert(key, v);
    }
    path.truncate(len);
}

/// A value of the original schema in the form the adapted schema takes: each encoded place
/// encoded, and a `null` for each property the adaptation made required and nullable (strict
/// mode's optional properties) that the value leaves out. For building arguments as a model
/// sends them (few-shot examples, tests): [`super::restore`] gives the value back.
///
/// ```
/// use serde_json::json;
/// use toolschema::adapt::AdaptSettings;
///
/// let schema = json!({"type": "object", "properties": {
///     "labels": {"type": "object", "additionalProperties": {"type": "string"}}}});
/// let adapted = AdaptSettings::openai_strict().with_encoding(true).adapt(&schema);
/// let value = json!({"labels": {"env": "prod"}});
/// let sent = toolschema::encode(&adapted, value.clone());
/// assert_eq!(sent, json!({"labels": [{"key": "env", "value": "prod"}]}));
/// assert_eq!(toolschema::restore(&adapted, sent).unwrap(), value);
/// ```
pub fn encode(adapted: &Adapted<'_>, mut value: Value) -> Value {
    let guide = Guide::new(adapted);
    encode_at(&guide, &mut value, String::new(), &mut Vec::new());
    value
}

/// `through` as for [`decode_at`].
fn encode_at(guide: &Guide<'_>, value: &mut Value, at: String, through: &mut Vec<String>) {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
        let Some((at, node)) = guide.node(at) else {
            return;
        };
        if through.contains(&at) {
            return;
        }
        if let Some(place) = guide.places.get(at.as_str()) {
            match place.encoding {
                Encoding::Pairs => {
                    if let Value::Object(map) = value {
                        let pairs = std::mem::take(map)
                            .into_iter()
                            .map(|(k, mut v)| {
                                let values = guide.pair_values(&at);
                                encode_at(guide, &mut v, values.clone(), &mut Vec::new());
                                guide.pair(k, v, &values)
                            })
                            .collect();
                        *value = Value::Array(pairs);
                    }
                }
                Encoding::JsonText => {
                    // Where strict mode added the `null` (for "absent"), a `null` of the value
                    // itself goes as the text `null`, so the two cannot be confused.
                    if !(value.is_null()
                        && admits(node, value)
                        && !guide.made_required.contains(&at))
                    {
                        *value = Value::String(value.to_string());
                    }
                }
                Encoding::ExtraPairs { .. } | Encoding::ExtraJsonText { .. } => {}
            }
            return;
        }
        match value {
            Value::Object(map) => {
                let properties = node.get("properties").and_then(Value::as_object);
                let mut extra_place = None;
                if let Some(p) = properties {
                    for name in p.keys() {
                        let child = format!("{at}/properties/{}", escape(name));
                        if let Some(place) = guide.places.get(child.as_str()) {
                            if matches!(
                                place.encoding,
                                Encoding::ExtraPairs { .. } | Encoding::ExtraJsonText { .. }
                            ) {
                                extra_place = Some((name.clone(), place.encoding));
                            }
                        }
                    }
                }
                let keys: Vec<String> = map.keys().cloned().collect();
                let mut extras = Map::new();
                for key in keys {
                    // A `null` the adapted schema no longer takes: the property is left out.
                    let child = format!("{at}/properties/{}", escape(&key));
                    if map.get(&key).is_some_and(Value::is_null)
                        && guide.made_optional.contains(&child)
                    {
                        map.shift_remove(&key);
                        continue;
                    }
                    let declared = properties.is_some_and(|p| p.contains_key(&key))
                        && extra_place.as_ref().is_none_or(|(n, _)| *n != key);
                    if declared {
                        let child = format!("{at}/properties/{}", escape(&key));
                        if let Some(v) = map.get_mut(&key) {
                            encode_at(guide, v, child, &mut Vec::new());
                        }
                    } else if extra_place.is_some() {
                        if let Some(v) = map.shift_remove(&key) {
                            extras.insert(key, v);
                        }
                    } else if node
                        .get("additionalProperties")
                        .is_some_and(Value::is_object)
                    {
                        if let Some(v) = map.get_mut(&key) {
                            encode_at(
                                guide,
                                v,
                                format!("{at}/additionalProperties"),
                                &mut Vec::new(),
                            );
                        }
                    }
                }
                if let Some((name, encoding)) = extra_place
                    && !extras.is_empty()
                {
                    let values = guide.pair_values(&format!("{at}/properties/{}", escape(&name)));
                    let encoded = match encoding {
                        Encoding::ExtraPairs { .. } => Value::Array(
                            extras
                                .into_iter()
                                .map(|(k, mut v)| {
                                    encode_at(guide, &mut v, values.clone(), &mut Vec::new());
                                    guide.pair(k, v, &values)
                                })
                                .collect(),
                        ),
                        _ => Value::String(Value::Object(extras).to_string()),
                    };
                    map.insert(name, encoded);
                }
                fill_nulls(guide, node, &at, map);
            }
            Value::Array(items) => {
                let prefix = node.get("prefixItems").and_then(Value::as_array);
                for (i, item) in items.iter_mut().enumerate() {
                    let Some(child) = item_at(node, &at, prefix, i) else {
                        continue;
                    };
                    encode_at(guide, item, child, &mut Vec::new());
                }
            }
            _ => {}
        }
        through.push(at.clone());
        if let Some(member) = guide.branch(&at, node, value, false, through) {
            encode_at(guide, value, member, through);
        }
        through.pop();
    })
}

/// A `null` for each property strict mode made required and nullable (an optional one of the
/// original) that the value leaves out.
fn fill_nulls(guide: &Guide<'_>, node: &Value, at: &str, map: &mut Map<String, Value>) {
    let Some(Value::Array(required)) = node.get("required") else {
        return;
    };
    let mut seen = HashSet::new();
    let missing: Vec<&str> = (required.iter())
        .filter_map(Value::as_str)
        .filter(|name| !map.contains_key(*name) && seen.insert(*name))
        .collect();
    for name in missing {
        let child = format!("{at}/properties/{}", escape(name));
        if !guide.made_required.contains(&child) {
            continue;
        }
        let Some((_, property)) = guide.node(child) else {
            continue;
        };
        if crate::nullable::accepts_null(property, guide.root) {
            map.insert(name.to_owned(), Value::Null);
        }
    }
}
