//! The README's second quick start, "Call providers directly" (`examples/direct.rs`, built by
//! `cargo test`): what it prints is checked whole, and each request's tools equal what
//! `toolschema convert --to T` writes for the same tools.

use std::process::Command;

use serde_json::Value;

#[path = "../examples/direct.rs"]
#[allow(dead_code)]
mod direct;

/// The example's output: its three request bodies, then its lines about the calls.
fn run_example() -> (Vec<Value>, String) {
    let deps = std::env::current_exe().expect("test binary path");
    let debug = deps.parent().and_then(|p| p.parent()).expect("target dir");
    let bin = (debug.join("examples")).join(format!("direct{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} is missing: `cargo test -p toolschema-cli` (all targets) builds it",
        bin.display()
    );
    let out = Command::new(bin).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut stream = serde_json::Deserializer::from_str(&text).into_iter::<Value>();
    let bodies: Vec<Value> = (0..3).map(|_| stream.next().unwrap().unwrap()).collect();
    let rest = text[stream.byte_offset()..].trim_start().to_owned();
    (bodies, rest)
}

#[test]
fn the_direct_quick_start_sends_what_convert_writes_and_reads_the_calls_back() {
    let (bodies, calls) = run_example();
    // The same tools as a catalog file, converted by the CLI.
    let dir = std::env::temp_dir().join(format!("toolschema-direct-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("tools.json");
    let catalog = direct::tools().catalog().to_value();
    std::fs::write(&file, serde_json::to_string(&catalog).unwrap()).unwrap();
    let convert = |target: &str| -> Value {
        let out = Command::new(env!("CARGO_BIN_EXE_toolschema"))
            .args(["convert", "--to", target])
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    // Each body holds the converted tools where the provider's request takes them.
    assert_eq!(bodies[0]["tools"], convert("openai-strict"));
    assert_eq!(bodies[1]["tools"][0], convert("gemini"));
    assert_eq!(bodies[2]["tools"], convert("anthropic"));
    assert_eq!(
        bodies
            .iter()
            .map(|b| b.as_object().unwrap().len())
            .sum::<usize>(),
        3
    );
    // The struct's name is sent nowhere; a doc comment that is the tool's description is sent
    // once, as the description.
    let text = serde_json::to_string(&bodies).unwrap();
    assert!(
        !text.contains("CreateEvent") && !text.contains("FindEvents"),
        "{text}"
    );
    let find = &bodies[2]["tools"][1];
    assert_eq!(
        find["description"],
        "Find events whose title contains a text."
    );
    assert!(find["input_schema"].get("description").is_none(), "{find}");
    assert_eq!(bodies[0]["tools"][0]["function"]["strict"], true);
    // The three OpenAI calls and the Anthropic one: typed values, or the text for the model.
    assert_eq!(
        calls,
        "create \"Standup\" at 2026-12-08T09:00:00Z, Some(15) min\n\
         create \"Review\" at 2026-12-08T14:00:00Z, None min\n\
         tool result: The tool arguments were rejected:\n\
         - /minutes must be at most 480; got 600.\n\
         Fix these arguments and call the tool again.\n\
         find \"Standup\"\n"
    );
    std::fs::remove_dir_all(&dir).ok();
}
