//! The proxy with the official MCP Python SDK on both sides (issue 60): `tests/python/map_client.py`
//! lists the tools of `tests/python/map_server.py` (FastMCP, whose tools take a map and any
//! object) through `toolschema proxy --for openai-strict`, sees strict schemas with key/value
//! pairs and JSON text, calls in that form, and checks that the server received the maps it asked
//! for and that a repeated key never reached it.
//!
//! The SDK is installed with pip into a virtualenv under the test's target directory on first use
//! (Python 3 with `venv` is on every machine of this project's kind; PyPI is reachable). Without
//! it the test fails and says so: it never passes without running.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The SDK release the test runs.
const MCP: &str = "mcp==1.27.0";

/// The virtualenv's Python, with the SDK installed: made once per test process (the tests run in
/// parallel threads, and two `python3 -m venv` of one directory at once fail).
fn python() -> PathBuf {
    static PYTHON: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PYTHON.get_or_init(make_python).clone()
}

fn make_python() -> PathBuf {
    let venv = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mcp-python-1.27.0");
    let python = venv.join("bin/python");
    let ready = |p: &Path| {
        p.exists()
            && Command::new(p)
                .args(["-c", "import mcp.client.stdio, mcp.server.fastmcp"])
                .status()
                .is_ok_and(|s| s.success())
    };
    if ready(&python) {
        return python;
    }
    let status = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .unwrap_or_else(|e| {
            panic!("python3 is needed (apt-get install python3 python3-venv): {e}")
        });
    assert!(status.success(), "python3 -m venv failed: {status}");
    let status = Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "--disable-pip-version-check", MCP])
        .status()
        .unwrap();
    assert!(status.success(), "pip install {MCP} failed: {status}");
    assert!(
        ready(&python),
        "the MCP SDK does not import after pip install"
    );
    python
}

/// Runs the client script `tests/python/NAME` against this build of `toolschema`: it must exit 0
/// after exactly `checks` passing checks (it stops at the first failure). Its output and the
/// proxy's standard error, for the test's own assertions.
fn run_client(name: &str, checks: usize) -> (String, String) {
    let client = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/python")
        .join(name);
    let output = Command::new(python())
        .arg(&client)
        .arg(env!("CARGO_BIN_EXE_toolschema"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "{stdout}\n--- stderr ---\n{stderr}"
    );
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("ok: ")).count(),
        checks,
        "{stdout}"
    );
    (stdout, stderr)
}

#[test]
fn the_python_sdk_calls_a_map_tool_strictly_and_the_server_gets_the_map() {
    let (_, stderr) = run_client("map_client.py", 7);
    // The proxy's start-up line counts what it encodes.
    assert!(
        stderr.contains("toolschema proxy (openai-strict): 2 tools, 2 strict, 0 fallback, 0 renamed; losses: 2 widened; 2 places encoded (decoded on each call)"),
        "{stderr}"
    );
}

/// A server with more tools than the target takes (130; OpenAI takes 128): without a choice the
/// proxy ends at start with a line naming the count, the limit and how to choose; with
/// `--tools`/`--exclude` only the chosen tools are listed and callable (`many_tools_client.py`).
#[test]
fn the_python_sdk_sees_only_the_chosen_tools_of_a_server_over_the_limit() {
    let (_, stderr) = run_client("many_tools_client.py", 4);
    assert!(
        stderr.contains("toolschema proxy: openai-strict: 130 tools; the provider takes at most 128 in one request"),
        "{stderr}"
    );
    assert!(
        stderr.contains("toolschema proxy (openai-strict): 109 tools (of the server's 130, chosen by --tools tool_0*,tool_12? --exclude tool_129)"),
        "{stderr}"
    );
}
