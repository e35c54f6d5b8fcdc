//! `toolschema proxy` as a process, between rmcp's client and a server: the hand-written server
//! of `toolschema_tests::raw_server` (a structural union, a dropped constraint, a name providers
//! refuse; it answers every call with the arguments it received and counts them) and the example
//! server. What the client is given is compared whole with what the library adapts.

// `roots/list` is deprecated by SEP-2577 but still what deployed clients answer: the test
// client answers it, as the server→client request the proxy must pass on.
#![allow(deprecated)]

mod common;
use common::server_bin;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, ClientConfig, ListRootsResult, ProgressNotificationParam, Root,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Map, Value, json};
use toolschema::Target;
use toolschema::adapt::convert;
use toolschema::catalog::Catalog;

/// What the test client saw arrive on its own.
#[derive(Clone, Default)]
struct Seen {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    list_changed: Arc<Mutex<usize>>,
}

impl ClientHandler for Seen {
    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {
                "roots": {"listChanged": false},
                "extensions": {"io.modelcontextprotocol/tasks": {}}
            },
            "clientInfo": {"name": "proxy-test", "version": "0"}
        }))
        .unwrap()
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        Ok(ListRootsResult::new(vec![Root::new("file:///work")]))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        *self.list_changed.lock().unwrap() += 1;
    }
}

struct Proxied {
    client: RunningService<RoleClient, Seen>,
    seen: Seen,
    process: tokio::process::Child,
}

/// `program args` as a child process speaking MCP on stdio, with rmcp's client connected.
async fn connected(program: &std::path::Path, args: &[&str]) -> Proxied {
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    let mut process = command.spawn().expect("it starts");
    let transport = (
        process.stdout.take().unwrap(),
        process.stdin.take().unwrap(),
    );
    let seen = Seen::default();
    let client = seen.clone().serve(transport).await.expect("it initializes");
    Proxied {
        client,
        seen,
        process,
    }
}

/// The proxy for `target` with `extra` arguments, then `upstream` (`--server -- ...` or
/// `--url URL`).
async fn proxy_to(target: &str, extra: &[&str], upstream: &[&str]) -> Proxied {
    let mut args = vec!["proxy", "--for", target];
    args.extend_from_slice(extra);
    args.extend_from_slice(upstream);
    connected(
        std::path::Path::new(env!("CARGO_BIN_EXE_toolschema")),
        &args,
    )
    .await
}

/// The proxy for `target` in front of the example binary run with `server_args`.
async fn proxy(target: &str, extra: &[&str], server_args: &[&str]) -> Proxied {
    let server = server_bin();
    let mut upstream = vec!["--server", "--", server.to_str().unwrap()];
    upstream.extend_from_slice(server_args);
    proxy_to(target, extra, &upstream).await
}

/// Starts a `tools/call` of `name` (no arguments) and returns its handle, for its progress
/// token or to cancel it.
async fn start_call(p: &Proxied, name: &str) -> rmcp::service::RequestHandle<RoleClient> {
    p.client
        .send_cancellable_request(
            rmcp::model::ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(
                CallToolRequestParams::new(name.to_owned()),
            )),
            rmcp::service::PeerRequestOptions::no_options(),
        )
        .await
        .unwrap()
}

fn args(value: Value) -> Map<String, Value> {
    value.as_object().unwrap().clone()
}

/// The text of a call's result, and whether it is a tool error.
async fn call(p: &Proxied, name: &str, arguments: Value) -> Result<(String, bool), String> {
    let result = p
        .client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(args(arguments)))
        .await
        .map_err(|e| e.to_string())?;
    let value = serde_json::to_value(&result).unwrap();
    let text = value["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    Ok((text, value["isError"] == json!(true)))
}

async fn calls_seen_by_server(p: &Proxied) -> u64 {
    call(p, "calls", json!({}))
        .await
        .unwrap()
        .0
        .parse()
        .unwrap()
}

/// What the library makes of the raw server's catalog for `target`: the tools a client must be
/// given, whole (name after any rename, description, adapted schema).
fn expected_tools(target: Target, with_extra: bool) -> Vec<Value> {
    common::adapted_listing(toolschema_tests::raw_server::tools(with_extra), target)
}

async fn listed(p: &Proxied) -> Vec<Value> {
    let tools = p.client.list_all_tools().await.expect("tools/list");
    serde_json::to_value(tools)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_exactly_the_adapted_tools_for_each_target() {
    for (name, target) in [
        ("mcp", Target::Mcp),
        ("gemini", Target::Gemini),
        ("openai-strict", Target::OpenAiStrict),
        ("cca-claude", Target::CcaClaude),
    ] {
        let p = proxy(name, &[], &["--raw"]).await;
        assert_eq!(
            listed(&p).await,
            expected_tools(target, false),
            "{name}: the listed tools differ from the library's adaptation"
        );
        let _ = p.client.cancel().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn valid_calls_reach_the_server_and_invalid_ones_never_do() {
    let p = proxy("gemini", &[], &["--raw"]).await;
    // Valid: forwarded, answered by the server with what it received.
    let (text, error) = call(&p, "draw", json!({"shape": {"radius": 2}, "label": "sun"}))
        .await
        .unwrap();
    assert!(!error, "{text}");
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        json!({"tool": "draw", "arguments": {"shape": {"radius": 2}, "label": "sun"}})
    );
    // Wrong type; a constraint Gemini is not sent (`maxLength`, spilled); a value mixing the
    // union's branches (Gemini's schema has no `additionalProperties`, so the model may send it).
    for (arguments, names) in [
        (json!({"shape": {"radius": "big"}}), "/shape"),
        (
            json!({"shape": {"radius": 1}, "label": "far too long"}),
            "/label",
        ),
        (json!({"shape": {"radius": 1, "width": 2}}), "/shape"),
    ] {
        let (text, error) = call(&p, "draw", arguments.clone()).await.unwrap();
        assert!(error, "{arguments} was not refused: {text}");
        assert!(
            text.starts_with("Tool `draw` was not called.") && text.contains(names),
            "{arguments}: the refusal does not say what to fix: {text}"
        );
    }
    assert_eq!(
        calls_seen_by_server(&p).await,
        1,
        "a refused call reached the server"
    );
    let _ = p.client.cancel().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strict_nulls_are_restored_and_renamed_tools_round_trip() {
    let p = proxy("openai-strict", &[], &["--raw"]).await;
    // OpenAI strict makes optional properties required and nullable: the model sends `null`
    // for what it leaves out, and the server must not see it.
    let (text, error) = call(
        &p,
        "draw",
        json!({"shape": {"width": 2, "height": 3}, "label": null, "note": null}),
    )
    .await
    .unwrap();
    assert!(!error, "{text}");
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["arguments"],
        json!({"shape": {"width": 2, "height": 3}})
    );
    // `files.read/v2` is published under a name OpenAI accepts and called by its own.
    let names: Vec<String> = listed(&p)
        .await
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(names.contains(&"files_read_v2".to_owned()), "{names:?}");
    let (text, error) = call(&p, "files_read_v2", json!({"path": "/etc/hosts"}))
        .await
        .unwrap();
    assert!(!error, "{text}");
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        json!({"tool": "files.read/v2", "arguments": {"path": "/etc/hosts"}})
    );
    let _ = p.client.cancel().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changed_relists_and_the_rest_passes_through() {
    let report = std::env::temp_dir().join(format!("proxy-report-{}.json", std::process::id()));
    let p = proxy(
        "gemini",
        &["--report", report.to_str().unwrap()],
        &["--raw"],
    )
    .await;
    // The report is written at start: one entry per tool, the rename included.
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let count = toolschema_tests::raw_server::tools(false).len();
    assert_eq!(written["tools"].as_array().unwrap().len(), count);
    assert!(
        written["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["renamed_from"] == json!("files.read/v2"))
    );
    // A new tool: the client hears of it, and the next listing has it, adapted.
    call(&p, "add_tool", json!({})).await.unwrap();
    let start = Instant::now();
    while *p.seen.list_changed.lock().unwrap() == 0 {
        assert!(start.elapsed() < Duration::from_secs(10), "no list_changed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(listed(&p).await, expected_tools(Target::Gemini, true));
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(
        written["tools"].as_array().unwrap().len(),
        count + 1,
        "report not rewritten"
    );
    // A server→client request (roots/list) reaches the client and its answer the server.
    let (text, error) = call(&p, "roots", json!({})).await.unwrap();
    assert!(!error, "{text}");
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["roots"],
        json!([{"uri": "file:///work"}])
    );
    // Progress reaches the client under the token the client chose.
    let handle = start_call(&p, "progress").await;
    let token = handle.progress_token.clone();
    handle.await_response().await.unwrap();
    let start = Instant::now();
    while p.seen.progress.lock().unwrap().len() < 2 {
        assert!(start.elapsed() < Duration::from_secs(10), "no progress");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        p.seen
            .progress
            .lock()
            .unwrap()
            .iter()
            .all(|n| n.progress_token == token)
    );
    // A cancellation reaches the server under the id the proxy used for the request.
    let handle = start_call(&p, "hang").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    handle.cancel(Some("test".to_owned())).await.unwrap();
    let start = Instant::now();
    while call(&p, "cancelled", json!({})).await.unwrap().0 != "1" {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the cancellation did not arrive"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let _ = p.client.cancel().await;
    let _ = std::fs::remove_file(report);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_gets_the_proxys_environment_plus_env() {
    // The variable is set for the child through --env only.
    let p = proxy(
        "mcp",
        &["--env", "TOOLSCHEMA_PROXY_TEST=set by --env"],
        &["--raw"],
    )
    .await;
    let (text, _) = call(&p, "env", json!({"name": "TOOLSCHEMA_PROXY_TEST"}))
        .await
        .unwrap();
    assert_eq!(text, "\"set by --env\"");
    // The proxy's own environment is inherited (PATH is always set here).
    let (text, _) = call(&p, "env", json!({"name": "PATH"})).await.unwrap();
    assert_ne!(text, "null");
    let _ = p.client.cancel().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_hangs_or_dies_gives_errors_not_a_hang() {
    // Never answers: the call fails after --timeout, and the proxy keeps serving.
    let p = proxy("mcp", &["--timeout", "2"], &["--raw"]).await;
    let start = Instant::now();
    let outcome = call(&p, "hang", json!({})).await;
    assert!(outcome.is_err(), "{outcome:?}");
    assert!(start.elapsed() < Duration::from_secs(15));
    assert!(outcome.unwrap_err().contains("did not answer within 2 s"));
    assert_eq!(calls_seen_by_server(&p).await, 1);
    // Dies mid-call: the pending call gets an error, and the proxy exits non-zero.
    let outcome = call(&p, "exit", json!({})).await;
    assert!(
        outcome.as_ref().is_err_and(|e| e.contains("is gone")),
        "{outcome:?}"
    );
    let mut process = p.process;
    let status = tokio::time::timeout(Duration::from_secs(10), process.wait())
        .await
        .expect("the proxy exits when its server is gone")
        .unwrap();
    assert_eq!(status.code(), Some(1));
}

/// `toolschema proxy --for TARGET --server -- SERVER...` sent one `initialize` on stdin, run to
/// its end: the exit code, the JSON-RPC reply (its first stdout line) and stderr.
fn start_failing(target: &str, server: &[&str]) -> (Option<i32>, Value, String) {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toolschema"))
        .args(["proxy", "--for", target, "--server", "--"])
        .args(server)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let reply = serde_json::from_str(stdout.lines().next().unwrap_or("{}")).unwrap();
    (
        out.status.code(),
        reply,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_server_that_cannot_start_is_one_line_and_exit_2() {
    let (code, reply, stderr) = start_failing("gemini", &["/nonexistent/mcp-server"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(reply["id"], json!(1));
    assert!(
        reply["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("cannot start `/nonexistent/mcp-server`")),
        "{reply}"
    );
    assert!(
        stderr.contains("cannot start `/nonexistent/mcp-server`"),
        "{stderr}"
    );
    // One line, as the README promises (issue 48, item 6).
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// Issue 48, item 6: a server that starts and dies before it answers `initialize` is said in
/// words, on one line, with no Rust type name, both to the client and on stderr.
#[test]
fn a_server_that_dies_at_start_is_said_in_words() {
    let (code, reply, stderr) = start_failing("mcp", &["sh", "-c", "echo notjson; exit 1"]);
    assert_eq!(code, Some(2), "{stderr}");
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("did not initialize as an MCP server"),
        "{reply}"
    );
    for text in [message, &*stderr] {
        assert!(
            !text.contains("::") && !text.contains("Transport ["),
            "{text}"
        );
    }
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_server_through_the_proxy() {
    let p = proxy("openai-strict", &[], &[]).await;
    let tools = listed(&p).await;
    assert_eq!(tools.len(), 4);
    // A call the example server accepts goes through unchanged.
    let (text, error) = call(
        &p,
        "search_entries",
        json!({"query": "a", "limit": null, "sort": null}),
    )
    .await
    .unwrap();
    assert!(!error, "{text}");
    let _ = p.client.cancel().await;
}

/// A process killed on drop.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// What a process wrote on standard error, read on a thread as it comes.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<String>>);

impl Log {
    fn text(&self) -> String {
        self.0.lock().unwrap().clone()
    }
}

/// Starts `program args`, reads the first line of its standard output (an address or URL);
/// its standard error is collected in the returned log.
/// `proxy --for TARGET --listen` on a free port, in front of the example server's raw stdio
/// form: the proxy, its URL and its log.
fn listen_before_raw_server(target: &str) -> (Killed, String, Log) {
    let server = server_bin();
    start_printing(
        std::path::Path::new(env!("CARGO_BIN_EXE_toolschema")),
        &[
            "proxy",
            "--for",
            target,
            "--listen",
            "127.0.0.1:0",
            "--server",
            "--",
            server.to_str().unwrap(),
            "--raw",
        ],
    )
}

fn start_printing(program: &std::path::Path, args: &[&str]) -> (Killed, String, Log) {
    use std::io::{BufRead, Read};
    let mut child = std::process::Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let mut stderr = child.stderr.take().unwrap();
    let log = Log::default();
    let sink = log.clone();
    std::thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        while let Ok(n) = stderr.read(&mut chunk) {
            if n == 0 {
                break;
            }
            sink.0
                .lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&chunk[..n]));
        }
    });
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    (Killed(child), line.trim().to_owned(), log)
}

async fn http_client(url: &str, log: &Log) -> RunningService<RoleClient, Seen> {
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.to_owned());
    match Seen::default().serve(transport).await {
        Ok(client) => client,
        Err(e) => panic!(
            "the proxy at {url} did not initialize over HTTP: {e}\nits stderr:\n{}",
            log.text()
        ),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_on_both_sides() {
    // Upstream over HTTP (the example server), with a secret header; the client over HTTP.
    let (_server, addr, server_log) = start_printing(&server_bin(), &["--http", "127.0.0.1:0"]);
    let upstream = format!("http://{addr}/mcp");
    let (proxy, url, log) = start_printing(
        std::path::Path::new(env!("CARGO_BIN_EXE_toolschema")),
        &[
            "proxy",
            "--for",
            "gemini",
            "--listen",
            "127.0.0.1:0",
            "--url",
            &upstream,
            "--header",
            "Authorization: Bearer s3cret-value",
        ],
    );
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    let client = http_client(&url, &log).await;
    let tools = serde_json::to_value(client.list_all_tools().await.unwrap()).unwrap();
    // The listing is the library's adaptation of what the server itself publishes.
    let direct = http_client(&upstream, &server_log).await;
    let published = serde_json::to_value(direct.list_all_tools().await.unwrap()).unwrap();
    let _ = direct.cancel().await;
    let catalog = Catalog::from_value(json!({ "tools": published.clone() })).unwrap();
    let converted = convert(&catalog, Target::Gemini);
    let mut expected = published.as_array().unwrap().clone();
    for (tool, adapted) in expected.iter_mut().zip(&converted.adapted) {
        tool["inputSchema"] = adapted.schema.clone();
    }
    assert_eq!(tools.as_array().unwrap(), &expected);
    assert_eq!(expected.len(), 4);
    // A call the server's schema refuses (`query` has `minLength: 1`) never reaches it.
    let result = client
        .call_tool(
            CallToolRequestParams::new("search_entries")
                .with_arguments(args(json!({"query": "", "limit": 1}))),
        )
        .await
        .unwrap();
    let value = serde_json::to_value(&result).unwrap();
    assert_eq!(value["isError"], json!(true), "{value}");
    assert!(
        value["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Tool `search_entries` was not called."),
        "{value}"
    );
    let _ = client.cancel().await;
    drop(proxy);
    let log = log.text();
    assert!(
        !log.contains("s3cret"),
        "the header value was logged: {log}"
    );
    assert!(log.contains("toolschema proxy (gemini): 4 tools"), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_client_in_front_of_a_stdio_server() {
    let (_proxy, url, log) = listen_before_raw_server("openai-strict");
    let client = http_client(&url, &log).await;
    let tools = serde_json::to_value(client.list_all_tools().await.unwrap()).unwrap();
    assert_eq!(
        tools.as_array().unwrap(),
        &expected_tools(Target::OpenAiStrict, false)
    );
    let result = client
        .call_tool(CallToolRequestParams::new("draw").with_arguments(args(
            json!({"shape": {"radius": 1}, "label": null, "note": null}),
        )))
        .await
        .unwrap();
    let value = serde_json::to_value(&result).unwrap();
    let text = value["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap()["arguments"],
        json!({"shape": {"radius": 1}})
    );
    let _ = client.cancel().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_over_max_message_are_refused_from_either_side() {
    let p = proxy("mcp", &["--max-message", "8192"], &["--raw"]).await;
    // From the client: a request over the bound gets a JSON-RPC error and never reaches the
    // server; the session goes on.
    let outcome = call(
        &p,
        "draw",
        json!({"shape": {"radius": 1}, "note": "n".repeat(20_000)}),
    )
    .await;
    assert!(
        outcome
            .as_ref()
            .is_err_and(|e| e.contains("--max-message limit of 8192 bytes")),
        "{outcome:?}"
    );
    assert_eq!(calls_seen_by_server(&p).await, 0);
    // From the server: an answer over the bound fails its request, and the next one works.
    let outcome = call(&p, "big", json!({"bytes": 50_000})).await;
    assert!(
        outcome
            .as_ref()
            .is_err_and(|e| e.contains("--max-message limit of 8192 bytes")),
        "{outcome:?}"
    );
    let (text, error) = call(&p, "big", json!({"bytes": 100})).await.unwrap();
    assert!(!error && text.len() == 100, "{text}");
    let _ = p.client.cancel().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_and_prompts_pass_through_unchanged() {
    // The same requests, to the server directly and through the proxy: equal answers.
    let direct = connected(&server_bin(), &["--raw"]).await;
    let p = proxy("gemini", &[], &["--raw"]).await;
    async fn answers(client: &RunningService<RoleClient, Seen>) -> Vec<Value> {
        let read = rmcp::model::ReadResourceRequestParams::new("file:///notes.txt");
        let prompt = rmcp::model::GetPromptRequestParams::new("greet")
            .with_arguments(args(json!({"who": "Ada"})));
        vec![
            serde_json::to_value(client.list_all_resources().await.unwrap()).unwrap(),
            serde_json::to_value(client.read_resource(read).await.unwrap()).unwrap(),
            serde_json::to_value(client.list_all_prompts().await.unwrap()).unwrap(),
            serde_json::to_value(client.get_prompt(prompt).await.unwrap()).unwrap(),
        ]
    }
    let through = answers(&p.client).await;
    assert_eq!(through, answers(&direct.client).await);
    assert_eq!(
        through[1]["contents"][0]["text"],
        json!("remember the milk")
    );
    assert_eq!(
        through[3]["messages"][0]["content"]["text"],
        json!("Say hello to Ada.")
    );
    let _ = direct.client.cancel().await;
    let _ = p.client.cancel().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_server_answer_over_max_message_is_refused() {
    let (_server, addr, _) = start_printing(&server_bin(), &["--raw", "--http", "127.0.0.1:0"]);
    let upstream = format!("http://{addr}/mcp");
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolschema"));
    command
        .args([
            "proxy",
            "--for",
            "mcp",
            "--max-message",
            "8192",
            "--url",
            &upstream,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    let mut child = command.spawn().unwrap();
    let transport = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
    let client = Seen::default().serve(transport).await.unwrap();
    let p = Proxied {
        client,
        seen: Seen::default(),
        process: child,
    };
    let outcome = call(&p, "big", json!({"bytes": 50_000})).await;
    assert!(outcome.is_err(), "{outcome:?}");
    let (text, error) = call(&p, "big", json!({"bytes": 100})).await.unwrap();
    assert!(!error && text.len() == 100, "{text}");
    let _ = p.client.cancel().await;
}

/// Issue 48, item 3: with `--listen`, each client session has its own server process; one that
/// dies ends that session alone (its calls get errors) while another session keeps working, and
/// the proxy keeps serving new sessions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_sessions_server_dying_leaves_the_others_serving() {
    let (mut proxy, url, log) = listen_before_raw_server("mcp");
    let a = http_client(&url, &log).await;
    let b = http_client(&url, &log).await;
    let exit = CallToolRequestParams::new("exit").with_arguments(args(json!({})));
    let outcome = a.call_tool(exit).await;
    assert!(
        outcome.is_err() || outcome.as_ref().is_ok_and(|r| r.is_error == Some(true)),
        "{outcome:?}"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    // The other session's server still answers.
    let calls = CallToolRequestParams::new("calls").with_arguments(args(json!({})));
    let answer = b.call_tool(calls.clone()).await.unwrap();
    assert_ne!(answer.is_error, Some(true), "{answer:?}");
    assert_eq!(
        serde_json::to_value(&answer).unwrap()["content"][0]["text"],
        json!("0"),
        "{answer:?}"
    );
    // The dead session's calls get errors.
    let again = a.call_tool(calls.clone()).await;
    assert!(
        again.as_ref().is_err() || again.as_ref().is_ok_and(|r| r.is_error == Some(true)),
        "{again:?}"
    );
    // The proxy still runs and serves a new session.
    assert!(proxy.0.try_wait().unwrap().is_none(), "{}", log.text());
    let c = http_client(&url, &log).await;
    assert!(c.call_tool(calls).await.is_ok());
    let _ = b.cancel().await;
    let _ = c.cancel().await;
}

/// One HTTP/1.1 exchange over a plain TCP connection (`Connection: close`): the status code, the
/// headers and the body as text.
fn http_exchange(
    url: &str,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    use std::io::{Read, Write};
    let authority = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let mut stream = std::net::TcpStream::connect(&authority).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut request = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, head.to_owned(), body.to_owned())
}

/// Issue 48, item 7: over `--listen`, a POST body that is not JSON gets HTTP 400 with a JSON-RPC
/// parse error (-32700), and a session's DELETE gets 204 (not 202, which the official Python
/// client logs as a failed termination).
#[test]
fn http_parse_errors_and_session_deletes_are_answered_as_clients_expect() {
    let (_proxy, url, log) = listen_before_raw_server("mcp");
    let json_headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    let (status, _, body) = http_exchange(&url, "POST", &json_headers, "{bad json");
    assert_eq!(status, 400, "{body}\n{}", log.text());
    let error: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(error["jsonrpc"], json!("2.0"));
    assert_eq!(error["id"], Value::Null);
    assert_eq!(error["error"]["code"], json!(-32700), "{error}");
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    let (status, head, _) = http_exchange(&url, "POST", &json_headers, &initialize.to_string());
    assert_eq!(status, 200, "{head}");
    let session = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })
        .expect("a session id");
    let (status, head, _) = http_exchange(&url, "DELETE", &[("Mcp-Session-Id", &session)], "");
    assert!(status == 204 || status == 200, "{head}");
}

/// A structural union the server's author allowed still costs something on Gemini: the proxy's
/// start-up line counts it (issue 49), and the client receives the union as sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allowed_union_is_counted_in_the_start_up_line() {
    use tokio::io::AsyncReadExt;
    let server = server_bin();
    let mut process = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolschema"))
        .args(["proxy", "--for", "gemini", "--server", "--"])
        .arg(&server)
        .arg("--allowed-union")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the proxy starts");
    let transport = (
        process.stdout.take().unwrap(),
        process.stdin.take().unwrap(),
    );
    let client = Seen::default()
        .serve(transport)
        .await
        .expect("it initializes");
    let tools = client.list_all_tools().await.expect("tools/list");
    let edit = tools
        .iter()
        .find(|t| t.name == "edit_task")
        .expect("listed");
    // The union stays where the server defined it (Gemini takes `$ref`), both branches kept.
    let change = &edit.input_schema["$defs"]["Change"];
    assert_eq!(
        change["anyOf"].as_array().map(Vec::len),
        Some(2),
        "{change}"
    );
    drop(client);
    let _ = process.kill().await;
    let mut stderr = String::new();
    process
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .await
        .unwrap();
    let line = (stderr.lines())
        .find(|l| l.starts_with("toolschema proxy (gemini):"))
        .unwrap_or_else(|| panic!("no start-up line in:\n{stderr}"));
    assert!(
        line.ends_with("; 1 structural union kept (the client may flatten it)"),
        "{line}"
    );
}

/// A `--listen` start is quiet (issue 48 item 5): the start-up check's server, which announces a
/// tool list change at once and writes on its way out, is closed without "re-listing … failed"
/// and without dying on a closed pipe; so is a session's server when its client leaves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_start_and_a_session_end_are_quiet() {
    let server = server_bin();
    let (_proxy, url, log) = start_printing(
        std::path::Path::new(env!("CARGO_BIN_EXE_toolschema")),
        &[
            "proxy",
            "--for",
            "gemini",
            "--listen",
            "127.0.0.1:0",
            "--server",
            "--",
            server.to_str().unwrap(),
            "--noisy",
        ],
    );
    assert!(url.ends_with("/mcp"), "{url}");
    let client = http_client(&url, &log).await;
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "draw"));
    let _ = client.cancel().await;
    // The servers' last writes come 300 ms after their input closes.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let text = log.text();
    assert!(!text.contains("re-listing"), "{text}");
    assert!(!text.contains("EPIPE"), "{text}");
    assert!(!text.contains("panicked"), "{text}");
}

/// MCP tasks in the form rmcp implements (the tasks extension, SEP-2663) pass through: the
/// server's `extensions` capability, a `tools/call` answered with a task, and `tasks/get`
/// (issue 48 item 1).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_made_for_a_call_passes_through() {
    use rmcp::model::{ClientRequest, GetTaskParams, Request, ServerResult};
    let p = proxy("gemini", &[], &["--raw"]).await;
    let info = p.client.peer_info().expect("initialized");
    assert!(info.capabilities.supports_tasks(), "{info:?}");
    let call =
        ClientRequest::CallToolRequest(Request::new(CallToolRequestParams::new("background")));
    let task = match p.client.send_request(call).await.expect("answered") {
        ServerResult::CreateTaskResult(task) => task,
        other => panic!("not a task: {other:?}"),
    };
    assert_eq!(task.task.task_id, "task-1");
    let get = ClientRequest::GetTaskRequest(Request::new(GetTaskParams::new("task-1")));
    match p.client.send_request(get).await.expect("answered") {
        ServerResult::GetTaskResult(done) => {
            let text = serde_json::to_value(&done).unwrap().to_string();
            assert!(text.contains("done in the background"), "{text}");
        }
        other => panic!("not the task: {other:?}"),
    }
}

/// Over Streamable HTTP, progress a server sends just before its answer reaches the client
/// before that answer, on the request's own stream (the MCP conformance suite's
/// `tools-call-with-progress` failed through the proxy without this: rmcp passes each
/// notification on from a task of its own, and the last one went after the result, when a
/// client no longer listens for that request's progress). Read as the wire carries it: one
/// `tools/call` POST's event stream, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_before_an_answer_arrives_before_it_over_http() {
    let (_proxy, url, _log) = listen_before_raw_server("mcp");
    let http = reqwest::Client::new();
    let post = |body: Value, session: Option<String>| {
        let mut request = http
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-06-18")
            .body(body.to_string());
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.send()
    };
    let init = post(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "wire", "version": "0"}}}),
        None,
    )
    .await
    .unwrap();
    let session = init
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_owned());
    let _ = init.text().await.unwrap();
    let _ = post(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        session.clone(),
    )
    .await
    .unwrap();
    for round in 0..20 {
        let id = 100 + round;
        let stream = post(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                "name": "progress", "arguments": {}, "_meta": {"progressToken": format!("t{round}")}}}),
            session.clone(),
        )
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
        let messages: Vec<Value> = (stream.lines())
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .collect();
        let answer = messages
            .iter()
            .position(|m| m["id"] == json!(id))
            .unwrap_or_else(|| panic!("no answer on the stream: {stream}"));
        let progress = messages[..answer]
            .iter()
            .filter(|m| m["method"] == json!("notifications/progress"))
            .count();
        assert_eq!(progress, 2, "round {round}: {stream}");
    }
}
