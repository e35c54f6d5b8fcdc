//! What the CLI's integration tests share.

use std::path::PathBuf;

/// The example server, built by `cargo test` as this package's example `live_server`.
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
