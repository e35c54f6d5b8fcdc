//! What each provider accepts, written from the provider rules (the project's `providers.md`
//! notes, sections 1 and 3 to 6), not from the adapters: an independent check of their output.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};
use toolschema::Target;
use toolschema::walk::{Step, Walk, dotted, resolve_local};

/// Problems with `schema` as the `parameters`/`input_schema`/`inputSchema` of `target`, sent
/// with the given strict flag. Empty when the provider accepts it.
pub fn validate(target: Target, schema: &Value, strict: Option<bool>) -> Vec<String> {
    let mut out = Vec::new();
    root_object(schema, &mut out);
    patterns_compile(schema, &mut out);
    match target {
        Target::Mcp => mcp(schema, &mut out),
        Target::OpenAi => openai(schema, &mut out),
        Target::OpenAiStrict | Target::OpenAiResponses => {
            openai(schema, &mut out);
            if target == Target::OpenAiResponses {
                objects_have_properties(schema, &mut out);
            }
            if strict == Some(true) {
                openai_strict(schema, &mut out);
            }
        }
        Target::Anthropic => anthropic(schema, &mut out),
        Target::AnthropicStrict => {
            anthropic(schema, &mut out);
            if strict == Some(true) {
                anthropic_strict(schema, &mut out);
            }
        }
        Target::Gemini => gemini_json_schema(schema, &mut out),
        Target::GeminiCompat => gemini(schema, &mut out),
        Target::GeminiOpenApi => openapi_schema(schema, &mut out),
        Target::CcaClaude => cca(schema, &mut out),
        Target::DeepSeek => {}
        Target::DeepSeekStrict => {
            if strict == Some(true) {
                deepseek_strict(schema, &mut out);
            }
        }
        Target::Mistral => mistral(schema, &mut out),
        Target::Ollama => ollama(schema, &mut out),
        Target::Moonshot => moonshot(schema, &mut out),
        // Bedrock: "the top level schema type must be object" ([BR-TIS], checked for every
        // target above); the keywords are the model family's, Claude's by default (section 4).
        Target::Bedrock => anthropic(schema, &mut out),
        Target::Xai => xai(schema, &mut out),
        // llama.cpp: written from its converter's source (`grammars.rs`).
        Target::LlamaCpp => crate::grammars::llama_cpp(schema, &mut out),
        // llguidance: the engine itself.
        Target::Llguidance => crate::grammars::llguidance(schema, &mut out),
        // xgrammar (and vLLM in front of it): written from their source (`xgrammar.rs`).
        Target::Xgrammar => crate::xgrammar::xgrammar(schema, &mut out),
        _ => out.push(format!("no validator for {target}")),
    }
    out
}

/// Every target: a `pattern` is an ECMA-262 regular expression (JSON Schema 2020-12 Validation,
/// 6.3.3); providers that compile patterns into a grammar (OpenAI strict, Anthropic strict:
/// providers.md [A-SO]) refuse the whole request over one that does not compile. Checked with
/// the `jsonschema` crate's own pattern compilation, not the adapter's engine.
fn patterns_compile(schema: &Value, out: &mut Vec<String>) {
    for (node, path) in nodes(schema) {
        if let Some(p) = node.get("pattern") {
            if jsonschema::validator_for(&json!({"pattern": p})).is_err() {
                out.push(format!("{path}: `pattern: {p}` does not compile"));
            }
        }
    }
}

fn root_object(schema: &Value, out: &mut Vec<String>) {
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        out.push("root: `type` must be \"object\" (every provider; Anthropic: `input_schema.type: Field required`)".into());
    }
}

/// MCP: `inputSchema` is an object schema; we also promise no `$schema` URI.
fn mcp(schema: &Value, out: &mut Vec<String>) {
    for (node, path) in nodes(schema) {
        if node.get("$schema").is_some() {
            out.push(format!("{path}: `$schema` left in"));
        }
    }
}

/// OpenAI, any mode: "schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level".
fn openai(schema: &Value, out: &mut Vec<String>) {
    for k in ["oneOf", "anyOf", "allOf", "enum", "not"] {
        if schema.get(k).is_some() {
            out.push(format!("root: `{k}` at the top level"));
        }
    }
}

fn objects_have_properties(schema: &Value, out: &mut Vec<String>) {
    for (node, path) in nodes(schema) {
        if node.get("type").and_then(Value::as_str) == Some("object")
            && node.get("properties").is_none()
        {
            out.push(format!("{path}: object without `properties`"));
        }
    }
}

/// OpenAI Structured Outputs, `strict: true` (providers.md section 1).
fn openai_strict(schema: &Value, out: &mut Vec<String>) {
    let unsupported = [
        "allOf",
        "not",
        "dependentRequired",
        "dependentSchemas",
        "if",
        "then",
        "else",
        "oneOf",
        "default",
        "propertyNames",
        "patternProperties",
        "unevaluatedProperties",
        "const",
        "nullable",
        // Not in the documented subset: tuples ("array schema missing items"), and string
        // lengths, which the guide lists only among what fine-tuned models lack (uncertain).
        "prefixItems",
        "minLength",
        "maxLength",
        "uniqueItems",
        "minProperties",
        "maxProperties",
    ];
    let formats = [
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uuid",
    ];
    let mut properties = 0usize;
    let mut enum_values = 0usize;
    for (node, path) in nodes(schema) {
        let Some(m) = node.as_object() else {
            if node != &Value::Bool(false) {
                out.push(format!("{path}: boolean subschema"));
            }
            continue;
        };
        for k in unsupported {
            if m.contains_key(k) {
                out.push(format!("{path}: `{k}` is not permitted in strict mode"));
            }
        }
        if let Some(f) = m.get("format").and_then(Value::as_str) {
            if !formats.contains(&f) {
                out.push(format!("{path}: '{f}' is not a valid format"));
            }
        }
        if m.contains_key("$ref") && m.len() > 1 {
            out.push(format!("{path}: $ref cannot have keywords"));
        }
        if !(m.contains_key("type") || m.contains_key("anyOf") || m.contains_key("$ref")) {
            out.push(format!("{path}: untyped node"));
        }
        if m.get("type").and_then(Value::as_str) == Some("object") {
            if m.get("additionalProperties") != Some(&Value::Bool(false)) {
                out.push(format!(
                    "{path}: 'additionalProperties' is required to be supplied and to be false"
                ));
            }
            let props: Vec<&String> = m
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().collect())
                .unwrap_or_default();
            if m.get("properties").is_none() {
                out.push(format!("{path}: object schema missing properties"));
            }
            properties += props.len();
            let required: HashSet<&str> = m
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for p in &props {
                if !required.contains(p.as_str()) {
                    out.push(format!("{path}: 'required' is required to be supplied and to be an array including every key in properties. Missing '{p}'"));
                }
            }
        }
        if m.get("type").and_then(Value::as_str) == Some("array")
            && m.get("items").is_none()
            && m.get("prefixItems").is_none()
        {
            out.push(format!("{path}: array without `items`"));
        }
        if let Some(Value::Array(v)) = m.get("enum") {
            enum_values += v.len();
        }
    }
    if properties > 5_000 {
        out.push(format!("{properties} properties (limit 5,000)"));
    }
    if enum_values > 1_000 {
        out.push(format!("{enum_values} enum values (limit 1,000)"));
    }
}

/// Anthropic `input_schema`: "does not support oneOf, allOf, or anyOf at the top level".
fn anthropic(schema: &Value, out: &mut Vec<String>) {
    for k in ["oneOf", "anyOf", "allOf"] {
        if schema.get(k).is_some() {
            out.push(format!("root: `{k}` at the top level"));
        }
    }
}

/// Anthropic strict tool use (providers.md section 4: supported and not supported).
fn anthropic_strict(schema: &Value, out: &mut Vec<String>) {
    let unsupported = [
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "maxItems",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "patternProperties",
    ];
    let formats = [
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "uri",
        "ipv4",
        "ipv6",
        "uuid",
    ];
    let mut refs: HashMap<String, Vec<String>> = HashMap::new();
    for (node, path) in nodes(schema) {
        let Some(m) = node.as_object() else { continue };
        for k in unsupported {
            if m.contains_key(k) {
                out.push(format!("{path}: `{k}` is not supported"));
            }
        }
        if let Some(n) = m.get("minItems").and_then(Value::as_u64) {
            if n > 1 {
                out.push(format!("{path}: minItems {n} (only 0 and 1)"));
            }
        }
        if let Some(f) = m.get("format").and_then(Value::as_str) {
            if !formats.contains(&f) {
                out.push(format!("{path}: format '{f}' is not supported"));
            }
        }
        if let Some(p) = m.get("pattern").and_then(Value::as_str) {
            if ["(?=", "(?!", "(?<=", "(?<!", "\\b"]
                .iter()
                .any(|x| p.contains(x))
            {
                out.push(format!("{path}: pattern feature not supported"));
            }
        }
        if m.get("type").and_then(Value::as_str) == Some("object")
            && m.get("additionalProperties") != Some(&Value::Bool(false))
        {
            out.push(format!("{path}: `additionalProperties` must be false"));
        }
        if let Some(Value::Array(v)) = m.get("enum") {
            if v.iter().any(|x| x.is_object() || x.is_array()) {
                out.push(format!("{path}: complex types within enums"));
            }
        }
        if let Some(r) = m.get("$ref").and_then(Value::as_str) {
            if !r.starts_with('#') || resolve_local(schema, r).is_none() {
                out.push(format!("{path}: external or dangling `$ref`"));
            }
            let owner = path.split('.').take(2).collect::<Vec<_>>().join(".");
            refs.entry(owner).or_default().push(r.to_owned());
        }
    }
    // Recursion: a definition (or the root) reachable from itself.
    let key = |r: &str| -> String {
        if r == "#" {
            String::new()
        } else {
            r.trim_start_matches("#/").replace('/', ".")
        }
    };
    let mut graph: HashMap<String, Vec<String>> = HashMap::new();
    for (owner, targets) in &refs {
        let owner = if owner.starts_with("$defs.") {
            owner.clone()
        } else {
            String::new()
        };
        graph
            .entry(owner)
            .or_default()
            .extend(targets.iter().map(|t| key(t)));
    }
    for start in graph.keys() {
        let mut seen = HashSet::new();
        let mut stack = graph[start].clone();
        while let Some(n) = stack.pop() {
            if &n == start {
                out.push(format!("recursive schema through `{start}`"));
                break;
            }
            if seen.insert(n.clone()) {
                stack.extend(graph.get(&n).cloned().unwrap_or_default());
            }
        }
    }
}

/// Keywords Google's function declarations reject (the seed's section 3.1 list; the protobuf
/// path answers "Cannot find field").
const GOOGLE_UNSUPPORTED: &[&str] = &[
    "$schema",
    "$ref",
    "$defs",
    "definitions",
    "$dynamicRef",
    "$dynamicAnchor",
    "examples",
    "prefixItems",
    "unevaluatedProperties",
    "unevaluatedItems",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "pattern",
    "format",
    "dependencies",
    "dependentSchemas",
    "dependentRequired",
    "x-mcp-header",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "const",
];

fn google_common(schema: &Value, out: &mut Vec<String>) {
    for (node, path) in nodes(schema) {
        let Some(m) = node.as_object() else {
            out.push(format!("{path}: boolean subschema"));
            continue;
        };
        for k in GOOGLE_UNSUPPORTED {
            if m.contains_key(*k) {
                out.push(format!("{path}: Unknown name \"{k}\": Cannot find field"));
            }
        }
        if m.get("type").is_some_and(Value::is_array) {
            out.push(format!(
                "{path}: Proto field is not repeating, cannot start list (type array)"
            ));
        }
        if m.get("type").and_then(Value::as_str) == Some("object")
            && !m.get("properties").is_some_and(Value::is_object)
        {
            out.push(format!("{path}: object without `properties`"));
        }
        required_defined(m, &path, out);
    }
}

/// Google refuses a `required` entry without a matching property of the same node:
/// "`…parameters.required[0]: property is not defined`" (providers.md 3a, [ERR-G-REQUNDEF]).
fn required_defined(m: &serde_json::Map<String, Value>, path: &str, out: &mut Vec<String>) {
    if let Some(Value::Array(required)) = m.get("required") {
        let props = m.get("properties").and_then(Value::as_object);
        for r in required {
            if !r
                .as_str()
                .is_some_and(|r| props.is_some_and(|p| p.contains_key(r)))
            {
                out.push(format!("{path}: required {r}: property is not defined"));
            }
        }
    }
}

/// Gemini `parametersJsonSchema` as Google documents its JSON Schema fields (providers.md 3b,
/// [G-SDK]: the `response_json_schema` list, "only the following properties are supported:
/// `$id`, `$defs`, `$ref`, `$anchor`, `type`, `format`, `title`, `description`, `enum` (for
/// strings and numbers), `items`, `prefixItems`, `minItems`, `maxItems`, `minimum`, `maximum`,
/// `anyOf`, `oneOf` (interpreted the same as `anyOf`), `properties`, `additionalProperties`,
/// `required`" and `propertyOrdering`; "If `$ref` is set on a sub-schema, no other properties,
/// except for than those starting as a `$`, may be set"; cyclic references "may only be used
/// within non-required properties"; [ERR-G-UNDEFREF]: a reference to an undefined schema is a
/// 400). Not from the adapter's tables: a keyword outside Google's words is a problem here.
/// `default` is accepted too: Google's own error names it ("only description and default can be
/// set alongside it", [ERR-G-REFSIB]) and Gemini CLI sends it to every backend ([GCLI-MCP]).
fn gemini_json_schema(schema: &Value, out: &mut Vec<String>) {
    const DOCUMENTED: &[&str] = &[
        "default",
        "$id",
        "$defs",
        "$ref",
        "$anchor",
        "type",
        "format",
        "title",
        "description",
        "enum",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "anyOf",
        "oneOf",
        "properties",
        "additionalProperties",
        "required",
        "propertyOrdering",
    ];
    let types = [
        "string", "number", "integer", "boolean", "object", "array", "null",
    ];
    for (node, path) in nodes(schema) {
        let Some(m) = node.as_object() else { continue };
        for k in m.keys() {
            if !DOCUMENTED.contains(&k.as_str()) {
                out.push(format!(
                    "{path}: `{k}` is not among Google's supported properties"
                ));
            }
        }
        if m.contains_key("$ref") {
            if let Some(k) = m.keys().find(|k| !k.starts_with('$')) {
                out.push(format!(
                    "{path}: `$ref` was set alongside unsupported fields (`{k}`)"
                ));
            }
            let target = m.get("$ref").and_then(Value::as_str).unwrap_or("");
            if resolve_local(schema, target).is_none() {
                out.push(format!("{path}: reference to undefined schema {target}"));
            }
        }
        if let Some(Value::Array(values)) = m.get("enum") {
            if values.iter().any(|v| !v.is_string() && !v.is_number()) {
                out.push(format!("{path}: `enum` holds only strings and numbers"));
            }
        }
        let named = |t: &Value| t.as_str().is_some_and(|t| types.contains(&t));
        match m.get("type") {
            Some(Value::Array(ts)) if !ts.iter().all(named) => {
                out.push(format!("{path}: unknown type in {ts:?}"));
            }
            Some(t @ Value::String(_)) if !named(t) => {
                out.push(format!("{path}: unknown type {t}"))
            }
            _ => {}
        }
    }
    required_cycles(schema, out);
}

/// "Cyclic references ... may only be used within non-required properties. (Nullable properties
/// are not sufficient.)" (providers.md 3b, [G-SDK]): a definition that reaches itself through a
/// required property.
fn required_cycles(schema: &Value, out: &mut Vec<String>) {
    let Some(defs) = schema.get("$defs").and_then(Value::as_object) else {
        return;
    };
    // Per definition: the definitions it references, and whether through a required property.
    let mut edges: HashMap<String, Vec<(String, bool)>> = HashMap::new();
    fn refs(v: &Value, required: bool, found: &mut Vec<(String, bool)>) {
        let Value::Object(m) = v else { return };
        if let Some(Value::String(r)) = m.get("$ref") {
            if let Some(name) = r.strip_prefix("#/$defs/") {
                found.push((name.to_owned(), required));
            }
        }
        let listed: Vec<&str> = m
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (k, child) in m {
            match (k.as_str(), child) {
                ("properties", Value::Object(props)) => {
                    for (name, p) in props {
                        refs(p, required || listed.contains(&name.as_str()), found);
                    }
                }
                ("enum" | "required" | "propertyOrdering" | "$defs", _) => {}
                (_, Value::Array(items)) => items.iter().for_each(|i| refs(i, required, found)),
                (_, child @ Value::Object(_)) => refs(child, required, found),
                _ => {}
            }
        }
    }
    for (name, def) in defs {
        let mut found = Vec::new();
        refs(def, false, &mut found);
        edges.insert(name.clone(), found);
    }
    let reaches = |from: &str, to: &str| {
        let mut seen = HashSet::new();
        let mut queue = vec![from.to_owned()];
        while let Some(at) = queue.pop() {
            if at == to {
                return true;
            }
            if seen.insert(at.clone()) {
                if let Some(next) = edges.get(&at) {
                    queue.extend(next.iter().map(|(n, _)| n.clone()));
                }
            }
        }
        false
    };
    for (name, targets) in &edges {
        for (target, required) in targets {
            if *required && reaches(target, name) {
                out.push(format!(
                    "$defs.{name}: a cyclic reference through a required property"
                ));
            }
        }
    }
}

/// Gemini `parametersJsonSchema` under the seed's contract (`gemini-compat`), as the seed's
/// section 3 sends it.
fn gemini(schema: &Value, out: &mut Vec<String>) {
    google_common(schema, out);
    for (node, path) in nodes(schema) {
        if let Some(Value::Array(values)) = node.get("enum") {
            if values.is_empty() || values.iter().any(|v| !v.is_string()) {
                out.push(format!("{path}: only string enums"));
            }
        }
    }
}

/// The OpenAPI 3.0 `Schema` message of `parameters` (providers.md 3a: its field list, `Type`
/// values, enum and format rules).
fn openapi_schema(schema: &Value, out: &mut Vec<String>) {
    let fields = [
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "default",
        "items",
        "minimum",
        "maximum",
    ];
    let types = [
        "string", "number", "integer", "boolean", "array", "object", "null",
    ];
    for (node, path) in nodes(schema) {
        let Some(m) = node.as_object() else {
            out.push(format!("{path}: boolean subschema"));
            continue;
        };
        for k in m.keys() {
            if !fields.contains(&k.as_str()) {
                out.push(format!("{path}: Unknown name \"{k}\": Cannot find field"));
            }
        }
        let ty = m.get("type").and_then(Value::as_str);
        if let Some(t) = m.get("type") {
            if !t.as_str().is_some_and(|t| types.contains(&t)) {
                out.push(format!("{path}: Invalid value at 'type', {t}"));
            }
        }
        if let Some(values) = m.get("enum") {
            if ty != Some("string") {
                out.push(format!("{path}: enum: only allowed for STRING type"));
            }
            if !values
                .as_array()
                .is_some_and(|v| v.iter().all(Value::is_string))
            {
                out.push(format!("{path}: Invalid value at 'enum' (TYPE_STRING)"));
            }
        }
        if let Some(f) = m.get("format").and_then(Value::as_str) {
            let ok = matches!(
                (ty, f),
                (Some("number"), "float" | "double")
                    | (Some("integer"), "int32" | "int64")
                    | (Some("string"), "enum" | "date-time")
            );
            if !ok {
                out.push(format!("{path}: format `{f}` is not supported for {ty:?}"));
            }
        }
        if m.get("items").is_some_and(Value::is_array) {
            out.push(format!("{path}: `items` must be one schema"));
        }
        required_defined(m, &path, out);
        if ty == Some("object") && m.get("properties").is_none() {
            out.push(format!("{path}: object without `properties`"));
        }
    }
}

/// Cloud Code Assist Claude: the seed's residual gate (4.5) plus a valid 2020-12 document.
fn cca(schema: &Value, out: &mut Vec<String>) {
    google_common(schema, out);
    for (node, path) in nodes(schema) {
        let Some(m) = node.as_object() else { continue };
        if m.get("type").and_then(Value::as_str) == Some("null") {
            out.push(format!("{path}: `type: \"null\"`"));
        }
        for k in ["nullable", "anyOf", "oneOf", "allOf", "not"] {
            if m.contains_key(k) {
                out.push(format!("{path}: `{k}` left"));
            }
        }
    }
    if let Err(e) = jsonschema::meta::validate(schema) {
        out.push(format!("not a valid 2020-12 schema: {e}"));
    }
}

/// DeepSeek strict mode (providers.md section 6, [DS-FC]: the Tool Calls guide's "strict mode
/// (Beta)"): types `object`, `string`, `number`, `integer`, `boolean`, `array`, with `enum` and
/// `anyOf`; objects list every property in `required` and set `additionalProperties: false`;
/// strings take `pattern` and the formats `email`, `hostname`, `ipv4`, `ipv6`, `uuid`, and not
/// `minLength`/`maxLength`; numbers take `const`, `default`, `minimum`, `maximum`,
/// `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`; arrays do not take `minItems`/
/// `maxItems`; `$ref` and `$defs` (recursion included). Anything else is outside the subset the
/// guide lists. `null` is not in the guide's list; a nullable optional property is OpenAI's form,
/// which DeepSeek's strict mode copies (uncertain: allowed here).
fn deepseek_strict(schema: &Value, out: &mut Vec<String>) {
    let listed = [
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "anyOf",
        "$ref",
        "$defs",
        "description",
        "pattern",
        "format",
        "const",
        "default",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ];
    let types = [
        "object", "string", "number", "integer", "boolean", "array", "null",
    ];
    let formats = ["email", "hostname", "ipv4", "ipv6", "uuid"];
    for (node, path) in nodes(schema) {
        let Some(m) = node.as_object() else {
            out.push(format!("{path}: boolean subschema"));
            continue;
        };
        for k in m.keys() {
            if !listed.contains(&k.as_str()) {
                out.push(format!("{path}: `{k}` is not in DeepSeek's strict subset"));
            }
        }
        let named: Vec<&str> = match m.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        for t in named {
            if !types.contains(&t) {
                out.push(format!("{path}: type `{t}`"));
            }
        }
        if let Some(f) = m.get("format").and_then(Value::as_str) {
            if !formats.contains(&f) {
                out.push(format!("{path}: format `{f}` is not one DeepSeek lists"));
            }
        }
        if m.get("type").and_then(Value::as_str) == Some("object") {
            if m.get("additionalProperties") != Some(&Value::Bool(false)) {
                out.push(format!(
                    "{path}: object without `additionalProperties: false`"
                ));
            }
            let required: HashSet<&str> = (m.get("required").and_then(Value::as_array))
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for p in m
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|p| p.keys())
            {
                if !required.contains(p.as_str()) {
                    out.push(format!("{path}: property `{p}` not in `required`"));
                }
            }
        }
    }
}

/// Mistral (providers.md section 6): a tool schema is checked against a meta-schema, which
/// refused a draft-04 boolean `exclusiveMinimum: true` ([ERR-MI-SCHEMA]), and `$id`/`$schema`
/// are no longer accepted ([ERR-MI-ID]). Checked as a valid 2020-12 document with neither key.
fn mistral(schema: &Value, out: &mut Vec<String>) {
    for (node, path) in nodes(schema) {
        for k in ["$id", "$schema"] {
            if node.get(k).is_some() {
                out.push(format!("{path}: `{k}` (Mistral no longer accepts it)"));
            }
        }
    }
    if let Err(e) = jsonschema::meta::validate(schema) {
        out.push(format!("not a valid 2020-12 schema: {e}"));
    }
}

/// Ollama (providers.md section 6, [OLLAMA-TYPES]: the structs of `api/types.go`): the root is
/// decoded into `type`, `$defs`, `items`, `required`, `properties`, every property into `anyOf`,
/// `type` (a string or a list of strings), `items`, `description`, `enum`, `properties`,
/// `required`; any other key is dropped while decoding (so it must not carry meaning), and a
/// boolean where a property is expected does not decode at all.
fn ollama(schema: &Value, out: &mut Vec<String>) {
    let root = ["type", "$defs", "items", "required", "properties"];
    let property = [
        "anyOf",
        "type",
        "items",
        "description",
        "enum",
        "properties",
        "required",
    ];
    for (node, path) in nodes(schema) {
        let Some(m) = node.as_object() else {
            out.push(format!("{path}: a boolean where Ollama decodes a property"));
            continue;
        };
        let fields: &[&str] = if path.is_empty() { &root } else { &property };
        for k in m.keys() {
            if !fields.contains(&k.as_str()) {
                out.push(format!(
                    "{path}: `{k}` is not a field of Ollama's types (dropped)"
                ));
            }
        }
        match m.get("type") {
            None | Some(Value::String(_)) => {}
            Some(Value::Array(ts)) if ts.iter().all(Value::is_string) => {}
            Some(other) => out.push(format!("{path}: `type: {other}`")),
        }
    }
}

/// Moonshot (providers.md section 6, [ERR-MOONSHOT]): a reference outside `#/$defs/` is refused
/// ("references must start with #/$defs/"). Moonshot documents nothing more; the rest is what
/// the reference implementation sends it (omp-rules 8.1): no `oneOf`, no list of types, no
/// boolean subschema, enums of strings and numbers only, and a valid 2020-12 document.
fn moonshot(schema: &Value, out: &mut Vec<String>) {
    for (node, path) in nodes(schema) {
        let Some(m) = node.as_object() else {
            out.push(format!("{path}: boolean subschema"));
            continue;
        };
        if let Some(r) = m.get("$ref").and_then(Value::as_str) {
            if !r.starts_with("#/$defs/") {
                out.push(format!(
                    "{path}: `$ref: {r}` (references must start with #/$defs/)"
                ));
            }
        }
        if m.contains_key("oneOf") {
            out.push(format!("{path}: `oneOf`"));
        }
        if m.get("type").is_some_and(Value::is_array) {
            out.push(format!("{path}: a list of types"));
        }
        if let Some(Value::Array(values)) = m.get("enum") {
            if values.iter().any(|v| !v.is_string() && !v.is_number()) {
                out.push(format!(
                    "{path}: an enum value that is neither a string nor a number"
                ));
            }
        }
    }
    if let Err(e) = jsonschema::meta::validate(schema) {
        out.push(format!("not a valid 2020-12 schema: {e}"));
    }
}

/// xAI (providers.md section 6, [XAI-SO]; strict is "implicitly always `true`"): refused with
/// a 400 are an empty `enum` or `anyOf`, a `true`/`false` property schema, `minContains`/
/// `maxContains`, `items` as an array, and circular references ("non-circular references
/// only"); `allOf` takes one subschema; a `pattern` is in the ECMA-262 subset xAI names (no
/// lookaround, backreferences, `\b`, `\p{}`). Guaranteed only: the formats `date`, `time`,
/// `date-time`, `email`, `uuid`, `ipv4`, `ipv6`, `uri`, and bounds up to 2048 (lengths), 256
/// (items), 64 (properties); `not` and `if`/`then`/`else` are best effort.
fn xai(schema: &Value, out: &mut Vec<String>) {
    let formats = [
        "date",
        "time",
        "date-time",
        "email",
        "uuid",
        "ipv4",
        "ipv6",
        "uri",
    ];
    let limits = [
        ("minLength", 2048),
        ("maxLength", 2048),
        ("minItems", 256),
        ("maxItems", 256),
        ("minProperties", 64),
        ("maxProperties", 64),
    ];
    for (node, path) in nodes(schema) {
        let Some(m) = node.as_object() else {
            out.push(format!("{path}: a `true`/`false` schema"));
            continue;
        };
        for k in ["enum", "anyOf"] {
            if m.get(k)
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty)
            {
                out.push(format!("{path}: an empty `{k}`"));
            }
        }
        for k in ["minContains", "maxContains"] {
            if m.contains_key(k) {
                out.push(format!("{path}: `{k}` (refused)"));
            }
        }
        for k in ["not", "if", "then", "else"] {
            if m.contains_key(k) {
                out.push(format!("{path}: `{k}` (best effort only: not guaranteed)"));
            }
        }
        if m.get("items").is_some_and(Value::is_array) {
            out.push(format!("{path}: `items` as an array"));
        }
        if let Some(f) = m.get("format").and_then(Value::as_str) {
            if !formats.contains(&f) {
                out.push(format!("{path}: format `{f}` is not one xAI enforces"));
            }
        }
        if let Some(p) = m.get("pattern").and_then(Value::as_str) {
            let outside = [
                "(?=", "(?!", "(?<=", "(?<!", "\\b", "\\B", "\\p{", "\\P{", "\\k<",
            ]
            .iter()
            .any(|t| p.contains(t))
                || p.as_bytes()
                    .windows(2)
                    .any(|w| w[0] == b'\\' && (b'1'..=b'9').contains(&w[1]));
            if outside {
                out.push(format!(
                    "{path}: pattern `{p}` is outside xAI's ECMA-262 subset"
                ));
            }
        }
        for (k, limit) in limits {
            if m.get(k).and_then(Value::as_u64).is_some_and(|n| n > limit) {
                out.push(format!("{path}: `{k}` past the {limit} xAI guarantees"));
            }
        }
    }
    // Circular references: a definition that reaches itself through `$ref`s.
    let defs = schema.get("$defs").and_then(Value::as_object);
    let refs_in = |v: &Value| -> Vec<String> {
        nodes(v)
            .into_iter()
            .filter_map(|(n, _)| n.get("$ref").and_then(Value::as_str))
            .filter_map(|r| r.strip_prefix("#/$defs/").map(str::to_owned))
            .collect()
    };
    for (name, def) in defs.into_iter().flatten() {
        let mut seen = HashSet::new();
        let mut stack = refs_in(def);
        while let Some(next) = stack.pop() {
            if next == *name {
                out.push(format!("$defs.{name}: a circular reference"));
                break;
            }
            if seen.insert(next.clone()) {
                if let Some(d) = defs.and_then(|d| d.get(&next)) {
                    stack.extend(refs_in(d));
                }
            }
        }
    }
}

fn nodes(schema: &Value) -> Vec<(&Value, String)> {
    let walk = Walk::new(schema);
    (0..walk.nodes.len())
        .map(|i| {
            let steps = walk.steps(i);
            // `additionalProperties: false` and `items: false` are keyword values here.
            let closing = matches!(
                steps.last(),
                Some(Step::Keyword(
                    "additionalProperties" | "items" | "unevaluatedProperties"
                ))
            );
            (
                walk.nodes[i].0,
                if closing {
                    format!("{}#closing", dotted(&steps))
                } else {
                    dotted(&steps)
                },
            )
        })
        .filter(|(v, p)| !(p.ends_with("#closing") && v.is_boolean()))
        .collect()
}
