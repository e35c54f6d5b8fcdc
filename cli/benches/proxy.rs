//! What `toolschema proxy` adds: the example server (the CLI's example `live_server`) called
//! directly and through the proxy, both as child processes over stdio, in the same run.
//!
//! `cargo build --release -p toolschema-cli --example live_server && cargo bench -p toolschema-cli --bench proxy`
//!
//! Prints the proxy's resident memory at idle (after initialize and one listing) first.

use std::path::PathBuf;
use std::process::Stdio;

use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;

fn server_bin() -> PathBuf {
    let exe = std::env::current_exe().expect("bench path");
    let profile = exe.parent().and_then(|p| p.parent()).expect("target dir");
    let bin = profile.join("examples").join("live_server");
    assert!(
        bin.exists(),
        "{} is missing: run `cargo build --release -p toolschema-cli --example live_server` first",
        bin.display()
    );
    bin
}

async fn client(proxied: Option<&str>) -> (RunningService<RoleClient, ()>, tokio::process::Child) {
    let mut command = match proxied {
        Some(target) => {
            let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolschema"));
            c.args(["proxy", "--for", target, "--server", "--"])
                .arg(server_bin());
            c
        }
        None => tokio::process::Command::new(server_bin()),
    };
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let mut child = command.spawn().expect("starts");
    let transport = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
    let client = ().serve(transport).await.expect("initializes");
    (client, child)
}

fn resident_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let call = CallToolRequestParams::new("search_entries").with_arguments(
        json!({"query": "a", "limit": 5})
            .as_object()
            .unwrap()
            .clone(),
    );
    for (name, proxied) in [
        ("direct", None),
        ("proxied-openai-strict", Some("openai-strict")),
    ] {
        let (client, child) = rt.block_on(client(proxied));
        if proxied.is_some() {
            rt.block_on(async {
                client.list_all_tools().await.unwrap();
                tokio::time::sleep(std::time::Duration::from_millis(500)).await;
            });
            if let Some(kib) = child.id().and_then(resident_kib) {
                eprintln!("proxy resident memory at idle: {} KiB", kib);
            }
        }
        c.bench_function(&format!("call/{name}"), |b| {
            b.iter(|| rt.block_on(client.call_tool(call.clone())).unwrap())
        });
        c.bench_function(&format!("tools-list/{name}"), |b| {
            b.iter(|| rt.block_on(client.list_all_tools()).unwrap())
        });
        rt.block_on(async {
            let _ = client.cancel().await;
        });
        drop(child);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
