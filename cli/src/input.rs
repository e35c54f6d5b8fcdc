//! Reading an input: a path or standard input, parsed with a clear error naming the source and
//! the position.

use std::io::Read;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

/// JSON nesting beyond this is refused with an error rather than risking the stack.
pub const MAX_DEPTH: usize = 20_000;

/// A failure to read or parse, already worded for a person.
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
    let name = name(path);
    let mut text = String::new();
    let read = match path {
        Some(p) if p != Path::new("-") => {
            std::fs::File::open(p).and_then(|mut f| f.read_to_string(&mut text))
        }
        _ => std::io::stdin().read_to_string(&mut text),
    };
    read.map_err(|e| InputError(format!("cannot read {name}: {e}")))?;
    parse(&name, &text)
}

/// Parses JSON text, refusing nesting deeper than [`MAX_DEPTH`] with its position.
pub fn parse(name: &str, text: &str) -> Result<Value, InputError> {
    if let Some((line, column)) = too_deep(text) {
        return Err(InputError(format!(
            "cannot parse {name}: line {line}, column {column}: nesting deeper than {MAX_DEPTH} levels"
        )));
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let value = Value::deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    value.map_err(|e| {
        InputError(format!(
            "cannot parse {name}: line {}, column {}: {}",
            e.line(),
            e.column(),
            strip_position(&e.to_string())
        ))
    })
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
