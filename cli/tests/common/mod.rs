//! What the CLI's integration tests share.

use std::path::PathBuf;

/// The example server, built by `cargo test` as this package's example `live_server`.
#[allow(dead_code)]
pub fn server_bin() -> PathBuf {
    let deps = std::env::current_exe().expect("test binary path");
    let debug = deps.parent().and_then(|p| p.parent()).expect("target dir");
    let bin = debug
        .join("examples")
        .join(format!("live_server{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} is missing: `cargo test -p toolschema-cli` (all targets) builds it, or `cargo build -p toolschema-cli --example live_server`",
        bin.display()
    );
    bin
}

/// Waits (at most 30 s) on `lines`, the JSON-RPC messages a client reads, for the answer to its
/// request `id` (a `method` request, for the message); what else arrives goes into `seen`.
#[allow(dead_code)]
pub fn answer_to(
    lines: &std::sync::mpsc::Receiver<serde_json::Value>,
    id: u64,
    method: &str,
    seen: &mut Vec<serde_json::Value>,
) -> serde_json::Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let message = lines
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no answer to `{method}` within 30 s"));
        if message.get("id") == Some(&serde_json::json!(id)) && message.get("method").is_none() {
            return message;
        }
        seen.push(message);
    }
}

/// What a client lists through the proxy for `target`: each of the server's `tools` with its
/// name and `inputSchema` as the library adapts the whole list, every other field as it was.
#[allow(dead_code)]
pub fn adapted_listing(
    tools: Vec<serde_json::Value>,
    target: toolschema::Target,
) -> Vec<serde_json::Value> {
    let catalog =
        toolschema::catalog::Catalog::from_value(serde_json::json!({ "tools": tools.clone() }))
            .unwrap();
    let converted = toolschema::adapt::convert(&catalog, target);
    tools
        .into_iter()
        .zip(&converted.report.tools)
        .zip(&converted.adapted)
        .map(|((mut tool, entry), adapted)| {
            tool["name"] = serde_json::json!(entry.tool);
            tool["inputSchema"] = adapted.schema.clone();
            tool
        })
        .collect()
}
