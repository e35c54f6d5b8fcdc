//! What each provider accepts as a whole request's tools (issue 64), written from the providers'
//! documentation of the request and the errors they return (the project's `providers.md` §8),
//! never from the adapters' own tables: how many tools, which names, how long a description.
//! `declarations` is what `toolschema convert --to T` prints for the target.

use serde_json::Value;
use toolschema::Target;

/// One tool as the request carries it: its name and description.
struct Declared<'a> {
    name: &'a str,
    description: Option<&'a str>,
}

/// The tools of a converted request, per wire form.
fn declared(target: Target, declarations: &Value) -> Vec<Declared<'_>> {
    let list = match target {
        Target::Gemini | Target::GeminiCompat | Target::GeminiOpenApi | Target::CcaClaude => {
            declarations.get("functionDeclarations")
        }
        Target::Mcp => declarations.get("tools"),
        _ => Some(declarations),
    };
    let list = list
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    list.iter()
        .map(|t| {
            let t = t.get("function").or_else(|| t.get("toolSpec")).unwrap_or(t);
            Declared {
                name: t.get("name").and_then(Value::as_str).unwrap_or_default(),
                description: t.get("description").and_then(Value::as_str),
            }
        })
        .collect()
}

/// `^[a-zA-Z0-9_-]{1,64}$`: OpenAI's function `name` ("Must be a-z, A-Z, 0-9, or contain
/// underscores and dashes, with a maximum length of 64"), Anthropic's `tools[].name` ("Must match
/// the regex ^[a-zA-Z0-9_-]{1,64}$"), Bedrock's `ToolSpecification.name` (`[a-zA-Z0-9_-]+`,
/// length 1 to 64), Mistral's (mistral-common), DeepSeek's (64, from its error).
fn plain_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Gemini's `FunctionDeclaration.name`: "Must start with a letter or an underscore. Must be
/// a-z, A-Z, 0-9, or contain underscores, dots, colons and dashes, with a maximum length of 64."
fn google_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'))
}

/// Problems the provider would refuse the request for. Empty when it accepts it.
pub fn validate_request(target: Target, declarations: &Value) -> Vec<String> {
    let tools = declared(target, declarations);
    let mut out = Vec::new();
    // Tools per request.
    let max_tools = match target {
        // OpenAI API reference, Chat Completions `tools`: "A max of 128 functions are supported"
        // ("Invalid 'tools': array too long. Expected an array with maximum length 128").
        Target::OpenAi | Target::OpenAiStrict => Some(128),
        // "At most 512 function declarations can be specified." (google-gemini/gemini-cli #19083)
        Target::Gemini | Target::GeminiCompat | Target::GeminiOpenApi => Some(512),
        // "Maximum tools limit reached. 219 tools have been provided but the maximum is 200."
        // (anomalyco/opencode #28911)
        Target::Xai => Some(200),
        _ => None,
    };
    if let Some(max) = max_tools {
        if tools.len() > max {
            out.push(format!("{} tools; at most {max} per request", tools.len()));
        }
    }
    // Names.
    for t in &tools {
        let ok = match target {
            Target::Mcp => !t.name.is_empty(),
            Target::Gemini | Target::GeminiCompat | Target::GeminiOpenApi | Target::CcaClaude => {
                google_name(t.name)
            }
            _ => plain_name(t.name),
        };
        if !ok {
            out.push(format!("the name `{}` is refused", t.name));
        }
    }
    // Descriptions. OpenAI: 1,024 characters (`string_above_max_length`, getsentry/sentry-mcp
    // #106). Bedrock: "Minimum length of 1" (`ToolSpecification.description`).
    for t in &tools {
        let chars = t.description.map_or(0, |d| d.chars().count());
        if matches!(target, Target::OpenAi | Target::OpenAiStrict) && chars > 1024 {
            out.push(format!("`{}`: a description of {chars} characters", t.name));
        }
        if target == Target::Bedrock && t.description == Some("") {
            out.push(format!("`{}`: an empty description", t.name));
        }
    }
    out
}
