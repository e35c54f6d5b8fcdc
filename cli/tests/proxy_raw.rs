//! `toolschema proxy` driven by a client that writes JSON-RPC lines by hand, for what a typed
//! client (rmcp's) never sends: arguments that are not an object, and requests without a
//! progress token (the official Python client's default). The server is the hand-written one of
//! `toolschema_tests::raw_server`, run as the `live_server` example with `--raw`.

mod common;
use common::server_bin;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A proxy process and the lines it writes, read on a thread of their own.
struct Raw {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<Value>,
    next_id: u64,
    /// The answer to `initialize`.
    init: Value,
}

impl Raw {
    /// `toolschema proxy --for mcp EXTRA --server -- live_server --raw`, initialized.
    fn start(extra: &[&str]) -> Raw {
        Raw::start_with(extra, "--raw", Stdio::inherit())
    }

    /// `toolschema proxy --for mcp EXTRA --server -- live_server MODE`, initialized, its
    /// standard error going to `stderr`.
    fn start_with(extra: &[&str], mode: &str, stderr: Stdio) -> Raw {
        let server = server_bin();
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolschema"))
            .args(["proxy", "--for", "mcp"])
            .args(extra)
            .args(["--server", "--", server.to_str().unwrap(), mode])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("the proxy starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Ok(value) = serde_json::from_str(&line) {
                    if tx.send(value).is_err() {
                        break;
                    }
                }
            }
        });
        let mut raw = Raw {
            child,
            stdin,
            lines,
            next_id: 0,
            init: Value::Null,
        };
        let init = raw.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "0"}}),
        );
        assert!(init.get("result").is_some(), "{init}");
        raw.init = init;
        raw.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        raw
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and waits (at most 30 s) for its response; what arrives meanwhile (the
    /// server's notifications) is collected into `seen`.
    fn request_seeing(&mut self, method: &str, params: Value, seen: &mut Vec<Value>) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        common::answer_to(&self.lines, id, method, seen)
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.request_seeing(method, params, &mut Vec::new())
    }

    /// How many calls of the server's other tools reached it.
    fn calls_seen_by_server(&mut self) -> u64 {
        let answer = self.request("tools/call", json!({"name": "calls", "arguments": {}}));
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned();
        text.parse().unwrap()
    }
}

impl Raw {
    /// Ends the proxy and reads what it wrote on standard error (started with it piped).
    fn stop_and_read_stderr(&mut self) -> String {
        use std::io::Read;
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut stderr = String::new();
        if let Some(mut pipe) = self.child.stderr.take() {
            pipe.read_to_string(&mut stderr).unwrap();
        }
        stderr
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Issue 48, item 2: `arguments` that are not an object are an invalid call, refused as every
/// other invalid call is (`isError: true`, words the model reads) and never forwarded.
#[test]
fn arguments_that_are_not_an_object_are_refused_not_forwarded() {
    let mut raw = Raw::start(&[]);
    let listed = raw.request("tools/list", json!({}));
    assert!(listed["result"]["tools"].as_array().is_some(), "{listed}");
    for arguments in [json!("notanobject"), json!([1, 2]), json!(3), json!(true)] {
        let answer = raw.request(
            "tools/call",
            json!({"name": "draw", "arguments": arguments}),
        );
        assert_eq!(
            answer["result"]["isError"],
            json!(true),
            "{arguments}: {answer}"
        );
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(
            text.contains("`draw` was not called") && text.contains("arguments must be an object"),
            "{arguments}: {text}"
        );
    }
    assert_eq!(raw.calls_seen_by_server(), 0);
    // Null arguments are no arguments: forwarded (this tool needs none).
    let answer = raw.request("tools/call", json!({"name": "progress", "arguments": null}));
    assert_ne!(answer["result"]["isError"], json!(true), "{answer}");
    assert_eq!(raw.calls_seen_by_server(), 1);
}

/// Issue 48, item 4: progress the client did not ask for (no `progressToken` in its request) does
/// not keep a call alive past `--timeout`, and is not passed to the client.
#[test]
fn unasked_progress_does_not_reset_the_timeout() {
    let mut raw = Raw::start(&["--timeout", "2"]);
    let start = Instant::now();
    let mut seen = Vec::new();
    let answer = raw.request_seeing(
        "tools/call",
        json!({"name": "slow", "arguments": {"seconds": 6}}),
        &mut seen,
    );
    let elapsed = start.elapsed();
    assert!(answer.get("error").is_some(), "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("did not answer within 2 s")),
        "{answer}"
    );
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    assert!(
        seen.iter()
            .all(|m| m["method"] != json!("notifications/progress")),
        "{seen:?}"
    );
    // Asked for, progress keeps the call alive, and reaches the client under its own token.
    let mut seen = Vec::new();
    let answer = raw.request_seeing(
        "tools/call",
        json!({"name": "slow", "arguments": {"seconds": 3}, "_meta": {"progressToken": "mine"}}),
        &mut seen,
    );
    assert_eq!(answer["result"]["isError"], json!(false), "{answer}");
    assert!(
        seen.iter()
            .any(|m| m["method"] == json!("notifications/progress")
                && m["params"]["progressToken"] == json!("mine")),
        "{seen:?}"
    );
}

/// Issue 59, item 2: over stdio the proxy relays JSON-RPC as written, so MCP tasks in the
/// 2025-11-25 form pass (rmcp 3.11 has no types for them): the `tasks` capability, a tool's
/// `execution`, a call's `task` and the task the server answers with reach the other side as
/// the server or client wrote them, and the start-up line says nothing of tasks.
#[test]
fn tasks_in_the_2025_11_25_form_pass_through_over_stdio() {
    let mut raw = Raw::start_with(&[], "--tasks-2025", Stdio::piped());
    let listed = raw.request("tools/list", json!({}));
    // The whole tool as the server wrote it (its schema is valid for MCP as it is).
    assert_eq!(
        listed["result"],
        json!({"tools": [{
            "name": "export",
            "description": "Export the database (long-running: run it as a task).",
            "inputSchema": {"type": "object", "properties": {"table": {"type": "string"}}},
            "execution": {"taskSupport": "required"}
        }]}),
        "{listed}"
    );
    let answer = raw.request(
        "tools/call",
        json!({"name": "export", "arguments": {"table": "users"}, "task": {"ttl": 60000}}),
    );
    assert_eq!(answer["result"]["task"]["taskId"], json!("t1"), "{answer}");
    assert_eq!(
        answer["result"]["task"]["status"],
        json!("working"),
        "{answer}"
    );
    let stderr = raw.stop_and_read_stderr();
    let line = stderr
        .lines()
        .find(|l| l.starts_with("toolschema proxy (mcp): 1 tools"))
        .unwrap_or_else(|| panic!("no start-up line in {stderr:?}"));
    assert!(!line.contains("tasks"), "{line}");
}

/// The server's `initialize` answer reaches the client whole: its `tasks` capability too.
#[test]
fn the_initialize_answer_passes_whole() {
    let mut raw = Raw::start_with(&[], "--tasks-2025", Stdio::piped());
    assert_eq!(
        raw.init["result"]["capabilities"],
        json!({"tools": {}, "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}),
        "{}",
        raw.init
    );
    let _ = raw.stop_and_read_stderr();
}

/// A server without tasks gets no such clause.
#[test]
fn a_server_without_tasks_gets_no_tasks_clause() {
    let mut raw = Raw::start_with(&[], "--raw", Stdio::piped());
    let _ = raw.request("tools/list", json!({}));
    let stderr = raw.stop_and_read_stderr();
    let line = stderr
        .lines()
        .find(|l| l.starts_with("toolschema proxy (mcp): "))
        .unwrap_or_else(|| panic!("no start-up line in {stderr:?}"));
    assert!(!line.contains("tasks"), "{line}");
}

/// Issue 63, item 4: an allowed union is published in the tool's `_meta` with the derive's
/// reason and the issue reference that reason names, never a Rust path. Read whole as a client
/// receives it (the stdio relay passes `_meta` as the server wrote it).
#[test]
fn allowed_unions_are_published_with_their_reason_and_issue() {
    let mut raw = Raw::start_with(&[], "--allowed-union", Stdio::piped());
    let listed = raw.request("tools/list", json!({}));
    let edit = (listed["result"]["tools"].as_array().unwrap().iter())
        .find(|t| t["name"] == json!("edit_task"))
        .unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(
        edit["_meta"],
        json!({"toolschema/allowedUnions": [{
            "path": "/$defs/Change",
            "reason": "old clients send both shapes; splitting it is tracked in #12",
            "issue": "#12"
        }]}),
        "{edit}"
    );
    let _ = raw.stop_and_read_stderr();
}
