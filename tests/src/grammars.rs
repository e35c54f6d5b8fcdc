//! What llama.cpp's grammar converter refuses or skips, written from its source and not from the
//! adapter: `common/json-schema-to-grammar.cpp` (`common_schema_converter::visit`,
//! `_visit_pattern`, `build_repetition`, `resolve_refs`; commit
//! 011c6c3c305634c65886cf7f32805907f667590c) and the GBNF parser of `src/llama-grammar.cpp`
//! (`parse_char`, `parse_sequence`'s repetition check; commit
//! 04332939dd7adc7edbff9dbb4e25efdfae1c7668). Each problem names the converter's error, or says
//! that a keyword is skipped there (a constraint the schema states that the grammar would not
//! hold the model to).

use serde_json::Value;

/// How a problem that is a skipped keyword ends.
const SKIPPED: &str = " is skipped by the converter here";

/// `MAX_REPETITION_THRESHOLD` in `src/llama-grammar.cpp`.
const THRESHOLD: u64 = 2000;

/// The keys of `PRIMITIVE_RULES` a `type` may name.
const PRIMITIVES: &[&str] = &[
    "boolean",
    "number",
    "integer",
    "object",
    "array",
    "string",
    "null",
    "value",
    "decimal-part",
    "integral-part",
    "uuid",
    "char",
];

/// Keywords that constrain a value (JSON Schema 2020-12): the converter must read each one it
/// is given, or the grammar silently holds less than the schema says.
pub(crate) const CONSTRAINTS: &[&str] = &[
    "$ref",
    "type",
    "enum",
    "const",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "unevaluatedProperties",
    "required",
    "items",
    "prefixItems",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
    "format",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
];

/// Problems llama.cpp's converter has with `schema` as a tool's parameters.
pub fn llama_cpp(schema: &Value, out: &mut Vec<String>) {
    let mut seen_refs = Vec::new();
    visit(schema, schema, "", out, &mut seen_refs, 0);
}

fn visit(
    root: &Value,
    schema: &Value,
    path: &str,
    out: &mut Vec<String>,
    refs: &mut Vec<String>,
    depth: usize,
) {
    if depth > 200 {
        return;
    }
    let Some(m) = schema.as_object() else {
        // `schema.contains(..)` is false and `schema.empty()` too on a boolean: it reaches
        // "Unrecognized schema".
        out.push(format!(
            "{path}: Unrecognized schema: {schema} (a boolean subschema)"
        ));
        return;
    };
    let ty = m.get("type");
    let ty_str = ty.and_then(Value::as_str);
    let untyped = ty.is_none();
    // Which keywords the branch taken reads.
    let mut read: Vec<&str> = Vec::new();
    let child = |key: &str| format!("{path}/{key}");
    if let Some(r) = m.get("$ref") {
        read.push("$ref");
        match r.as_str() {
            Some(r) if r.starts_with("#/") => {
                if !refs.contains(&r.to_owned()) {
                    refs.push(r.to_owned());
                    match root.pointer(&r[1..]) {
                        Some(target) => visit(root, target, &child("$ref"), out, refs, depth + 1),
                        None => out.push(format!("{path}: Error resolving ref {r}")),
                    }
                    refs.pop();
                }
            }
            _ => out.push(format!("{path}: Unsupported ref: {r}")),
        }
    } else if let Some(alts) = m.get("oneOf").or_else(|| m.get("anyOf")) {
        let key = if m.contains_key("oneOf") {
            "oneOf"
        } else {
            "anyOf"
        };
        read.push(key);
        for (i, alt) in alts.as_array().into_iter().flatten().enumerate() {
            visit(
                root,
                alt,
                &format!("{path}/{key}/{i}"),
                out,
                refs,
                depth + 1,
            );
        }
        // A type each alternative repeats is held by them.
        // A type each alternative keeps within (JSON Schema: both must hold) is held by them.
        if let Some(t) = ty {
            let outer = types_of(t);
            let inside = |a: &Value| {
                admitted(a, 8).is_some_and(|types| types.iter().all(|x| outer.contains(x)))
            };
            if alts.as_array().into_iter().flatten().all(inside) {
                read.push("type");
            }
        }
    } else if let Some(Value::Array(types)) = ty {
        // One copy of the node per type, as a union: an error of any copy is the node's; a
        // keyword is skipped only when every copy skips it.
        let mut per_copy: Vec<Vec<String>> = Vec::new();
        for t in types {
            let mut copy = m.clone();
            copy.insert("type".into(), t.clone());
            let mut inner = Vec::new();
            visit(
                root,
                &Value::Object(copy),
                path,
                &mut inner,
                refs,
                depth + 1,
            );
            per_copy.push(inner);
        }
        let mut problems: Vec<String> = Vec::new();
        for p in per_copy.iter().flatten() {
            let counts = !p.ends_with(SKIPPED) || per_copy.iter().all(|c| c.contains(p));
            if counts && !problems.contains(p) {
                problems.push(p.clone());
            }
        }
        out.extend(problems);
        return;
    } else if m.contains_key("const") {
        read.extend(["const", "type"]);
    } else if m.contains_key("enum") {
        read.extend(["enum", "type"]);
    } else if (untyped || ty_str == Some("object"))
        && (m.contains_key("properties")
            || m.get("additionalProperties")
                .is_some_and(|a| a != &Value::Bool(true)))
    {
        read.extend(["type", "properties", "required", "additionalProperties"]);
        for (name, p) in m
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            visit(
                root,
                p,
                &format!("{path}/properties/{name}"),
                out,
                refs,
                depth + 1,
            );
        }
        if let Some(a) = m.get("additionalProperties").filter(|a| a.is_object()) {
            visit(
                root,
                a,
                &child("additionalProperties"),
                out,
                refs,
                depth + 1,
            );
        }
    } else if (untyped || matches!(ty_str, Some("object" | "string"))) && m.contains_key("allOf") {
        // Only the members' `properties`, `required` and `enum` are read.
        read.extend(["type", "allOf"]);
        for (i, member) in m["allOf"].as_array().into_iter().flatten().enumerate() {
            let here = format!("{path}/allOf/{i}");
            for k in member.as_object().into_iter().flat_map(|o| o.keys()) {
                if CONSTRAINTS.contains(&k.as_str())
                    && !matches!(
                        k.as_str(),
                        "properties" | "required" | "enum" | "$ref" | "anyOf"
                    )
                {
                    out.push(format!("{here}: `{k}` is skipped (an `allOf` member is read for its properties, required and enum only)"));
                }
            }
        }
    } else if (untyped || ty_str == Some("array"))
        && (m.contains_key("items") || m.contains_key("prefixItems"))
    {
        read.push("type");
        let (key, items) = match m.get("items") {
            Some(items) => ("items", items),
            None => ("prefixItems", &m["prefixItems"]),
        };
        read.push(key);
        if let Value::Array(tuple) = items {
            for (i, item) in tuple.iter().enumerate() {
                visit(
                    root,
                    item,
                    &format!("{path}/{key}/{i}"),
                    out,
                    refs,
                    depth + 1,
                );
            }
        } else {
            visit(root, items, &child(key), out, refs, depth + 1);
            read.extend(["minItems", "maxItems"]);
            let min = m.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let max = m.get("maxItems").and_then(Value::as_u64);
            // `item ("," space item){min-1,max-1}`: the group repeated is at least one rule.
            repetition(
                min.saturating_sub(1),
                max.map(|n| n.saturating_sub(1)),
                &format!("{path}: minItems/maxItems"),
                out,
            );
        }
    } else if (untyped || ty_str == Some("string")) && m.contains_key("pattern") {
        read.extend(["type", "pattern"]);
        let p = m["pattern"].as_str().unwrap_or("");
        pattern(p, &child("pattern"), out);
    } else if (untyped || ty_str == Some("string"))
        && m.get("format").and_then(Value::as_str).is_some_and(|f| {
            matches!(
                f,
                "uuid"
                    | "uuid1"
                    | "uuid2"
                    | "uuid3"
                    | "uuid4"
                    | "uuid5"
                    | "date"
                    | "time"
                    | "date-time"
            )
        })
    {
        read.extend(["type", "format"]);
    } else if ty_str == Some("string")
        && (m.contains_key("minLength") || m.contains_key("maxLength"))
    {
        read.extend(["type", "minLength", "maxLength"]);
        let min = m.get("minLength").and_then(Value::as_u64).unwrap_or(0);
        let max = m.get("maxLength").and_then(Value::as_u64);
        repetition(min, max, &format!("{path}: minLength/maxLength"), out);
    } else if ty_str == Some("integer")
        && ["minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"]
            .iter()
            .any(|k| m.contains_key(*k))
    {
        read.push("type");
        // `minimum` before `exclusiveMinimum`, each read with `get<int64_t>()`.
        for pair in [
            ["minimum", "exclusiveMinimum"],
            ["maximum", "exclusiveMaximum"],
        ] {
            if let Some(k) = pair.iter().find(|k| m.contains_key(**k)) {
                if m[*k].as_i64().is_some() {
                    read.push(k);
                } else {
                    out.push(format!(
                        "{path}: `{k}: {}` is read as a 64-bit integer, and changes",
                        m[*k]
                    ));
                }
            }
        }
    } else if m.is_empty() {
        out.push(format!(
            "{path}: `{{}}` is read as any object, not any value"
        ));
    } else if untyped || ty_str.is_some_and(|t| PRIMITIVES.contains(&t)) {
        // The bare type (an untyped node with keys reads as any value).
        read.push("type");
    } else {
        out.push(format!(
            "{path}: Unrecognized schema: {}",
            Value::Object(m.clone())
        ));
    }
    for k in m.keys() {
        if CONSTRAINTS.contains(&k.as_str()) && !read.contains(&k.as_str()) {
            out.push(format!("{path}: `{k}`{SKIPPED}"));
        }
    }
}

/// `build_repetition(item, min, max)` then the parser's check: `{m,n}` is refused when `m` is
/// over the threshold or the repeated count (`n`, else `m`) reaches it; an `n` over it is
/// read as no maximum.
fn repetition(min: u64, max: Option<u64>, what: &str, out: &mut Vec<String>) {
    if max == Some(0) || (min == 0 && max == Some(1)) || (min <= 1 && max.is_none()) {
        return; // "", `?`, `*` or `+`
    }
    if min > THRESHOLD {
        out.push(format!(
            "{what}: number of repetitions exceeds sane defaults ({min})"
        ));
        return;
    }
    let max = max.filter(|n| *n <= THRESHOLD);
    let total = max.filter(|n| *n > 0).unwrap_or(min.max(1));
    if total >= THRESHOLD {
        out.push(format!("{what}: number of rules that are going to be repeated ... exceeds sane defaults ({total})"));
    }
}

/// `_visit_pattern`: `^…$` required; then each escape outside a class becomes a literal the
/// GBNF parser reads (`parse_char`), a class is copied as it is, `(?` other than `(?:` is
/// skipped with a warning, `{m,n}` is a repetition.
fn pattern(p: &str, path: &str, out: &mut Vec<String>) {
    if !(p.starts_with('^') && p.ends_with('$')) {
        out.push(format!(
            "{path}: Pattern must start with '^' and end with '$' ({p:?})"
        ));
        return;
    }
    let body: Vec<char> = p[1..p.len() - 1].chars().collect();
    // Escapes turned into plain characters before the literal reaches the parser.
    const UNESCAPED: &str = "^$.[](){}|*+?";
    let gbnf_escape = |c: char, rest: &[char]| -> bool {
        match c {
            'x' => rest.len() >= 2 && rest[..2].iter().all(char::is_ascii_hexdigit),
            'u' => rest.len() >= 4 && rest[..4].iter().all(char::is_ascii_hexdigit),
            'U' => rest.len() >= 8 && rest[..8].iter().all(char::is_ascii_hexdigit),
            't' | 'r' | 'n' | '\\' | '"' | '[' | ']' | '-' => true,
            _ => false,
        }
    };
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            '\\' if i + 1 < body.len() => {
                let c = body[i + 1];
                if !UNESCAPED.contains(c) && !gbnf_escape(c, &body[i + 2..]) {
                    out.push(format!(
                        "{path}: unknown escape at \\{c} (the grammar parser refuses it)"
                    ));
                }
                i += 2;
            }
            '[' => {
                i += 1;
                while i < body.len() && body[i] != ']' {
                    if body[i] == '\\' && i + 1 < body.len() {
                        if !gbnf_escape(body[i + 1], &body[i + 2..]) {
                            out.push(format!(
                                "{path}: unknown escape at \\{} in a class",
                                body[i + 1]
                            ));
                        }
                        i += 2;
                    } else {
                        i += 1;
                    }
                }
                i += 1;
            }
            '(' if body.get(i + 1) == Some(&'?') && body.get(i + 2) != Some(&':') => {
                out.push(format!(
                    "{path}: Unsupported pattern syntax (skipped with a warning)"
                ));
                i += 2;
            }
            '{' => {
                let close = body[i..].iter().position(|c| *c == '}').map(|n| i + n);
                let Some(close) = close else {
                    out.push(format!("{path}: Unbalanced curly brackets"));
                    return;
                };
                let inner: String = body[i + 1..close].iter().collect();
                let nums: Vec<&str> = inner.split(',').collect();
                let parse = |t: &str| t.parse::<u64>().ok();
                let (min, max) = match nums.as_slice() {
                    [n] => match parse(n) {
                        Some(n) => (n, Some(n)),
                        None => {
                            out.push(format!("{path}: Invalid number in curly brackets"));
                            return;
                        }
                    },
                    [a, b] => (parse(a).unwrap_or(0), parse(b)),
                    _ => {
                        out.push(format!("{path}: Wrong number of values in curly brackets"));
                        return;
                    }
                };
                repetition(min, max, path, out);
                i = close + 1;
            }
            '^' | '$' => {
                // Not special inside: a literal character, so the grammar is not the pattern.
                out.push(format!(
                    "{path}: an anchor inside the pattern becomes a literal character"
                ));
                i += 1;
            }
            _ => i += 1,
        }
    }
}

/// The types a `type` value admits (a `number` admits integers).
fn types_of(t: &Value) -> Vec<String> {
    let mut out: Vec<String> = match t {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a
            .iter()
            .filter_map(|x| x.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    if out.iter().any(|t| t == "number") {
        out.push("integer".into());
    }
    out
}

/// The types a subschema admits, from its `type` or else its alternatives' (`None`: any).
pub(crate) fn admitted(schema: &Value, depth: usize) -> Option<Vec<String>> {
    if depth == 0 {
        return None;
    }
    if let Some(t) = schema.get("type") {
        return Some(types_of(t));
    }
    let alts = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))?
        .as_array()?;
    let mut all = Vec::new();
    for a in alts {
        all.extend(admitted(a, depth - 1)?);
    }
    Some(all)
}

/// llguidance's problems with `schema`: the crate compiles it with its default options (lenient
/// off, as vLLM's `guidance` backend runs it); an error, or any warning, is a problem.
pub fn llguidance(schema: &Value, out: &mut Vec<String>) {
    let builder = llguidance::GrammarBuilder::new(None, llguidance::api::ParserLimits::default());
    match llguidance::JsonCompileOptions::default().json_to_llg(builder, schema.clone()) {
        Ok(result) => {
            for (warning, _) in result.builder.get_warnings() {
                out.push(format!("llguidance warns: {warning}"));
            }
        }
        Err(e) => out.push(format!("llguidance refuses it: {e}")),
    }
}
