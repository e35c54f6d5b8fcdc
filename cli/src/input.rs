//! Reading an input: a path or standard input, parsed with a clear error naming the source and
//! the position.

use std::io::Read;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

/// JSON nesting beyond this is refused with an error rather than risking the stack.
pub const MAX_DEPTH: usize = 20_000;

/// A failure to read or parse, already worded for a person.
#[derive(Debug)]
pub struct InputError(pub String);

/// The display name of an input: its path, or `<stdin>`.
pub fn name(path: Option<&Path>) -> String {
    match path {
        Some(p) if p != Path::new("-") => p.display().to_string(),
        _ => "<stdin>".to_owned(),
    }
}

/// Reads and parses `path` (`None` or `-`: standard input).
pub fn read_json(path: Option<&Path>) -> Result<Value, InputError> {
    parse(&name(path), &read_text(path)?)
}

/// Reads `path` (`None` or `-`: standard input) as text.
pub fn read_text(path: Option<&Path>) -> Result<String, InputError> {
    let name = name(path);
    let mut text = String::new();
    let read = match path {
        Some(p) if p != Path::new("-") => {
            std::fs::File::open(p).and_then(|mut f| f.read_to_string(&mut text))
        }
        _ => std::io::stdin().read_to_string(&mut text),
    };
    read.map_err(|e| InputError(format!("cannot read {name}: {e}")))?;
    Ok(text)
}

/// Refuses JSON text nesting deeper than [`MAX_DEPTH`], with the position.
pub fn check_depth(name: &str, text: &str) -> Result<(), InputError> {
    match too_deep(text) {
        Some((line, column)) => Err(InputError(format!(
            "cannot parse {name}: line {line}, column {column}: nesting deeper than {MAX_DEPTH} levels"
        ))),
        None => Ok(()),
    }
}

/// Parses JSON text, refusing nesting deeper than [`MAX_DEPTH`] with its position.
pub fn parse(name: &str, text: &str) -> Result<Value, InputError> {
    check_depth(name, text)?;
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let value = Value::deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    value.or_else(|e| {
        // One JSON value per line (a stdio MCP session, as a server writes it): the
        // `tools/list` responses among them.
        if e.classify() == serde_json::error::Category::Syntax && e.line() > 1
            || e.to_string().starts_with("trailing characters")
        {
            if let Some(found) = json_lines(name, text)? {
                return Ok(found);
            }
        }
        Err(InputError(format!(
            "cannot parse {name}: line {}, column {}: {}",
            e.line(),
            e.column(),
            strip_position(&e.to_string())
        )))
    })
}

/// JSON Lines: every line one JSON value. The `tools/list` results among them (JSON-RPC
/// responses whose `result` has `tools`), their tools in the order of the response ids (pages of
/// one listing follow each other), as one `{"tools": [...]}`. `None` when the text is not JSON
/// Lines at all.
fn json_lines(name: &str, text: &str) -> Result<Option<Value>, InputError> {
    // Each listing page with its response id: responses may come out of order.
    let mut pages: Vec<(Option<i64>, Vec<Value>)> = Vec::new();
    let mut messages = 0;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let mut de = serde_json::Deserializer::from_str(line);
        de.disable_recursion_limit();
        let Ok(message) = Value::deserialize(&mut de).and_then(|v| de.end().map(|()| v)) else {
            if messages == 0 {
                return Ok(None);
            }
            return Err(InputError(format!(
                "cannot parse {name}: line {} is not JSON (read as JSON Lines: one JSON-RPC message per line)",
                i + 1
            )));
        };
        messages += 1;
        if let Some(Value::Array(page)) = message.get("result").and_then(|r| r.get("tools")) {
            pages.push((message.get("id").and_then(Value::as_i64), page.clone()));
        }
    }
    if pages.iter().all(|(id, _)| id.is_some()) {
        pages.sort_by_key(|(id, _)| *id);
    }
    if messages < 2 {
        return Ok(None);
    }
    if pages.is_empty() {
        return Err(InputError(format!(
            "{name}: {messages} JSON-RPC messages, none of them a `tools/list` response (`result.tools`)"
        )));
    }
    let tools: Vec<Value> = pages.into_iter().flat_map(|(_, page)| page).collect();
    Ok(Some(serde_json::json!({ "tools": tools })))
}

fn strip_position(message: &str) -> &str {
    message
        .rsplit_once(" at line ")
        .map_or(message, |(head, _)| head)
}

/// The position where nesting first exceeds [`MAX_DEPTH`], scanning outside strings.
fn too_deep(text: &str) -> Option<(usize, usize)> {
    let (mut depth, mut line, mut column) = (0usize, 1usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        column += 1;
        if c == '\n' {
            line += 1;
            column = 0;
        }
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some((line, column));
                }
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}
