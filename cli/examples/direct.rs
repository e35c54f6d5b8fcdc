//! An agent that calls OpenAI, Gemini and Anthropic over their HTTP APIs: one toolset, the
//! `tools` part of each request, and the model's tool calls back as typed values or as the text
//! to send back. `cargo run -p toolschema-cli --example direct`
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolschema::toolset::Toolset;
use toolschema::{Target, ToolParams};

/// Create a calendar event.
#[derive(Debug, Deserialize, JsonSchema, ToolParams)]
pub struct CreateEvent {
    /// What the event is called.
    title: String,
    /// When it starts, RFC 3339.
    #[schemars(extend("format" = "date-time"))]
    start: String,
    /// How long it lasts, in minutes.
    #[schemars(range(min = 5, max = 480))]
    minutes: Option<u32>,
}

/// Find events whose title contains a text.
#[derive(Debug, Deserialize, JsonSchema, ToolParams)]
pub struct FindEvents {
    /// The text to look for.
    text: String,
}

/// What the agent does for each tool: the toolset maps every call to one of these.
#[derive(Debug)]
pub enum Action {
    Create(CreateEvent),
    Find(FindEvents),
}

/// The agent's tools, each with its name, description and the action a call becomes.
pub fn tools() -> Toolset<Action> {
    Toolset::new()
        .tool("create_event", "Create a calendar event.", Action::Create)
        .tool("find_events", "", Action::Find) // "": the struct's doc comment
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tools = tools();
    tools.check_contract().into_result()?;

    // The `tools` part of each request body, to merge into the rest of it.
    let openai = tools.request(Target::OpenAiStrict);
    let gemini = tools.request(Target::Gemini);
    let anthropic = tools.request(Target::Anthropic);
    for request in [&openai, &gemini, &anthropic] {
        println!("{}", serde_json::to_string_pretty(&request.body())?);
    }

    // Three tool calls as OpenAI returns them: `arguments` is JSON text.
    let calls = [
        r#"{"title": "Standup", "start": "2026-12-08T09:00:00Z", "minutes": 15}"#,
        // Strict mode makes optional fields required and nullable: null means "not given".
        r#"{"title": "Review", "start": "2026-12-08T14:00:00Z", "minutes": null}"#,
        // Out of bounds: strict mode does not enforce `maximum`, the toolset does.
        r#"{"title": "Offsite", "start": "2026-12-09T08:00:00Z", "minutes": 600}"#,
    ];
    for arguments in calls {
        match openai.call("create_event", arguments) {
            Ok(Action::Create(e)) => {
                println!("create {:?} at {}, {:?} min", e.title, e.start, e.minutes)
            }
            Ok(Action::Find(query)) => println!("find {:?}", query.text),
            // The text to send back as the tool result, for the model to fix its call.
            Err(refusal) => println!("tool result: {refusal}"),
        }
    }
    // Gemini and Anthropic send `args` / `input` as JSON values.
    if let Action::Find(query) = anthropic.call("find_events", json!({"text": "Standup"}))? {
        println!("find {:?}", query.text);
    }
    Ok(())
}
