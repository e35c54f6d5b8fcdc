//! What xgrammar refuses or skips, written from its source and not from the adapter:
//! `cpp/json_schema_converter.cc` (`SchemaParser::Parse` and the `Parse*` functions it calls,
//! `GenerateString`, `GenerateArray`, `GenerateAllOf`, `JSONFormatToRegexPattern`) and
//! `cpp/regex_converter.cc` (`RegexConverter::Convert` and its `Handle*`), commit
//! 53da3ff8ce3fb1d1ebe7f8a36ec2f0a6c4f9ec4b, in strict mode (the default of
//! `Grammar.from_json_schema`, and how vLLM and SGLang call it); and vLLM's
//! `has_xgrammar_unsupported_json_features` (`vllm/v1/structured_output/backend_xgrammar.py`),
//! which refuses a schema before xgrammar sees it. Each problem names the error, or says that a
//! keyword is skipped (a constraint the schema states that the grammar would not hold).

use serde_json::{Map, Value};

use crate::grammars::{CONSTRAINTS, admitted};

/// How a problem that is a skipped keyword ends.
const SKIPPED: &str = " is skipped by xgrammar here";

/// `JSONFormatToRegexPattern`'s formats (vLLM's `STRING_SUPPORTED_FORMATS` is the same list).
const FORMATS: &[&str] = &[
    "email",
    "date",
    "time",
    "date-time",
    "duration",
    "ipv4",
    "ipv6",
    "hostname",
    "uuid",
    "uri",
    "uri-reference",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
];

/// Problems xgrammar (and vLLM in front of it) has with `schema` as a tool's parameters.
pub fn xgrammar(schema: &Value, out: &mut Vec<String>) {
    vllm_refusals(schema, "", out, 0);
    visit(schema, schema, "", out, &mut Vec::new(), 0);
}

/// `SchemaParser::Parse` at one node.
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
    let m = match schema {
        Value::Bool(true) => return,
        Value::Bool(false) => {
            out.push(format!("{path}: Schema 'false' cannot accept any value"));
            return;
        }
        Value::Object(m) => m,
        other => {
            out.push(format!(
                "{path}: Schema should be an object or bool, but got {other}"
            ));
            return;
        }
    };
    let mut read: Vec<&str> = Vec::new();
    let sub = |key: &str| format!("{path}/{key}");
    if let Some(r) = m.get("$ref") {
        read.push("$ref");
        match r.as_str() {
            None => out.push(format!("{path}: $ref must be a string")),
            Some("#") => {}
            Some(r) if r.starts_with("#/") => {
                // `ResolveRef`: the path split on `/`, each part looked up as it is (no `~1` or
                // percent unescaping).
                let mut node = root;
                let mut found = true;
                for part in r[2..].split('/').filter(|p| !p.is_empty()) {
                    match node.get(part) {
                        Some(n) => node = n,
                        None => {
                            out.push(format!("{path}: Cannot find field {part} in {r}"));
                            found = false;
                            break;
                        }
                    }
                }
                if found && !refs.iter().any(|x| x == r) {
                    refs.push(r.to_owned());
                    visit(root, node, &sub("$ref"), out, refs, depth + 1);
                    refs.pop();
                }
            }
            Some(r) => out.push(format!(
                "{path}: `$ref: {r}` is read as any value (URI should either be '#' or start with '#/')"
            )),
        }
    } else if m.contains_key("const") {
        read.extend(["const", "type"]);
    } else if let Some(e) = m.get("enum") {
        read.extend(["enum", "type"]);
        if e.as_array().is_none_or(|a| a.is_empty()) {
            out.push(format!("{path}: enum must be a non-empty array"));
        }
    } else if let Some(key) = ["anyOf", "oneOf"].into_iter().find(|k| m.contains_key(*k)) {
        read.push(key);
        let Some(alts) = m[key].as_array() else {
            out.push(format!("{path}: {key} must be an array"));
            return;
        };
        for (i, alt) in alts.iter().enumerate() {
            visit(
                root,
                alt,
                &format!("{path}/{key}/{i}"),
                out,
                refs,
                depth + 1,
            );
        }
        if key == "oneOf" {
            // `TryProvePairwiseDisjointOneOf` or, with a warning only, anyOf semantics.
            out.push(format!(
                "{path}: `oneOf` is read as `anyOf` unless xgrammar proves its branches disjoint"
            ));
        }
        // A type each alternative keeps within is held by them.
        if let Some(t) = m.get("type") {
            let outer = types_of(t);
            let inside = |a: &Value| {
                admitted(a, 8).is_some_and(|types| types.iter().all(|x| outer.contains(x)))
            };
            if alts.iter().all(inside) {
                read.push("type");
            }
        }
    } else if let Some(members) = m.get("allOf") {
        read.push("allOf");
        let Some(members) = members.as_array() else {
            out.push(format!("{path}: allOf must be an array"));
            return;
        };
        for (i, member) in members.iter().enumerate() {
            visit(
                root,
                member,
                &format!("{path}/allOf/{i}"),
                out,
                refs,
                depth + 1,
            );
        }
        if members.len() != 1 {
            // `GenerateAllOf`: "Support for allOf with multiple options is still ongoing".
            out.push(format!(
                "{path}: an `allOf` of {} members is read as any value",
                members.len()
            ));
        }
    } else if let Some(Value::Array(types)) = m.get("type") {
        // `ParseTypeArray`: one copy of the node per type; a keyword is skipped only where
        // every copy skips it.
        let mut per_copy: Vec<Vec<String>> = Vec::new();
        for t in types {
            let mut copy = m.clone();
            copy.insert("type".into(), t.clone());
            let mut inner = Vec::new();
            typed(root, &copy, path, &mut inner, refs, depth);
            per_copy.push(inner);
        }
        if types.is_empty() {
            let mut copy = m.clone();
            copy.remove("type");
            visit(root, &Value::Object(copy), path, out, refs, depth + 1);
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
    } else {
        typed(root, m, path, out, refs, depth);
        return;
    }
    skipped(m, path, &read, out);
}

/// Every constraint of the node that the reading taken does not read.
fn skipped(m: &Map<String, Value>, path: &str, read: &[&str], out: &mut Vec<String>) {
    for k in m.keys() {
        if CONSTRAINTS.contains(&k.as_str()) && !read.contains(&k.as_str()) {
            out.push(format!("{path}: `{k}`{SKIPPED}"));
        }
    }
}

/// The node read by its `type` (a string), or by the keywords that imply one, or as any value.
fn typed(
    root: &Value,
    m: &Map<String, Value>,
    path: &str,
    out: &mut Vec<String>,
    refs: &mut Vec<String>,
    depth: usize,
) {
    let has = |k: &str| m.contains_key(k);
    let ty = match m.get("type") {
        Some(Value::String(t)) => Some(t.as_str()),
        Some(_) => {
            out.push(format!("{path}: Type should be a string"));
            return;
        }
        None if has("properties")
            || has("additionalProperties")
            || has("unevaluatedProperties") =>
        {
            Some("object")
        }
        None if has("items") || has("prefixItems") || has("unevaluatedItems") => Some("array"),
        None => None,
    };
    let mut read: Vec<&str> = vec!["type"];
    let int = |k: &str| m.get(k).and_then(Value::as_i64);
    let number = |k: &str| m.get(k).and_then(Value::as_f64);
    match ty {
        None => {}
        Some("integer") => {
            read.extend(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]);
            let mut bound = |k: &str| -> Option<f64> {
                let v = m.get(k)?;
                let Some(f) = v.as_f64() else {
                    out.push(format!("{path}: `{k}`: Value must be a number"));
                    return None;
                };
                if v.as_i64().is_none() && (f.fract() != 0.0 || f.abs() >= 9.2e18) {
                    out.push(format!(
                        "{path}: `{k}: {v}`: Integer constraint must be a whole number within 64 bits"
                    ));
                    return None;
                }
                Some(f)
            };
            let lo = bound("minimum")
                .into_iter()
                .chain(bound("exclusiveMinimum").map(|v| v + 1.0));
            let lo = lo.fold(f64::NEG_INFINITY, f64::max);
            let hi = bound("maximum")
                .into_iter()
                .chain(bound("exclusiveMaximum").map(|v| v - 1.0));
            let hi = hi.fold(f64::INFINITY, f64::min);
            if lo > hi {
                out.push(format!(
                    "{path}: Invalid range: minimum greater than maximum"
                ));
            }
            // `multipleOf` is refused by vLLM (see `vllm_refusals`) and mostly ignored here.
        }
        Some("number") => {
            read.extend(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]);
            for k in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
                if m.get(k).is_some_and(|v| !v.is_number()) {
                    out.push(format!("{path}: `{k}`: Value must be a number"));
                }
            }
            let empty = |lo: Option<f64>, hi: Option<f64>, strict: bool| match (lo, hi) {
                (Some(lo), Some(hi)) => {
                    if strict {
                        lo >= hi
                    } else {
                        lo > hi
                    }
                }
                _ => false,
            };
            if empty(number("minimum"), number("maximum"), false)
                || empty(number("minimum"), number("exclusiveMaximum"), true)
                || empty(number("exclusiveMinimum"), number("maximum"), true)
                || empty(number("exclusiveMinimum"), number("exclusiveMaximum"), true)
            {
                out.push(format!("{path}: Invalid range: empty range"));
            }
        }
        Some("string") => {
            for k in ["format", "pattern"] {
                if m.get(k).is_some_and(|v| !v.is_string()) {
                    out.push(format!(
                        "{path}: `{k}` is not a string (picojson's get<std::string> fails)"
                    ));
                }
            }
            let format = m.get("format").and_then(Value::as_str);
            if format.is_some_and(|f| FORMATS.contains(&f)) {
                // `GenerateString`: a known format's regular expression, nothing else.
                read.push("format");
            } else if let Some(p) = m.get("pattern").and_then(Value::as_str) {
                read.push("pattern");
                pattern(p, &format!("{path}/pattern"), out);
            } else {
                read.extend(["minLength", "maxLength"]);
                for k in ["minLength", "maxLength"] {
                    if m.get(k).is_some_and(|v| v.as_i64().is_none()) {
                        out.push(format!("{path}: {k} must be an integer"));
                    }
                }
                if let (Some(lo), Some(hi)) = (int("minLength"), int("maxLength")) {
                    if lo > hi {
                        out.push(format!(
                            "{path}: minLength {lo} is greater than maxLength {hi}"
                        ));
                    }
                }
            }
        }
        Some("boolean" | "null") => {}
        Some("array") => {
            read.extend([
                "prefixItems",
                "items",
                "minItems",
                "maxItems",
                "minContains",
            ]);
            let mut prefix = 0;
            if let Some(p) = m.get("prefixItems") {
                match p.as_array() {
                    None => out.push(format!("{path}: prefixItems must be an array")),
                    Some(list) => {
                        prefix = list.len() as i64;
                        for (i, item) in list.iter().enumerate() {
                            if item == &Value::Bool(false) {
                                out.push(format!(
                                    "{path}/prefixItems/{i}: prefixItems contains false"
                                ));
                            } else if !item.is_object() {
                                out.push(format!("{path}/prefixItems/{i}: prefixItems must be an array of objects or booleans"));
                            } else {
                                visit(
                                    root,
                                    item,
                                    &format!("{path}/prefixItems/{i}"),
                                    out,
                                    refs,
                                    depth + 1,
                                );
                            }
                        }
                    }
                }
            }
            let closed = match m.get("items") {
                Some(Value::Bool(b)) => !b,
                Some(items @ Value::Object(_)) => {
                    visit(root, items, &format!("{path}/items"), out, refs, depth + 1);
                    false
                }
                Some(_) => {
                    out.push(format!("{path}: items must be a boolean or an object"));
                    false
                }
                None if m.contains_key("unevaluatedItems") => {
                    read.push("unevaluatedItems");
                    match &m["unevaluatedItems"] {
                        Value::Bool(b) => !b,
                        other => {
                            visit(
                                root,
                                other,
                                &format!("{path}/unevaluatedItems"),
                                out,
                                refs,
                                depth + 1,
                            );
                            false
                        }
                    }
                }
                None => {
                    // Strict mode: "not allow ... items that is not specified in the schema".
                    out.push(format!(
                        "{path}: no `items`: strict mode takes no item past the {prefix} of `prefixItems`, where the schema takes any"
                    ));
                    true
                }
            };
            let min = int("minItems")
                .unwrap_or(0)
                .max(int("minContains").unwrap_or(0));
            let max = int("maxItems");
            if m.get("minItems").is_some_and(|v| v.as_i64().is_none()) {
                out.push(format!("{path}: minItems must be an integer"));
            }
            if m.get("maxItems").is_some_and(|v| v.as_u64().is_none()) {
                out.push(format!("{path}: maxItems must be a non-negative integer"));
            }
            if max.is_some_and(|hi| min > hi || prefix > hi) || (closed && prefix < min) {
                out.push(format!(
                    "{path}: minItems, maxItems and prefixItems leave no array"
                ));
            }
        }
        Some("object") => {
            read.extend([
                "properties",
                "required",
                "patternProperties",
                "propertyNames",
                "additionalProperties",
                "minProperties",
                "maxProperties",
            ]);
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
            if m.get("properties").is_some_and(|p| !p.is_object()) {
                out.push(format!("{path}: properties must be an object"));
            }
            let required = m.get("required").and_then(Value::as_array);
            if required.is_some_and(|r| r.iter().any(|x| !x.is_string())) {
                out.push(format!("{path}: a `required` name is not a string"));
            }
            for (name, p) in m
                .get("patternProperties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                pattern(name, &format!("{path}/patternProperties"), out);
                visit(
                    root,
                    p,
                    &format!("{path}/patternProperties/{name}"),
                    out,
                    refs,
                    depth + 1,
                );
            }
            if let Some(names) = m.get("propertyNames") {
                if !names.is_object() {
                    out.push(format!("{path}: propertyNames must be an object"));
                } else {
                    visit(
                        root,
                        names,
                        &format!("{path}/propertyNames"),
                        out,
                        refs,
                        depth + 1,
                    );
                }
            }
            match m.get("additionalProperties") {
                Some(a @ Value::Object(_)) => {
                    visit(root, a, &format!("{path}/additionalProperties"), out, refs, depth + 1)
                }
                Some(_) => {}
                None => match m.get("unevaluatedProperties") {
                    Some(u) => {
                        read.push("unevaluatedProperties");
                        if u.is_object() {
                            visit(root, u, &format!("{path}/unevaluatedProperties"), out, refs, depth + 1);
                        }
                    }
                    None => out.push(format!(
                        "{path}: no `additionalProperties`: strict mode closes an object the schema leaves open"
                    )),
                },
            }
            let min = int("minProperties").unwrap_or(0);
            let max = int("maxProperties");
            let count = required.map_or(0, |r| {
                let mut names: Vec<&Value> = r.iter().collect();
                names.sort_by_key(|v| v.to_string());
                names.dedup();
                names.len() as i64
            });
            if min < 0 || max.is_some_and(|hi| hi < 0 || min > hi || count > hi) {
                out.push(format!(
                    "{path}: minProperties, maxProperties and required leave no object"
                ));
            }
        }
        Some(other) => out.push(format!("{path}: Unsupported type \"{other}\"")),
    }
    skipped(m, path, &read, out);
}

/// `RegexConverter::Convert` over a `pattern`: what it refuses, and what it reads otherwise
/// than ECMA-262 (anchors ignored: the whole string is matched; `\s` narrower).
fn pattern(p: &str, path: &str, out: &mut Vec<String>) {
    let chars: Vec<char> = p.chars().collect();
    let mut refuse = |why: &str| out.push(format!("{path}: `{p}`: {why}"));
    let (mut i, mut depth, mut in_class) = (0usize, 0i64, false);
    let mut top_alternation = false;
    let mut quantified = false;
    while i < chars.len() {
        let c = chars[i];
        if in_class {
            match c {
                '\\' if matches!(chars.get(i + 1), Some('s' | 'S')) => {
                    return refuse(
                        "`\\s` is read as [\\f\\n\\r\\t\\v \\u00a0], narrower than ECMA-262's",
                    );
                }
                '\\' => i += 2,
                ']' => {
                    in_class = false;
                    i += 1;
                }
                _ => i += 1,
            }
            continue;
        }
        let was_quantified = quantified;
        quantified = false;
        match c {
            '\\' => match chars.get(i + 1) {
                None => return refuse("Escape sequence is not finished."),
                Some('1'..='9' | 'k') => return refuse("Backreference is not supported yet."),
                Some('p' | 'P') => {
                    return refuse("Unicode character class escape sequence is not supported yet.");
                }
                Some('b' | 'B') => return refuse("Word boundary is not supported yet."),
                Some('s' | 'S') => {
                    return refuse(
                        "`\\s` is read as [\\f\\n\\r\\t\\v \\u00a0], narrower than ECMA-262's",
                    );
                }
                _ => i += 2,
            },
            '[' => {
                if chars.get(i + 1) == Some(&']') {
                    return refuse("Empty character class is not allowed in regex.");
                }
                in_class = true;
                i += 1;
                if chars.get(i) == Some(&'^') {
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    i += 1;
                }
            }
            '(' => {
                depth += 1;
                i += 1;
                if chars.get(i) == Some(&'?') {
                    match (chars.get(i + 1), chars.get(i + 2)) {
                        (Some(':'), _) => i += 2,
                        (Some('=' | '!'), _) => return refuse("Lookahead is not supported yet."),
                        (Some('<'), Some('=' | '!')) => {
                            return refuse("Lookbehind is not supported yet.");
                        }
                        (Some('<'), _) => {
                            let mut j = i + 2;
                            while chars.get(j).is_some_and(|c| c.is_ascii_alphabetic()) {
                                j += 1;
                            }
                            if chars.get(j) != Some(&'>') {
                                return refuse("Invalid named capturing group.");
                            }
                            i = j + 1;
                        }
                        _ => return refuse("Group modifier flag is not supported yet."),
                    }
                }
            }
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return refuse("Unmatched ')'");
                }
                i += 1;
            }
            '|' => {
                top_alternation |= depth == 0;
                i += 1;
            }
            '*' | '+' | '?' | '{' => {
                if was_quantified {
                    return refuse("Two consecutive repetition modifiers are not allowed.");
                }
                if c == '{' {
                    let close = chars[i..].iter().position(|&x| x == '}').map(|k| i + k);
                    let inner: String =
                        close.map_or(String::new(), |k| chars[i + 1..k].iter().collect());
                    let mut parts = inner.splitn(2, ',');
                    let first = parts.next().unwrap_or("");
                    let digits = |t: &str| t.chars().all(|d| d.is_ascii_digit());
                    if close.is_none()
                        || first.is_empty()
                        || !digits(first)
                        || parts.next().is_some_and(|t| !digits(t))
                    {
                        return refuse("Invalid repetition count.");
                    }
                    i = close.unwrap_or(i) + 1;
                } else {
                    i += 1;
                }
                if chars.get(i) == Some(&'?') {
                    i += 1;
                }
                quantified = true;
            }
            // `Convert`: `.` is `[\u0000-\U0010FFFF]`, line breaks included.
            '.' => return refuse("`.` takes a line break here, which ECMA-262's does not"),
            '^' if i != 0 => return refuse("'^' in the middle is ignored"),
            '$' if i + 1 != chars.len() => return refuse("'$' in the middle is ignored"),
            _ => i += 1,
        }
    }
    if in_class {
        return refuse("Unclosed '['");
    }
    if depth != 0 {
        return refuse("The parenthesis is not closed.");
    }
    let start = p.starts_with('^');
    let end = p.ends_with('$') && !p.ends_with("\\$");
    if !(start && end) {
        refuse(
            "not anchored at both ends: xgrammar matches the whole string, where ECMA-262 finds the pattern anywhere",
        );
    } else if top_alternation {
        refuse(
            "an alternation at the top: its `^` and `$` belong to its first and last branches, and xgrammar ignores them",
        );
    }
}

/// vLLM's `has_xgrammar_unsupported_json_features`: the schema is refused (or, under the `auto`
/// backend, sent to another engine) over any of these, wherever they stand.
fn vllm_refusals(schema: &Value, path: &str, out: &mut Vec<String>, depth: usize) {
    if depth > 200 {
        return;
    }
    let Some(m) = schema.as_object() else {
        if let Value::Array(list) = schema {
            for (i, v) in list.iter().enumerate() {
                vllm_refusals(v, &format!("{path}/{i}"), out, depth + 1);
            }
        }
        return;
    };
    let types = m.get("type").map(types_of).unwrap_or_default();
    let is = |t: &str| types.iter().any(|x| x == t);
    let mut refuse = |what: &str| out.push(format!("{path}: vLLM refuses the schema over {what}"));
    if (is("integer") || is("number")) && m.contains_key("multipleOf") {
        refuse("`multipleOf`");
    }
    for k in ["uniqueItems", "contains", "minContains", "maxContains"] {
        if is("array") && m.contains_key(k) {
            refuse(&format!("`{k}`"));
        }
    }
    let format = m.get("format").and_then(Value::as_str);
    if is("string") && format.is_some_and(|f| !FORMATS.contains(&f)) {
        refuse("an unknown `format`");
    }
    let lengths = |o: &Map<String, Value>| {
        (o.contains_key("pattern") || o.contains_key("format"))
            && (o.contains_key("minLength") || o.contains_key("maxLength"))
    };
    if is("string") && lengths(m) {
        refuse("lengths beside a pattern or format");
    }
    if is("object") {
        if let Some(names) = m.get("propertyNames").and_then(Value::as_object) {
            if lengths(names)
                || m.contains_key("properties")
                || m.contains_key("patternProperties")
                || m.get("additionalProperties").is_some_and(Value::is_object)
                || m.get("unevaluatedProperties")
                    .is_some_and(|u| u != &Value::Bool(true))
            {
                refuse("`propertyNames` beside other object keywords");
            }
        }
        if let Some(pp) = m.get("patternProperties").and_then(Value::as_object) {
            if m.contains_key("properties") || pp.len() > 1 {
                refuse("`patternProperties` beside `properties`, or several");
            }
        }
    }
    for (k, v) in m {
        if v.is_object() || v.is_array() {
            vllm_refusals(v, &format!("{path}/{k}"), out, depth + 1);
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
