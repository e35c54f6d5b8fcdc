//! Lenient arguments (issue 63 item 3): servers that read `"400"` as 400, a JSON string as a list,
//! or one string as a list of one, with their own `deserialize_with` (spacebot's
//! `timeout_seconds`, goose's `follow_depth`, zed's `edits`, rust-mcp-server's `features`), keep
//! accepting those calls behind toolschema, with every schema constraint checked on the coerced
//! value; a type without such a deserializer is held to its schema as before. Through a real rmcp
//! server (in process, an rmcp client over a duplex) and through `from_args`.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ContentBlock, ServerCapabilities, ServerConfig,
};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};
use toolschema::rmcp::Parameters;
use toolschema::{Target, ToolParams};

/// A number, or a string holding one (models send `"400"`).
fn number_or_string<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        N(u64),
        S(String),
    }
    match Either::deserialize(d)? {
        Either::N(n) => Ok(n),
        Either::S(s) => s.trim().parse().map_err(serde::de::Error::custom),
    }
}

/// A list, or a string of JSON text holding one.
fn list_or_json<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Edit>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        List(Vec<Edit>),
        Text(String),
    }
    match Either::deserialize(d)? {
        Either::List(l) => Ok(l),
        Either::Text(t) => serde_json::from_str(&t).map_err(serde::de::Error::custom),
    }
}

/// A list of strings, or one string.
fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Many(Vec<String>),
        One(String),
    }
    Ok(match Either::deserialize(d)? {
        Either::Many(v) => v,
        Either::One(s) => vec![s],
    })
}

/// spacebot's `timeout_seconds`.
#[derive(Debug, Deserialize, JsonSchema, ToolParams)]
pub struct Wait {
    /// Seconds to wait.
    #[serde(deserialize_with = "number_or_string")]
    #[schemars(range(min = 1, max = 600))]
    pub timeout_seconds: u64,
}

/// goose's `follow_depth`.
#[derive(Debug, Deserialize, JsonSchema, ToolParams)]
pub struct Crawl {
    /// The page.
    pub url: String,
    /// How many links deep to follow.
    #[serde(deserialize_with = "number_or_string")]
    pub follow_depth: u64,
}

/// One edit of zed's `edits`.
#[derive(Debug, Deserialize, JsonSchema, serde::Serialize, toolschema::ProviderSafe)]
pub struct Edit {
    /// The text to replace.
    pub old: String,
    /// Its replacement.
    pub new: String,
}

/// zed's `edits`, sent as a JSON string of the array.
#[derive(Debug, Deserialize, JsonSchema, ToolParams)]
pub struct EditFile {
    /// The file.
    pub path: String,
    /// The edits, in order.
    #[serde(deserialize_with = "list_or_json")]
    pub edits: Vec<Edit>,
}

/// rust-mcp-server's `features`, sent as one string for a list.
#[derive(Debug, Deserialize, JsonSchema, ToolParams)]
pub struct Build {
    /// Cargo features to enable.
    #[serde(deserialize_with = "one_or_many")]
    pub features: Vec<String>,
}

/// The same field without a lenient deserializer: held to its schema.
#[derive(Debug, Deserialize, JsonSchema, ToolParams)]
pub struct Sleep {
    /// Seconds to sleep.
    pub seconds: u64,
}

#[derive(Clone)]
struct Lenient {
    tool_router: ToolRouter<Self>,
}

fn ok(v: Value) -> Result<CallToolResult, ErrorData> {
    Ok(CallToolResult::success(vec![ContentBlock::text(
        v.to_string(),
    )]))
}

#[tool_router]
impl Lenient {
    #[tool(description = "Wait.")]
    fn wait(&self, Parameters(a): Parameters<Wait>) -> Result<CallToolResult, ErrorData> {
        ok(json!({"timeout_seconds": a.timeout_seconds}))
    }
    #[tool(description = "Crawl.")]
    fn crawl(&self, Parameters(a): Parameters<Crawl>) -> Result<CallToolResult, ErrorData> {
        ok(json!({"url": a.url, "follow_depth": a.follow_depth}))
    }
    #[tool(description = "Edit a file.")]
    fn edit_file(&self, Parameters(a): Parameters<EditFile>) -> Result<CallToolResult, ErrorData> {
        ok(json!({"path": a.path, "edits": a.edits}))
    }
    #[tool(description = "Build.")]
    fn build(&self, Parameters(a): Parameters<Build>) -> Result<CallToolResult, ErrorData> {
        ok(json!({"features": a.features}))
    }
    #[tool(description = "Sleep.")]
    fn sleep(&self, Parameters(a): Parameters<Sleep>) -> Result<CallToolResult, ErrorData> {
        ok(json!({"seconds": a.seconds}))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Lenient {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

fn call(name: &str, args: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned()).with_arguments(args.as_object().cloned().unwrap())
}

fn text(r: &CallToolResult) -> String {
    (r.content.iter())
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

#[tokio::test]
async fn a_real_server_keeps_the_calls_its_types_accept() {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let server = Lenient {
        tool_router: toolschema::rmcp::exact_schemas(Lenient::tool_router()),
    };
    tokio::spawn(async move {
        let running = server.serve(server_io).await.expect("server starts");
        let _ = running.waiting().await;
    });
    let client = ().serve(client_io).await.expect("client connects");
    let accepted = [
        (
            "wait",
            json!({"timeout_seconds": "400"}),
            json!({"timeout_seconds": 400}),
        ),
        (
            "crawl",
            json!({"url": "https://a.example", "follow_depth": "3"}),
            json!({"url": "https://a.example", "follow_depth": 3}),
        ),
        (
            "edit_file",
            json!({"path": "a.rs", "edits": "[{\"old\": \"a\", \"new\": \"b\"}]"}),
            json!({"path": "a.rs", "edits": [{"old": "a", "new": "b"}]}),
        ),
        (
            "build",
            json!({"features": "derive"}),
            json!({"features": ["derive"]}),
        ),
        // The schema's own form, as before.
        (
            "wait",
            json!({"timeout_seconds": 30}),
            json!({"timeout_seconds": 30}),
        ),
    ];
    for (tool, sent, received) in accepted {
        let result = client.call_tool(call(tool, sent.clone())).await.unwrap();
        assert_ne!(
            result.is_error,
            Some(true),
            "{tool} {sent}: {}",
            text(&result)
        );
        let got: Value = serde_json::from_str(&text(&result)).unwrap();
        assert_eq!(got, received, "{tool} {sent}");
    }
    // Coerced, a constraint still holds: 4000 is over the maximum of 600.
    let result = client
        .call_tool(call("wait", json!({"timeout_seconds": "4000"})))
        .await;
    let refusal = match result {
        Ok(r) => text(&r),
        Err(e) => e.to_string(),
    };
    assert!(refusal.contains("600"), "{refusal}");
    // A field without a lenient deserializer is held to its schema.
    let result = client
        .call_tool(call("sleep", json!({"seconds": "400"})))
        .await;
    let refusal = match result {
        Ok(r) => text(&r),
        Err(e) => e.to_string(),
    };
    assert!(refusal.contains("integer"), "{refusal}");
    client.cancel().await.unwrap();
}

/// The same through `from_args`, on a strict target (its nulls and encodings undone first).
#[test]
fn from_args_keeps_the_calls_the_type_accepts() {
    let wait = Wait::from_args(Target::OpenAiStrict, json!({"timeout_seconds": "400"})).unwrap();
    assert_eq!(wait.timeout_seconds, 400);
    let edit = EditFile::from_args(
        Target::AnthropicStrict,
        json!({"path": "a.rs", "edits": "[{\"old\": \"a\", \"new\": \"b\"}]"}),
    )
    .unwrap();
    assert_eq!(edit.edits[0].new, "b");
    // JSON text the type itself cannot read (an edit without `new`): the schema's error stands,
    // naming the place.
    let e = EditFile::from_args(
        Target::Mcp,
        json!({"path": "a.rs", "edits": "[{\"old\": \"a\"}]"}),
    )
    .unwrap_err();
    assert!(e.to_string().contains("/edits must be an array"), "{e}");
    let build = Build::from_args(Target::Gemini, json!({"features": "derive"})).unwrap();
    assert_eq!(build.features, ["derive"]);
    assert!(Sleep::from_args(Target::Mcp, json!({"seconds": "400"})).is_err());
}
