//! The example MCP server, as a client sees it: in process over an in-memory duplex with an
//! rmcp client, and as a real process over stdio speaking JSON-RPC by hand.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use toolschema::adapt::convert;
use toolschema::catalog::Catalog;
use toolschema::contract::{Severity, check_tool};
use toolschema::{Target, ToolParams, adapt::LossKind};
use toolschema_tests::example_server::{
    ContentServer, ManageFields, SearchEntries, TreeSize, UpsertEntry,
};

/// What each tool's `inputSchema` must be: `input_schema::<T>()`, the value the documented
/// `#[tool(input_schema = ...)]` path publishes.
fn expected_input_schema(tool: &str) -> Value {
    use toolschema::rmcp::input_schema;
    let schema = match tool {
        "upsert_entry" => input_schema::<UpsertEntry>(),
        "manage_fields" => input_schema::<ManageFields>(),
        "search_entries" => input_schema::<SearchEntries>(),
        "tree_size" => input_schema::<TreeSize>(),
        other => panic!("unexpected tool {other}"),
    };
    Value::Object((*schema).clone())
}

/// Checks a tool's `inputSchema` as the client received it against what it must be, the whole
/// value: `T::schema_for(Target::Mcp)` less the root `title` and `description` (which rmcp takes
/// out), with no `$schema`. `tree_size` is published through `#[tool(input_schema = ...)]`:
/// exactly, key order included. The others through `Parameters<T>` and
/// `toolschema::rmcp::exact_schemas` over the router: the same keys and values (rmcp serializes
/// them in schemars' keyword order).
fn assert_published(name: &str, received: &Value) {
    let expected = expected_input_schema(name);
    assert!(received.get("$schema").is_none(), "{name}: {received:#}");
    if name == "tree_size" {
        assert_eq!(
            serde_json::to_string(received).unwrap(),
            serde_json::to_string(&expected).unwrap(),
            "{name}: the explicit path publishes our value exactly"
        );
    }
    assert_eq!(received, &expected, "{name}");
    let mut adapted = schema_for_mcp(name);
    adapted.shift_remove("title");
    adapted.shift_remove("description");
    assert_eq!(received, &Value::Object(adapted), "{name}");
}

/// `T::schema_for(Target::Mcp)` of the tool's parameter type, as the library adapts it.
fn schema_for_mcp(tool: &str) -> serde_json::Map<String, Value> {
    let adapted = match tool {
        "upsert_entry" => UpsertEntry::schema_for(Target::Mcp).schema,
        "manage_fields" => ManageFields::schema_for(Target::Mcp).schema,
        "search_entries" => SearchEntries::schema_for(Target::Mcp).schema,
        "tree_size" => TreeSize::schema_for(Target::Mcp).schema,
        other => panic!("unexpected tool {other}"),
    };
    adapted.as_object().expect("an object").clone()
}

fn args(v: Value) -> serde_json::Map<String, Value> {
    v.as_object().unwrap().clone()
}

/// The text the model reads: every text block of the result.
fn text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn in_process_round_trip() {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let server = ContentServer::default();
    let handle = server.clone();
    tokio::spawn(async move {
        let running = server.serve(server_io).await.expect("server starts");
        let _ = running.waiting().await;
    });
    let client = ().serve(client_io).await.expect("client connects");

    // tools/list: every published schema passes the contract and converts for every target.
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names.len(), 4, "{names:?}");
    let catalog_value = serde_json::to_value(&tools).unwrap();
    for tool in catalog_value.as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        let schema = &tool["inputSchema"];
        let errors: Vec<_> = check_tool(Some(name), schema)
            .into_iter()
            .filter(|v| v.severity == Severity::Error)
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
        assert_eq!(schema["type"], "object");
        // The whole value.
        assert_published(name, schema);
    }
    let catalog = Catalog::from_value(catalog_value).unwrap();
    for &target in Target::ALL {
        let converted = convert(&catalog, target);
        for (tool, adapted) in converted.report.tools.iter().zip(&converted.adapted) {
            assert!(
                !adapted.fallback,
                "{target} / {}: {:?}",
                tool.tool, adapted.losses
            );
            if target.wants_strict() && adapted.strict != Some(true) {
                // What keeps a tool from strict mode: the permissive `value` (any JSON has no
                // strict form), and recursion under Anthropic strict. Nothing else.
                let expected = tool.tool == "upsert_entry"
                    || (target == Target::AnthropicStrict && tool.tool == "tree_size");
                assert!(
                    expected,
                    "{target} / {}: {:?}",
                    tool.tool,
                    adapted.losses.iter().find(|l| l.kind == LossKind::Fallback)
                );
            }
        }
    }

    // The seed's incident: a string for an asset field. Rejected as a tool error, not stored.
    let bad = client
        .call_tool(
            CallToolRequestParams::new("upsert_entry").with_arguments(args(json!({
                "entry_id": "home",
                "field_values": [{"field": "image", "kind": "text", "value": "549895"}]
            }))),
        )
        .await
        .unwrap();
    assert_eq!(bad.is_error, Some(true));
    assert!(
        text(&bad).contains(
            "- /field_values/0/kind must be \"asset\" for the field `image`; got the string \"text\"."
        ),
        "{}",
        text(&bad)
    );
    let wrong_value = client
        .call_tool(
            CallToolRequestParams::new("upsert_entry").with_arguments(args(json!({
                "entry_id": "home",
                "field_values": [{"field": "image", "kind": "asset", "value": "549895"}]
            }))),
        )
        .await
        .unwrap();
    assert_eq!(wrong_value.is_error, Some(true));
    assert_eq!(handle.entry("home"), None, "nothing was written");
    let good = client
        .call_tool(
            CallToolRequestParams::new("upsert_entry").with_arguments(args(json!({
                "entry_id": "home",
                "field_values": [
                    {"field": "image", "kind": "asset", "value": {"id": "549895"}},
                    {"field": "count", "kind": "integer", "value": 3}
                ]
            }))),
        )
        .await
        .unwrap();
    assert_ne!(good.is_error, Some(true), "{}", text(&good));
    assert_eq!(
        handle.entry("home").unwrap()["image"],
        json!({"id": "549895"})
    );

    // Arguments the schema refuses are a tool error the model can read (MCP 2025-11-25,
    // SEP-1303), not a JSON-RPC error; the tool never runs.
    let refused = client
        .call_tool(
            CallToolRequestParams::new("search_entries")
                .with_arguments(args(json!({"query": "", "limit": 99}))),
        )
        .await
        .expect("a tool result, not a protocol error");
    assert_eq!(refused.is_error, Some(true));
    let said = text(&refused);
    assert!(
        said.contains("- /limit must be at most 50; got 99.")
            && said.contains("- /query must be at least 1 character long; got the string \"\".")
            && said.contains("call the tool again"),
        "{said}"
    );

    // Replace-or-delta as separate parameters.
    let both = client
        .call_tool(
            CallToolRequestParams::new("manage_fields")
                .with_arguments(args(json!({"replace": ["a"], "add": ["b"]}))),
        )
        .await
        .unwrap();
    assert_eq!(both.is_error, Some(true));
    let delta = client
        .call_tool(
            CallToolRequestParams::new("manage_fields")
                .with_arguments(args(json!({"add": ["slug"], "remove": ["price"]}))),
        )
        .await
        .unwrap();
    assert!(
        text(&delta).contains("slug") && !text(&delta).contains("price"),
        "{}",
        text(&delta)
    );

    // Arguments are validated against the schema: a too-long query is a tool error naming the
    // argument; a null for an optional default field (as OpenAI strict sends it) gets the
    // default.
    let too_long = client
        .call_tool(
            CallToolRequestParams::new("search_entries")
                .with_arguments(args(json!({"query": "x".repeat(60)}))),
        )
        .await
        .unwrap();
    assert_eq!(too_long.is_error, Some(true));
    assert!(
        text(&too_long).contains("- /query must be at most 40 characters long"),
        "{}",
        text(&too_long)
    );
    let with_nulls = client
        .call_tool(
            CallToolRequestParams::new("search_entries")
                .with_arguments(args(json!({"query": "ho", "limit": null, "sort": null}))),
        )
        .await
        .unwrap();
    assert!(text(&with_nulls).contains("home"), "{}", text(&with_nulls));

    // A recursive type.
    let tree = client
        .call_tool(CallToolRequestParams::new("tree_size").with_arguments(args(json!({
            "root": {"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}, {"name": "d"}]}
        }))))
        .await
        .unwrap();
    assert!(text(&tree).contains("4 nodes, depth 3"), "{}", text(&tree));
    client.cancel().await.unwrap();
}

#[test]
fn stdio_process_round_trip() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp_server"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the example server starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |v: Value| {
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    };
    let mut receive = || -> Value {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}
        }}),
    );
    let init = receive();
    assert_eq!(init["id"], 1);
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let list = receive();
    let tools = list["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 4);
    for tool in tools {
        let errors: Vec<_> = check_tool(tool["name"].as_str(), &tool["inputSchema"])
            .into_iter()
            .filter(|v| v.severity == Severity::Error)
            .collect();
        assert!(errors.is_empty(), "{errors:#?}");
        assert_published(tool["name"].as_str().unwrap(), &tool["inputSchema"]);
    }
    send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "tree_size", "arguments": {"root": {"name": "x"}}}}),
    );
    let call = receive();
    assert_eq!(call["id"], 3);
    assert!(
        call["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("1 nodes"),
        "{call}"
    );
    send(
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "search_entries", "arguments": {}}}),
    );
    let invalid = receive();
    assert_eq!(invalid["id"], 4);
    // A tool error the model reads, not a JSON-RPC error.
    assert_eq!(invalid["result"]["isError"], json!(true), "{invalid}");
    assert!(
        invalid["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("- the arguments must include the property `query`."),
        "{invalid}"
    );
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
}

/// What each provider would be sent for the example server's tools, reviewed as insta snapshots
/// (`tests/snapshots/mcp_server__*.snap`): one line per tool, as a server author would write it.
#[test]
fn tool_snapshots_per_provider() {
    toolschema::assert_tool_snapshots!(UpsertEntry, "upsert_entry");
    toolschema::assert_tool_snapshots!(ManageFields, "manage_fields");
    toolschema::assert_tool_snapshots!(SearchEntries, "search_entries");
    toolschema::assert_tool_snapshots!(TreeSize, "tree_size");
}
