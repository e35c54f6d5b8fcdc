//! The proxy between a client and a server that both speak MCP over stdio (`--server`, served on
//! stdio): a relay of JSON-RPC messages, not of rmcp's typed model, so that nothing the proxy
//! does not rewrite is lost (MCP tasks in the 2025-11-25 form, and every field a later revision
//! adds).
//!
//! Every line either side writes reaches the other side byte for byte, except:
//! - `tools/list` from the client: answered by the proxy from its own listing of the server
//!   (every page, under ids of its own), each tool as the server wrote it but for `name` and
//!   `inputSchema` ([`Published`]);
//! - the server's answer to `initialize`, held until that listing is done: the proxy says
//!   `notifications/initialized` to the server itself at that point, so the client's own is not
//!   passed on (the server hears it once);
//! - `tools/call` from the client: the arguments restored and validated against the server's
//!   own schema and the name mapped back, every other field of the request kept; a call the
//!   checks refuse is answered by the proxy with a tool error and never reaches the server;
//! - the answers to the proxy's own `tools/list` requests, which stay with the proxy;
//! - a line from the server that is not JSON (not MCP; a client may stop at it);
//! - `notifications/tools/list_changed` from the server: passed on once the proxy has listed the
//!   tools again, so that the client's next `tools/list` gets them.
//!
//! The proxy's own request ids are strings starting with [`OWN_ID`]; a client that used such ids
//! itself would have its answers taken (none is known to). A line over `--max-message` is
//! replaced as [`limit`](super::limit) says. A client request the server has not answered within
//! `--timeout` (reset by progress under its token) gets an error, and the server a
//! `notifications/cancelled`; when the server goes, every request waiting for it gets an error.

use std::collections::{HashMap, VecDeque};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::Options;
use super::limit::{LineLimit, OVERSIZED};
use super::tools::{Call, Published, unreadable_call};

/// The prefix of the ids of the requests the proxy itself sends the server.
pub const OWN_ID: &str = "toolschema-proxy/";

/// What one of the relay's readers saw.
enum Event {
    Client(Vec<u8>),
    ClientClosed,
    Server(Vec<u8>),
    ServerClosed,
}

/// The relay's state: what is published, and what waits for it.
struct Relay {
    options: Arc<Options>,
    to_client: mpsc::UnboundedSender<Vec<u8>>,
    to_server: mpsc::UnboundedSender<Vec<u8>>,
    published: Option<Arc<Published>>,
    /// The listing in progress: the id of the page asked for and the tools so far.
    listing: Option<(String, Vec<Value>)>,
    /// A listing asked for while one was in progress (a `list_changed` during a listing).
    relist: bool,
    /// A `list_changed` to pass on once the listing in progress is done.
    changed: Option<Vec<u8>>,
    /// Client requests for the tools that came before the first listing was done.
    held: VecDeque<Value>,
    next_id: u64,
    /// Why the last listing failed: the error the requests held for it get.
    failed: Option<String>,
    /// The client's requests the server has not answered yet, by id.
    pending: HashMap<String, Pending>,
    /// The id of the client's `initialize`, until the server answers it.
    initializing: Option<String>,
    /// The server answered `initialize`.
    initialized: bool,
    /// The server's answer to `initialize`, held until the first listing is done (so that the
    /// start-up line and the report come first, and the client's first `tools/list` is
    /// answered at once).
    init_answer: Option<Vec<u8>>,
    /// When the listing in progress is given up.
    listing_deadline: Option<Instant>,
    /// The server went before any request reached it: the reason, for the client's first one.
    gone_before: Option<String>,
}

/// A client request sent on to the server.
struct Pending {
    id: Value,
    /// The progress token it carries (`params._meta.progressToken`), as JSON text: progress
    /// under it gives the server more time.
    token: Option<String>,
    deadline: Instant,
}

/// A JSON-RPC id (or progress token) as a key.
fn key(id: &Value) -> String {
    id.to_string()
}

/// Runs the relay until the client leaves (exit 0) or the server goes (exit 1); 2 when the
/// server cannot be started.
pub async fn run(options: Arc<Options>, argv: &[String]) -> u8 {
    let Some((program, args)) = argv.split_first() else {
        eprintln!("toolschema proxy: no server command after `--`");
        return 2;
    };
    let mut child = match tokio::process::Command::new(program)
        .args(args)
        .envs(options.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            let why = format!("cannot start `{program}`: {e}");
            eprintln!("toolschema proxy: {why}");
            refuse_first_request(&options, &why).await;
            return 2;
        }
    };
    let (Some(server_out), Some(mut server_in)) = (child.stdout.take(), child.stdin.take()) else {
        eprintln!("toolschema proxy: cannot talk to `{program}`: no pipes");
        return 2;
    };
    let (events, mut incoming) = mpsc::unbounded_channel();
    read_lines(
        LineLimit::new(tokio::io::stdin(), options.max_message, "the client"),
        events.clone(),
        Event::Client,
        Event::ClientClosed,
    );
    read_lines(
        LineLimit::new(server_out, options.max_message, "the server"),
        events,
        Event::Server,
        Event::ServerClosed,
    );
    let (to_client, mut client_lines) = mpsc::unbounded_channel::<Vec<u8>>();
    let client_writer = tokio::spawn(async move {
        let mut out = tokio::io::stdout();
        while let Some(line) = client_lines.recv().await {
            if out.write_all(&line).await.is_err() || out.flush().await.is_err() {
                break;
            }
        }
    });
    let (to_server, mut server_lines) = mpsc::unbounded_channel::<Vec<u8>>();
    let server_writer = tokio::spawn(async move {
        while let Some(line) = server_lines.recv().await {
            if server_in.write_all(&line).await.is_err() || server_in.flush().await.is_err() {
                break;
            }
        }
        // The client left (or the server did): the server's input is closed, so it may leave.
        drop(server_in);
    });
    let mut relay = Relay {
        options: options.clone(),
        to_client,
        to_server,
        published: None,
        listing: None,
        relist: false,
        changed: None,
        held: VecDeque::new(),
        next_id: 0,
        failed: None,
        pending: HashMap::new(),
        initializing: None,
        initialized: false,
        init_answer: None,
        listing_deadline: None,
        gone_before: None,
    };
    let code = loop {
        let deadline = (relay.pending.values().map(|p| p.deadline))
            .chain(relay.listing_deadline)
            .min();
        let event = tokio::select! {
            event = incoming.recv() => event,
            () = sleep_until(deadline) => {
                relay.time_out();
                continue;
            }
        };
        match event {
            Some(Event::Client(line)) => relay.client_wrote(line),
            Some(Event::Server(line)) => relay.server_wrote(line),
            Some(Event::ClientClosed) | None => break 0,
            Some(Event::ServerClosed) => {
                let code = relay.server_gone();
                relay.answer_late_initialize(&mut incoming).await;
                break code;
            }
        }
    };
    // What is queued for the client reaches it; the server gets no more input, and what it
    // still writes is read (and dropped) until it exits, so it never writes into a closed pipe.
    let Relay {
        to_client,
        to_server,
        ..
    } = relay;
    drop(to_server);
    drop(to_client);
    let _ = tokio::time::timeout(Duration::from_secs(2), client_writer).await;
    let _ = server_writer.await;
    let drained = async {
        while let Some(event) = incoming.recv().await {
            if matches!(event, Event::ServerClosed) {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(2), drained).await;
    if tokio::time::timeout(Duration::from_secs(2), child.wait())
        .await
        .is_err()
    {
        let _ = child.kill().await;
    }
    code
}

/// Reads whole lines from `reader` on a task of its own, each sent as `line(bytes)`, then
/// `closed` at the end (or on a read error).
fn read_lines<R: AsyncRead + Unpin + Send + 'static>(
    reader: R,
    events: mpsc::UnboundedSender<Event>,
    line: fn(Vec<u8>) -> Event,
    closed: Event,
) {
    tokio::spawn(async move {
        let mut reader = BufReader::new(reader);
        loop {
            let mut bytes = Vec::new();
            match reader.read_until(b'\n', &mut bytes).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if !bytes.ends_with(b"\n") {
                        bytes.push(b'\n');
                    }
                    if events.send(line(bytes)).is_err() {
                        return;
                    }
                }
            }
        }
        let _ = events.send(closed);
    });
}

/// Sleeps until `deadline`, or for ever without one.
async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// The server could not be started: the client's first request (its `initialize`) gets the
/// reason as its error, so the client says what happened too.
async fn refuse_first_request(options: &Options, why: &str) {
    let mut stdin = BufReader::new(LineLimit::new(
        tokio::io::stdin(),
        options.max_message,
        "the client",
    ));
    let mut line = Vec::new();
    let read = tokio::time::timeout(options.timeout, stdin.read_until(b'\n', &mut line)).await;
    if !matches!(read, Ok(Ok(n)) if n > 0) {
        return;
    }
    let Ok(message) = serde_json::from_slice::<Value>(&line) else {
        return;
    };
    if let (Some(id), Some(_)) = (message.get("id"), message.get("method")) {
        let mut out = tokio::io::stdout();
        let _ = out
            .write_all(&line_of(&error(id, INTERNAL_ERROR, why)))
            .await;
        let _ = out.flush().await;
    }
}

/// A JSON-RPC message as one line.
fn line_of(message: &Value) -> Vec<u8> {
    let mut text = serde_json::to_vec(message).expect("a Value prints");
    text.push(b'\n');
    text
}

fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn error(id: &Value, code: i64, message: impl Into<String>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message.into()}})
}

/// JSON-RPC's "invalid params" and "internal error" codes.
const INVALID_PARAMS: i64 = -32602;
const INVALID_REQUEST: i64 = -32600;
const INTERNAL_ERROR: i64 = -32603;

impl Relay {
    fn client_wrote(&mut self, line: Vec<u8>) {
        let Ok(message) = serde_json::from_slice::<Value>(&line) else {
            // Not JSON: the server answers it as it answers any parse error.
            let _ = self.to_server.send(line);
            return;
        };
        let method = message.get("method").and_then(Value::as_str);
        let is_request = message.get("id").is_some();
        match (method, is_request) {
            (Some("tools/list" | "tools/call"), true) => {
                if self.published.is_some() {
                    self.answer_tools(message);
                } else {
                    // Answered when the listing is done; one that failed is tried again.
                    self.held.push_back(message);
                    if self.listing.is_none() {
                        self.list();
                    }
                }
            }
            (Some(OVERSIZED), true) => {
                let id = message.get("id").cloned().unwrap_or(Value::Null);
                let text = format!(
                    "the request is over the proxy's --max-message limit of {} bytes and was not read",
                    self.options.max_message
                );
                let _ = self
                    .to_client
                    .send(line_of(&error(&id, INVALID_REQUEST, text)));
            }
            // Said to the server already, when it answered `initialize`.
            (Some("notifications/initialized"), false) if self.initialized => {}
            (Some(method), true) => {
                if method == "initialize" {
                    self.initializing = message.get("id").map(key);
                }
                self.forwarded(&message);
                let _ = self.to_server.send(line);
            }
            _ => {
                let _ = self.to_server.send(line);
            }
        }
    }

    /// Notes a client request sent on: the server has `--timeout` to answer it.
    fn forwarded(&mut self, request: &Value) {
        let Some(id) = request.get("id") else { return };
        let token = request.pointer("/params/_meta/progressToken").map(key);
        self.pending.insert(
            key(id),
            Pending {
                id: id.clone(),
                token,
                deadline: Instant::now() + self.options.timeout,
            },
        );
    }

    /// The server went before the client's first request reached it: the first request that
    /// comes within two seconds gets the reason as its error.
    async fn answer_late_initialize(&mut self, incoming: &mut mpsc::UnboundedReceiver<Event>) {
        let Some(why) = self.gone_before.take() else {
            return;
        };
        let wait = async {
            while let Some(event) = incoming.recv().await {
                match event {
                    Event::Client(line) => {
                        let Ok(message) = serde_json::from_slice::<Value>(&line) else {
                            continue;
                        };
                        if let (Some(id), Some(_)) = (message.get("id"), message.get("method")) {
                            let answer = error(id, INTERNAL_ERROR, &why);
                            let _ = self.to_client.send(line_of(&answer));
                            return;
                        }
                    }
                    Event::ClientClosed => return,
                    _ => {}
                }
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(2), wait).await;
    }

    /// Each request past its deadline gets an error, and the server a cancellation; a listing
    /// past its deadline fails.
    fn time_out(&mut self) {
        let now = Instant::now();
        if self.listing_deadline.is_some_and(|d| d <= now) {
            self.listing = None;
            self.listing_deadline = None;
            self.relist = false;
            self.publish(Err("`tools/list` got no answer in time".to_owned()));
        }
        let late: Vec<String> = (self.pending.iter())
            .filter(|(_, p)| p.deadline <= now)
            .map(|(k, _)| k.clone())
            .collect();
        for k in late {
            let Some(pending) = self.pending.remove(&k) else {
                continue;
            };
            let why = format!(
                "{} did not answer within {} s",
                self.options.server.name(),
                self.options.timeout.as_secs()
            );
            let _ = self
                .to_client
                .send(line_of(&error(&pending.id, INTERNAL_ERROR, &why)));
            let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": pending.id, "reason": why}});
            let _ = self.to_server.send(line_of(&cancel));
        }
    }

    /// The server closed its output: every request waiting for it gets an error. Exit 2 when it
    /// never answered `initialize`, else 1.
    fn server_gone(&mut self) -> u8 {
        let name = self.options.server.name();
        if !self.initialized {
            let why = format!(
                "{name}: did not initialize as an MCP server: it exited, closed its output or wrote something that is not MCP JSON-RPC"
            );
            eprintln!("toolschema proxy: {why}");
            if self.pending.is_empty() {
                // Gone before the client's `initialize` reached it: kept for that request.
                self.gone_before = Some(why.clone());
            }
            for (_, pending) in self.pending.drain() {
                let _ = self
                    .to_client
                    .send(line_of(&error(&pending.id, INTERNAL_ERROR, &why)));
            }
            return 2;
        }
        eprintln!("toolschema proxy: {name} closed the connection");
        let why = format!("{name} is gone (it closed the connection)");
        for (_, pending) in self.pending.drain() {
            let _ = self
                .to_client
                .send(line_of(&error(&pending.id, INTERNAL_ERROR, &why)));
        }
        for request in std::mem::take(&mut self.held) {
            let id = request.get("id").cloned().unwrap_or(Value::Null);
            let _ = self
                .to_client
                .send(line_of(&error(&id, INTERNAL_ERROR, &why)));
        }
        1
    }

    fn server_wrote(&mut self, line: Vec<u8>) {
        // What is not JSON is not MCP: not passed on (a client may stop at it).
        let Ok(message) = serde_json::from_slice::<Value>(&line) else {
            return;
        };
        let method = message.get("method").and_then(Value::as_str);
        if let (None, Some(id)) = (method, message.get("id")) {
            let id = key(id);
            self.pending.remove(&id);
            if self.initializing.as_ref() == Some(&id) {
                self.initializing = None;
                self.initialized = message.get("result").is_some();
                if self.initialized {
                    // The proxy says `initialized` for the client (whose own is then not
                    // passed on: the server hears it once) and lists the tools first.
                    let initialized =
                        json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
                    let _ = self.to_server.send(line_of(&initialized));
                    self.init_answer = Some(line);
                    self.list();
                    return;
                }
            }
        }
        if method == Some("notifications/progress") {
            if let Some(token) = message.pointer("/params/progressToken").map(key) {
                let deadline = Instant::now() + self.options.timeout;
                for pending in self.pending.values_mut() {
                    if pending.token.as_ref() == Some(&token) {
                        pending.deadline = deadline;
                    }
                }
            }
        }
        let own = message
            .get("id")
            .and_then(Value::as_str)
            .is_some_and(|id| id.starts_with(OWN_ID))
            && message.get("method").is_none();
        if own {
            self.listed(message);
            return;
        }
        if message.get("method").and_then(Value::as_str) == Some("notifications/tools/list_changed")
        {
            // Passed on once the tools are listed again.
            self.changed = Some(line);
            if self.listing.is_some() {
                self.relist = true;
            } else {
                self.list();
            }
            return;
        }
        let _ = self.to_client.send(line);
    }

    /// Asks the server for the first page of its tools.
    fn list(&mut self) {
        self.ask(None, Vec::new());
    }

    fn ask(&mut self, cursor: Option<Value>, so_far: Vec<Value>) {
        self.next_id += 1;
        let id = format!("{OWN_ID}{}", self.next_id);
        let params = match cursor {
            Some(cursor) => json!({ "cursor": cursor }),
            None => json!({}),
        };
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params});
        self.listing = Some((id, so_far));
        self.listing_deadline = Some(Instant::now() + self.options.timeout);
        let _ = self.to_server.send(line_of(&request));
    }

    /// One page of the proxy's own listing arrived.
    fn listed(&mut self, message: Value) {
        let Some((id, mut tools)) = self.listing.take() else {
            return;
        };
        if message.get("id").and_then(Value::as_str) != Some(id.as_str()) {
            self.listing = Some((id, tools));
            return;
        }
        self.listing_deadline = None;
        let outcome = match (message.get("result"), message.get("error")) {
            (Some(result), _) => {
                if let Some(Value::Array(page)) = result.get("tools") {
                    tools.extend(page.iter().cloned());
                }
                if let Some(cursor) = result.get("nextCursor").filter(|c| !c.is_null()) {
                    self.ask(Some(cursor.clone()), tools);
                    return;
                }
                Published::from_json(tools, &self.options.settings, &self.options.choose)
            }
            (None, Some(e)) => Err(format!("`tools/list` failed: {e}")),
            (None, None) => Err("`tools/list` got an answer with no result".to_owned()),
        };
        self.publish(outcome);
    }

    /// The listing is done (or failed): published, then what waited for it is answered.
    fn publish(&mut self, outcome: Result<Published, String>) {
        match outcome {
            Ok(published) => {
                published.exit_over_limit(self.options.settings.target);
                let options = &self.options;
                let report = options.report.as_deref();
                if let Err(e) = published.announce(options.settings.target, "", report) {
                    eprintln!("toolschema proxy: {e}");
                }
                self.published = Some(Arc::new(published));
                self.failed = None;
            }
            Err(e) => {
                eprintln!("toolschema proxy: {e}");
                self.failed = Some(e);
            }
        }
        if std::mem::take(&mut self.relist) {
            self.list();
            return;
        }
        if let Some(answer) = self.init_answer.take() {
            let _ = self.to_client.send(answer);
        }
        if let Some(changed) = self.changed.take() {
            let _ = self.to_client.send(changed);
        }
        while let Some(request) = self.held.pop_front() {
            self.answer_tools(request);
        }
    }

    /// Answers `tools/list`, or sends `tools/call` on (restored) or answers it (refused).
    fn answer_tools(&mut self, request: Value) {
        let id = request.get("id").cloned().unwrap_or(Value::Null);
        let Some(published) = self.published.clone() else {
            let why = self.failed.clone().unwrap_or_default();
            let _ = self
                .to_client
                .send(line_of(&error(&id, INTERNAL_ERROR, why)));
            return;
        };
        let params = request.get("params").cloned().unwrap_or(Value::Null);
        if request.get("method").and_then(Value::as_str) == Some("tools/list") {
            let answer = if params.get("cursor").is_some_and(|c| !c.is_null()) {
                error(
                    &id,
                    INVALID_PARAMS,
                    "unknown cursor: the proxy lists every tool in one page",
                )
            } else {
                result(&id, json!({ "tools": published.tools }))
            };
            let _ = self.to_client.send(line_of(&answer));
            return;
        }
        let name = params.get("name").and_then(Value::as_str);
        let arguments = match params.get("arguments") {
            None | Some(Value::Null) => Some(None),
            Some(Value::Object(map)) => Some(Some(map.clone())),
            Some(_) => None,
        };
        let (Some(name), Some(arguments)) = (name, arguments) else {
            let refusal = serde_json::to_value(unreadable_call(&params)).unwrap_or_default();
            let _ = self.to_client.send(line_of(&result(&id, refusal)));
            return;
        };
        match published.call(name, arguments) {
            Call::Forward(upstream, arguments) => {
                let mut request = request;
                if let Some(Value::Object(params)) = request.get_mut("params") {
                    params.insert("name".into(), Value::String(upstream));
                    match arguments {
                        Some(arguments) => {
                            params.insert("arguments".into(), Value::Object(arguments));
                        }
                        None => {
                            params.remove("arguments");
                        }
                    }
                }
                self.forwarded(&request);
                let _ = self.to_server.send(line_of(&request));
            }
            Call::Refuse(refusal) => {
                let refusal = serde_json::to_value(refusal).unwrap_or_default();
                let _ = self.to_client.send(line_of(&result(&id, refusal)));
            }
            // Not a published tool: the server answers for itself.
            Call::Unknown => {
                self.forwarded(&request);
                let _ = self.to_server.send(line_of(&request));
            }
        }
    }
}
