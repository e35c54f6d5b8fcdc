//! A live MCP server as input: spawned over stdio or reached over Streamable HTTP with rmcp's
//! client, initialized, asked for every `tools/list` page (rmcp follows `nextCursor`), and shut
//! down. What it returned is read as a catalog, like a `tools/list` result in a file.
//!
//! Every failure is one line (exit 2), never a hang: the whole exchange has a deadline, a server
//! that exits early shows the tail of its standard error, and the child process is killed and
//! waited for on every path.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;

use crate::input::InputError;
use crate::proxy::arrivals::{Arrivals, Counted};

/// Where the tools come from.
pub enum Server {
    /// A command speaking MCP on its standard input and output (run directly, no shell).
    Command(Vec<String>),
    /// A Streamable HTTP endpoint, with extra request headers (sent to it only).
    Url {
        /// The endpoint.
        url: String,
        /// `Name: value` headers, for authentication.
        headers: Vec<String>,
    },
}

impl Server {
    /// How the source is named in messages.
    pub fn name(&self) -> String {
        match self {
            Server::Command(argv) => format!("server `{}`", argv.join(" ")),
            Server::Url { url, .. } => format!("server {url}"),
        }
    }
}

/// The `tools/list` result of a live server, as `{"tools": [...]}` (every page).
pub fn list_tools(server: &Server, timeout: Duration) -> Result<Value, InputError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| InputError(format!("cannot start the async runtime: {e}")))?;
    let name = server.name();
    let stderr_tail = Arc::new(Mutex::new(Vec::<u8>::new()));
    let result = runtime.block_on(async {
        match tokio::time::timeout(timeout, fetch(server, stderr_tail.clone())).await {
            Ok(result) => result,
            Err(_) => Err(format!(
                "no answer within {} s (raise it with --timeout SECS)",
                timeout.as_secs()
            )),
        }
    });
    // Anything still running (a child being killed, a reader of its stderr) ends here.
    runtime.shutdown_timeout(Duration::from_secs(2));
    result.map_err(|why| {
        let tail = tail_of(&stderr_tail.lock().map(|b| b.clone()).unwrap_or_default());
        let tail = if tail.is_empty() {
            String::new()
        } else {
            format!(" (its stderr ends: {tail})")
        };
        InputError(format!("{name}: {why}{tail}"))
    })
}

async fn fetch(server: &Server, stderr_tail: Arc<Mutex<Vec<u8>>>) -> Result<Value, String> {
    let client = connect(server, (), Some(stderr_tail), &[]).await?;
    list_and_close(client).await
}

/// rmcp's Streamable HTTP client for `url` with the extra `headers` (`Name: value`); with
/// `max`, no SSE event or JSON response over `max` bytes is read (rmcp's own limits).
fn http_transport(
    url: &str,
    headers: &[String],
    max: Option<usize>,
) -> Result<impl rmcp::transport::Transport<rmcp::RoleClient> + use<>, String> {
    let mut custom = HashMap::new();
    for header in headers {
        let (name, value) = header
            .split_once(':')
            .ok_or_else(|| "a --header must look like `Name: value`".to_owned())?;
        let name = name
            .trim()
            .parse()
            .map_err(|_| format!("`{}` is not a valid header name", name.trim()))?;
        // The value is a secret: never repeated in a message.
        let value = value
            .trim()
            .parse()
            .map_err(|_| format!("the value of header `{name}` is not valid"))?;
        custom.insert(name, value);
    }
    let mut config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom);
    if let Some(max) = max {
        config = config.max_sse_event_size(max).max_json_response_size(max);
    }
    Ok(StreamableHttpClientTransport::from_config(config))
}

/// What a server's own bytes say that rmcp's types drop: MCP tasks in the 2025-11-25 form. rmcp
/// 3.11 reads `capabilities.tasks` and a tool's `execution` as unknown fields, so the proxy
/// learns of them here, from the start of the output, before the connection parses it.
#[derive(Debug, Default)]
pub struct TasksSeen {
    /// The `initialize` answer has `capabilities.tasks`.
    pub offered: bool,
    /// The tools of the first `tools/list` page with `execution.taskSupport: "required"`.
    pub required_by: Vec<String>,
}

impl TasksSeen {
    /// The start-up line's clause, empty when the server offers no tasks in that form.
    pub fn clause(&self) -> String {
        if !self.offered && self.required_by.is_empty() {
            return String::new();
        }
        let mut clause = "; the server offers MCP tasks in the 2025-11-25 form, which the proxy cannot pass on (calls go without a task)".to_owned();
        match self.required_by.len() {
            0 => {}
            1 => clause.push_str(&format!(
                "; 1 tool requires a task and will fail: {}",
                self.required_by[0]
            )),
            n => clause.push_str(&format!(
                "; {n} tools require a task and will fail: {}",
                self.required_by.join(", ")
            )),
        }
        clause
    }
}

/// Reads the server's first lines, up to its first `tools/list` answer (or 16 MiB), for
/// [`TasksSeen`]; after that it reads nothing.
struct Sniffer {
    seen: Arc<Mutex<TasksSeen>>,
    line: Vec<u8>,
    read: usize,
    done: bool,
}

impl Sniffer {
    const MAX: usize = 16 << 20;

    fn feed(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        while !self.done && !rest.is_empty() {
            let end = rest.iter().position(|&b| b == b'\n');
            let (part, next) = match end {
                Some(i) => (&rest[..i], &rest[i + 1..]),
                None => (rest, &[][..]),
            };
            self.line.extend_from_slice(part);
            self.read += part.len();
            if end.is_some() {
                let line = std::mem::take(&mut self.line);
                self.line_read(&line);
            }
            self.done |= self.read > Self::MAX;
            rest = next;
        }
        if self.done {
            self.line = Vec::new();
        }
    }

    fn line_read(&mut self, line: &[u8]) {
        let Ok(message) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        let Some(result) = message.get("result") else {
            return;
        };
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if result.get("protocolVersion").is_some() {
            seen.offered = result.pointer("/capabilities/tasks").is_some();
        }
        if let Some(tools) = result.get("tools").and_then(Value::as_array) {
            seen.required_by = tools
                .iter()
                .filter(|t| {
                    t.pointer("/execution/taskSupport").and_then(Value::as_str) == Some("required")
                })
                .filter_map(|t| t.get("name").and_then(Value::as_str).map(str::to_owned))
                .collect();
            self.done = true;
        }
    }
}

/// The server's output as the connection reads it, through a pipe: when the connection is closed
/// (the proxy ends a session, or its start-up check), the rest of the output is still read, and
/// dropped, until the server closes it, so a server that writes on its way out never writes
/// into a closed pipe (EPIPE) and dies with a stack trace. Its first lines are read for
/// [`TasksSeen`] on the way.
fn read_to_the_end(
    mut stdout: tokio::process::ChildStdout,
    seen: Arc<Mutex<TasksSeen>>,
) -> tokio::io::DuplexStream {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (mut to_connection, from_server) = tokio::io::duplex(64 * 1024);
    let mut sniffer = Sniffer {
        seen,
        line: Vec::new(),
        read: 0,
        done: false,
    };
    tokio::spawn(async move {
        let mut buffer = vec![0u8; 16 * 1024];
        let mut open = true;
        loop {
            let n = match stdout.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            sniffer.feed(&buffer[..n]);
            if open && to_connection.write_all(&buffer[..n]).await.is_err() {
                // The connection is gone: read on, write nowhere.
                open = false;
            }
        }
    });
    from_server
}

/// [`connect`] for the proxy: a server command's output is read through
/// [`crate::proxy::limit::LineLimit`] (`max` bytes per message), its standard error passes
/// through, and the child is returned to be kept (it is killed when dropped); over HTTP, rmcp's
/// response limits are set to `max`. What a command's output says of MCP tasks in the 2025-11-25
/// form is written to `tasks` (over HTTP nothing is); each progress notification read is counted
/// in `arrivals`.
pub async fn connect_bounded<H: rmcp::Service<rmcp::RoleClient>>(
    server: &Server,
    handler: H,
    env: &[(String, String)],
    max: usize,
    tasks: Arc<Mutex<TasksSeen>>,
    arrivals: Arc<Arrivals>,
) -> Result<
    (
        rmcp::service::RunningService<rmcp::RoleClient, H>,
        Option<tokio::process::Child>,
    ),
    String,
> {
    let argv = match server {
        Server::Command(argv) => argv,
        Server::Url { url, headers } => {
            let transport = Counted::new(http_transport(url, headers, Some(max))?, arrivals);
            return handler
                .serve(transport)
                .await
                .map(|service| (service, None))
                .map_err(|e| {
                    format!(
                        "did not initialize as an MCP server over Streamable HTTP ({})",
                        http_reason(&e.to_string())
                    )
                });
        }
    };
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| "no command given after `--server --`".to_owned())?;
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start `{program}`: {e}"))?;
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return Err(format!("cannot talk to `{program}`: no pipes"));
    };
    let reader =
        crate::proxy::limit::LineLimit::new(read_to_the_end(stdout, tasks), max, "the server");
    let transport = Counted::new(AsyncRwTransport::new_client(reader, stdin), arrivals);
    match handler.serve(transport).await {
        Ok(service) => Ok((service, Some(child))),
        Err(e) => Err(format!(
            "did not initialize as an MCP server ({}): it exited, closed its output or wrote something that is not MCP JSON-RPC",
            init_reason(&e)
        )),
    }
}

/// Starts (`--server`) or reaches (`--url`) the server and initializes it as `handler`'s
/// client. A child's standard error is kept in `stderr_tail` (its last 8 KiB, for the error
/// message), or passed through to ours when `None`; `env` is added to the child's environment.
pub async fn connect<H: rmcp::Service<rmcp::RoleClient>>(
    server: &Server,
    handler: H,
    stderr_tail: Option<Arc<Mutex<Vec<u8>>>>,
    env: &[(String, String)],
) -> Result<rmcp::service::RunningService<rmcp::RoleClient, H>, String> {
    match server {
        Server::Command(argv) => {
            let (program, args) = argv
                .split_first()
                .ok_or_else(|| "no command given after `--server --`".to_owned())?;
            let mut command = tokio::process::Command::new(program);
            command.args(args).kill_on_drop(true);
            command.envs(env.iter().map(|(k, v)| (k, v)));
            let stderr_mode = if stderr_tail.is_some() {
                Stdio::piped()
            } else {
                Stdio::inherit()
            };
            let (transport, stderr) = TokioChildProcess::builder(command)
                .stderr(stderr_mode)
                .spawn()
                .map_err(|e| format!("cannot start `{program}`: {e}"))?;
            let reader = stderr.zip(stderr_tail).map(|(mut stderr, tail)| {
                tokio::spawn(async move {
                    let mut chunk = [0u8; 4096];
                    while let Ok(n) = stderr.read(&mut chunk).await {
                        if n == 0 {
                            break;
                        }
                        if let Ok(mut buf) = tail.lock() {
                            buf.extend_from_slice(&chunk[..n]);
                            let excess = buf.len().saturating_sub(8192);
                            buf.drain(..excess);
                        }
                    }
                })
            });
            match handler.serve(transport).await {
                Ok(client) => Ok(client),
                Err(e) => {
                    // The server may have said why on stderr before it went: read to its end.
                    if let Some(reader) = reader {
                        let _ = tokio::time::timeout(Duration::from_millis(500), reader).await;
                    }
                    Err(format!(
                        "did not initialize as an MCP server ({}): it exited, closed its output or wrote something that is not MCP JSON-RPC",
                        init_reason(&e)
                    ))
                }
            }
        }
        Server::Url { url, headers } => {
            let transport = http_transport(url, headers, None)?;
            handler.serve(transport).await.map_err(|e| {
                format!(
                    "did not initialize as an MCP server over Streamable HTTP ({})",
                    http_reason(&e.to_string())
                )
            })
        }
    }
}

/// Every `tools/list` page, then a clean shutdown (a child: stdin closed, waited for, killed if
/// it lingers), as `{"tools": [...]}`.
async fn list_and_close(
    client: rmcp::service::RunningService<rmcp::RoleClient, ()>,
) -> Result<Value, String> {
    let tools = client
        .list_all_tools()
        .await
        .map_err(|e| format!("`tools/list` failed: {e}"));
    let _ = client.cancel().await;
    let tools = serde_json::to_value(tools?).map_err(|e| format!("unreadable tools: {e}"))?;
    Ok(json!({ "tools": tools }))
}

/// The last non-empty line of what the server wrote on stderr, shortened.
fn tail_of(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let line = text
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    match line.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_owned(),
    }
}

/// The part of an HTTP transport error a person needs (rmcp's message names its own types).
fn http_reason(message: &str) -> String {
    if let Some((_, rest)) = message.split_once("unexpected server response: ") {
        let reason = rest.split(", when").next().unwrap_or(rest);
        return reason.trim_end_matches([':', ' ']).to_owned();
    }
    if message.contains("error sending request") {
        return "cannot connect".to_owned();
    }
    if let Some((_, rest)) = message.split_once("Unexpected content type: ") {
        let got = rest.split(", when").next().unwrap_or(rest);
        let got = got.trim_start_matches("Some(\"").trim_end_matches("\")");
        return format!("the answer is not MCP: content type {got}");
    }
    // A body (an HTML page, say) is cut: one line a user reads.
    match message.rsplit_once("error: ") {
        Some((_, reason)) => cut(reason, 200),
        None => cut(message, 200),
    }
}

/// Why a server did not initialize, in words a user acts on: rmcp's own text for a transport
/// error names Rust types (`AsyncRwTransport<…LineLimit<ChildStdout>…>`).
fn init_reason(e: &rmcp::service::ClientInitializeError) -> String {
    use rmcp::service::ClientInitializeError as E;
    match e {
        E::TransportError { error, .. } => {
            format!("sending it `initialize` failed: {}", error.error)
        }
        E::ConnectionClosed(_) => "it closed the connection before answering `initialize`".into(),
        E::JsonRpcError(data) => format!(
            "it answered `initialize` with error {}: {}",
            data.code.0,
            cut(&data.message, 200)
        ),
        other => cut(&other.to_string(), 200),
    }
}

/// `text` cut to about `max` characters, at a character boundary.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tasks sniffer reads lines cut anywhere by the reads, and stops at the first
    /// `tools/list` answer: a later answer changes nothing.
    #[test]
    fn the_sniffer_reads_lines_across_reads_and_stops_at_the_first_listing() {
        let seen = Arc::new(Mutex::new(TasksSeen::default()));
        let mut sniffer = Sniffer {
            seen: seen.clone(),
            line: Vec::new(),
            read: 0,
            done: false,
        };
        let text = concat!(
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{}}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","execution":{"taskSupport":"required"}},{"name":"b","execution":{"taskSupport":"optional"}}]}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"c","execution":{"taskSupport":"required"}}]}}"#,
            "\n",
        );
        for chunk in text.as_bytes().chunks(7) {
            sniffer.feed(chunk);
        }
        let seen = seen.lock().unwrap();
        assert!(seen.offered);
        assert_eq!(seen.required_by, ["a"]);
        assert!(sniffer.done);
        assert!(
            seen.clause()
                .contains("1 tool requires a task and will fail: a")
        );
        assert!(TasksSeen::default().clause().is_empty());
    }

    /// Issue 48, item 6: a URL that answers an HTML page gives one short line, not the page.
    #[test]
    fn an_html_body_is_cut_to_one_short_line() {
        let page = format!(
            "Send message error Transport [x] error: <!DOCTYPE html><html>{}</html>",
            "<p>lorem ipsum</p>".repeat(200)
        );
        let reason = http_reason(&page);
        assert!(reason.starts_with("<!DOCTYPE html>"), "{reason}");
        assert!(reason.chars().count() <= 201, "{}", reason.len());
        assert!(reason.ends_with('…'));
        assert_eq!(cut("short", 200), "short");
        assert_eq!(cut("ééé", 2), "éé…");
    }
}
