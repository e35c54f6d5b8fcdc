//! The proxy in front of the reference MCP server, `@modelcontextprotocol/server-everything`
//! (npm, pinned to [`VERSION`], which speaks MCP tasks in the 2025-11-25 form), over stdio,
//! compared with the same server reached directly by the same client: a JSON-RPC client written
//! here line by line, since rmcp 3.11 has no types for those tasks (issue 59, item 2).
//!
//! The server is installed with npm under the test's target directory on first use (Node.js and
//! npm are on every machine of this project's kind; the registry is reachable). Without them the
//! test fails and says how to install them: it never passes without running.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

mod common;

use serde_json::{Value, json};
use toolschema::Target;

/// The server-everything release the test runs.
const VERSION: &str = "2026.8.31";

/// The server's entry point, installed on first use.
fn everything() -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("server-everything-{VERSION}"));
    let entry = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if entry.exists() {
        return entry;
    }
    std::fs::create_dir_all(&dir).unwrap();
    let status = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&dir)
        .arg(format!("@modelcontextprotocol/server-everything@{VERSION}"))
        .stdout(Stdio::null())
        .status()
        .unwrap_or_else(|e| {
            panic!(
                "npm is needed to install the reference server (apt-get install nodejs npm): {e}"
            )
        });
    assert!(status.success(), "npm install failed: {status}");
    assert!(
        entry.exists(),
        "{} is missing after npm install",
        entry.display()
    );
    entry
}

/// A client of one MCP server over stdio, writing and reading JSON-RPC lines.
struct Client {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<Value>,
    next_id: u64,
}

impl Client {
    fn start(program: &str, args: &[&str]) -> Client {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{program}: {e}"));
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not JSON from the server side ({e}): {line}"));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        Client {
            child,
            stdin,
            lines,
            next_id: 0,
        }
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and waits (at most 30 s) for its answer, passing over what else comes.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        common::answer_to(&self.lines, id, method, &mut Vec::new())
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What one session sees: the `initialize` result, the tools, and a task-augmented call of
/// `simulate-research-query` followed to its end (its last status and `tasks/result`).
struct Session {
    initialized: Value,
    tools: Vec<Value>,
    status: Value,
    outcome: Value,
}

fn session(client: &mut Client) -> Session {
    let init = client.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25",
               "capabilities": {"tasks": {"list": {}, "cancel": {}}},
               "clientInfo": {"name": "toolschema-test", "version": "0"}}),
    );
    let initialized = init["result"].clone();
    assert!(initialized.is_object(), "{init}");
    client.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let listed = client.request("tools/list", json!({}));
    let tools = listed["result"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let call = client.request(
        "tools/call",
        json!({"name": "simulate-research-query", "arguments": {"topic": "tides"},
               "task": {"ttl": 60000}}),
    );
    let task = call["result"]["task"]["taskId"].clone();
    assert!(task.is_string(), "no task for the call: {call}");
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        let got = client.request("tasks/get", json!({"taskId": task}));
        let status = got["result"]["status"].clone();
        if status != json!("working") || Instant::now() > deadline {
            break status;
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    let outcome = client.request("tasks/result", json!({"taskId": task}));
    Session {
        initialized,
        tools,
        status,
        outcome: outcome["result"].clone(),
    }
}

/// The client sees the same `tasks` capability (the whole `initialize` result) and the same
/// tools but for each schema, which is the library's adaptation; a task-augmented call
/// completes through the proxy as it does directly.
#[test]
fn the_reference_server_through_the_proxy_keeps_tasks() {
    let server = everything();
    let server = server.to_str().unwrap();
    let mut direct = Client::start("node", &[server, "stdio"]);
    let direct = session(&mut direct);
    let mut proxied = Client::start(
        env!("CARGO_BIN_EXE_toolschema"),
        &[
            "proxy",
            "--for",
            "openai-strict",
            "--server",
            "--",
            "node",
            server,
            "stdio",
        ],
    );
    let proxied = session(&mut proxied);

    assert!(
        direct.initialized["capabilities"]["tasks"].is_object(),
        "the reference server no longer offers tasks: {}",
        direct.initialized
    );
    assert_eq!(proxied.initialized, direct.initialized);

    let expected = common::adapted_listing(direct.tools.clone(), Target::OpenAiStrict);
    assert_eq!(proxied.tools, expected);
    let required: Vec<&Value> = (proxied.tools.iter())
        .filter(|t| t["execution"]["taskSupport"] == json!("required"))
        .map(|t| &t["name"])
        .collect();
    assert_eq!(required, [&json!("simulate-research-query")]);

    assert_eq!(direct.status, json!("completed"));
    assert_eq!(proxied.status, json!("completed"));
    let text = |s: &Session| s.outcome["content"][0]["text"].as_str().map(str::to_owned);
    assert!(
        text(&proxied).is_some_and(|t| t.contains("Research Report: tides")),
        "{}",
        proxied.outcome
    );
    assert_eq!(text(&proxied), text(&direct));
}
