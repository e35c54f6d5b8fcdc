//! `toolschema lint` / `convert` on a live MCP server: the example server as a child process over
//! stdio and over Streamable HTTP on loopback, paging, and every way a server can fail (exit 2,
//! one line, no hang).

mod common;
use common::server_bin;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn toolschema(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolschema"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The example server serving Streamable HTTP on a free loopback port; killed on drop.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start(extra: &[&str]) -> Self {
        let mut child = Command::new(server_bin())
            .args(["--http", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the example server starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = format!("http://{}/mcp", line.trim());
        HttpServer { child, url }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn tool_names(convert_output: &[u8]) -> Vec<String> {
    let v: Value = serde_json::from_slice(convert_output).expect("JSON on stdout");
    v["tools"]
        .as_array()
        .expect("MCP declarations")
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

const TOOLS: [&str; 4] = [
    "manage_fields",
    "search_entries",
    "tree_size",
    "upsert_entry",
];

#[test]
fn lint_a_server_over_stdio() {
    let server = server_bin();
    let out = toolschema(&["lint", "--server", "--", server.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout)
            .contains("0 error(s), 0 warning(s), 0 stale allow-list entries in 4 tool(s)"),
        "{}",
        text(&out.stdout)
    );
    // What the server published is what `convert` reads: every tool, with its schema.
    let out = toolschema(&[
        "convert",
        "--to",
        "mcp",
        "--server",
        "--",
        server.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let mut names = tool_names(&out.stdout);
    names.sort();
    assert_eq!(names, TOOLS);
}

#[test]
fn every_page_is_read() {
    let server = server_bin();
    // Three pages of 1, 1, 1 and 1 tools: all four are linted and converted.
    let out = toolschema(&[
        "convert",
        "--to",
        "mcp",
        "--server",
        "--",
        server.to_str().unwrap(),
        "--paged",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(tool_names(&out.stdout), TOOLS, "pages in order");
    let http = HttpServer::start(&["--paged", "3"]);
    let out = toolschema(&["convert", "--to", "mcp", "--url", &http.url]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(tool_names(&out.stdout), TOOLS);
}

#[test]
fn lint_and_convert_a_server_over_http() {
    let http = HttpServer::start(&[]);
    let out = toolschema(&[
        "lint",
        "--format",
        "json",
        "--url",
        &http.url,
        "--header",
        "Authorization: Bearer not-a-real-token",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["violations"], serde_json::json!([]));
    let out = toolschema(&["convert", "--to", "gemini", "--url", &http.url]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["functionDeclarations"].as_array().map(Vec::len), Some(4));
}

/// A failing run: exit 2, one line on stderr naming the server and the cause, quickly.
fn fails(args: &[&str], cause: &str) {
    let start = Instant::now();
    let out = toolschema(args);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.starts_with("toolschema: server "), "{stderr}");
    assert!(
        stderr.contains(cause),
        "{args:?}: expected `{cause}` in {stderr}"
    );
    assert!(
        out.stdout.is_empty(),
        "nothing on stdout: {}",
        text(&out.stdout)
    );
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{args:?} took {:?}",
        start.elapsed()
    );
}

#[test]
fn bad_servers_fail_clearly() {
    let server = server_bin();
    let server = server.to_str().unwrap();
    // Exits before answering: its last stderr line is shown.
    fails(
        &[
            "lint",
            "--server",
            "--",
            "sh",
            "-c",
            "echo 'fatal: cannot open the database' >&2; exit 3",
        ],
        "its stderr ends: fatal: cannot open the database",
    );
    // Never answers: the deadline.
    fails(
        &["lint", "--timeout", "1", "--server", "--", "sleep", "60"],
        "no answer within 1 s",
    );
    // Answers with something that is not JSON-RPC, then exits.
    fails(
        &[
            "lint",
            "--server",
            "--",
            "sh",
            "-c",
            "read line; echo '{not json'",
        ],
        "not MCP JSON-RPC",
    );
    // Answers `tools/list` with a JSON-RPC error.
    fails(
        &["lint", "--server", "--", server, "--fail-list"],
        "`tools/list` failed",
    );
    // Cannot be started.
    fails(
        &["lint", "--server", "--", "/nonexistent/server"],
        "cannot start",
    );
    // Nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    fails(
        &["lint", "--url", &format!("http://127.0.0.1:{port}/mcp")],
        "cannot connect",
    );
    // An HTTP endpoint that is not MCP.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let web = std::thread::spawn(move || {
        for stream in listener.incoming().take(4) {
            let Ok(mut stream) = stream else { continue };
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 15\r\nconnection: close\r\n\r\n<html>hi</html>");
        }
    });
    fails(&["lint", "--url", &url], "not MCP: content type text/html");
    drop(web);
    // The example server at a wrong path.
    let http = HttpServer::start(&[]);
    fails(
        &["lint", "--url", &http.url.replace("/mcp", "/nope")],
        "HTTP 404",
    );
}

#[test]
fn a_secret_header_is_never_printed() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let refused = format!("http://127.0.0.1:{port}/mcp");
    // Nothing listens there; then a header whose name is invalid.
    for (url, header) in [
        (refused.as_str(), "Authorization: Bearer s3cr3t-value"),
        ("http://127.0.0.1:9/mcp", "Bad Name: s3cr3t-value"),
    ] {
        let out = toolschema(&["lint", "--url", url, "--header", header]);
        assert_eq!(out.status.code(), Some(2));
        let stderr = text(&out.stderr);
        assert!(!stderr.contains("s3cr3t"), "{stderr}");
    }
}

#[test]
fn the_child_process_is_reaped() {
    // A server that never answers and ignores its closed stdin: after the deadline it is killed,
    // not left running. It writes its pid so the test can look for it.
    let dir = std::env::temp_dir().join(format!("toolschema-reap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pid_file = dir.join("pid");
    let script = format!("echo $$ > {}; exec sleep 60", pid_file.display());
    let out = toolschema(&[
        "lint",
        "--timeout",
        "1",
        "--server",
        "--",
        "sh",
        "-c",
        &script,
    ]);
    assert_eq!(out.status.code(), Some(2));
    let pid = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .to_owned();
    std::thread::sleep(Duration::from_millis(300));
    // Linux: the process is gone (or at worst a zombie awaiting its new parent).
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    assert!(
        status.is_empty() || status.contains("State:\tZ"),
        "the server process {pid} still runs: {status}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The newcomer's server of issue 49: `edit_task` takes an untagged two-object enum allowed with
/// `#[tool_schema(allow_union = …)]`. The derive's allow-list reaches `lint` through the tool's
/// `_meta`; the union is still reported where a provider may flatten it.
#[test]
fn a_union_the_derive_allowed_is_allowed_by_lint_and_reported_for_gemini() {
    let server = server_bin();
    let server = server.to_str().unwrap();
    let out = toolschema(&["lint", "--server", "--", server, "--allowed-union"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout)
            .contains("ok: 0 error(s), 0 warning(s), 0 stale allow-list entries in 2 tool(s)"),
        "{}",
        text(&out.stdout)
    );
    // The same tools as a catalog file, without the `_meta` marker: the union fails, and an
    // allow-list file reaches it by JSON Pointer (the form reports print) or dotted path.
    let out = toolschema(&[
        "convert",
        "--to",
        "mcp",
        "--server",
        "--",
        server,
        "--allowed-union",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let dir = std::env::temp_dir().join(format!("toolschema-allowed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let catalog = dir.join("tools.json");
    std::fs::write(&catalog, &out.stdout).unwrap();
    let catalog = catalog.to_str().unwrap();
    let out = toolschema(&["lint", catalog]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("edit_task: $defs.Change: `anyOf` has 2 structured branches"),
        "{}",
        text(&out.stdout)
    );
    for path in ["/$defs/Change", "$defs.Change"] {
        let allow = dir.join("allow.json");
        let entry = serde_json::json!([{"tool": "edit_task", "path": path,
            "reason": "old clients send both", "issue": "#12"}]);
        std::fs::write(&allow, entry.to_string()).unwrap();
        let out = toolschema(&["lint", "--allow", allow.to_str().unwrap(), catalog]);
        assert_eq!(out.status.code(), Some(0), "{path}: {}", text(&out.stdout));
    }
    // An entry that never matched names the union it may have meant.
    let allow = dir.join("allow.json");
    let entry = serde_json::json!([{"tool": "edit_task", "path": "/$defs/Changes",
        "reason": "old clients send both", "issue": "#12"}]);
    std::fs::write(&allow, entry.to_string()).unwrap();
    let out = toolschema(&["lint", "--allow", allow.to_str().unwrap(), catalog]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains(
            "edit_task: /$defs/Changes: the allow-list entry (#12) matches no structural union; nearest: `/$defs/Change`"
        ),
        "{}",
        text(&out.stdout)
    );
    // Gemini may flatten the union: the report says so, at its place.
    let out = toolschema(&[
        "convert",
        "--to",
        "gemini",
        "--report",
        "--server",
        "--",
        server,
        "--allowed-union",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let converted: Value = serde_json::from_slice(&out.stdout).unwrap();
    let edit = (converted["report"]["tools"].as_array().unwrap().iter())
        .find(|t| t["tool"] == "edit_task")
        .expect("edit_task is reported");
    let union = (edit["losses"].as_array().unwrap().iter())
        .find(|l| l["rule"] == "structural-union-kept")
        .expect("the kept union is a loss");
    assert_eq!(union["pointer"], "/$defs/Change/anyOf");
    // Gemini takes references: the union is sent (and reported) at its definition.
    assert_eq!(union["at"], "/$defs/Change");
    assert_eq!(union["kind"], "collapsed");
    // One tool of the live server, adapted alone: the same schema and losses.
    let out = toolschema(&[
        "adapt",
        "--to",
        "gemini",
        "--report",
        "--tool",
        "edit_task",
        "--server",
        "--",
        server,
        "--allowed-union",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let adapted: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(adapted["losses"], edit["losses"]);
    let declaration = (converted["declarations"]["functionDeclarations"]
        .as_array()
        .unwrap())
    .iter()
    .find(|d| d["name"] == "edit_task")
    .unwrap();
    assert_eq!(adapted["schema"], declaration["parametersJsonSchema"]);
    let _ = std::fs::remove_dir_all(&dir);
}
