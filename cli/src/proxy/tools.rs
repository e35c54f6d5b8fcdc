//! What the proxy publishes for one target, and how a call comes back: the upstream tools
//! adapted (every field but the name and `inputSchema` kept as the server sent it), renamed
//! where the provider's name rule refuses a name, and each call's arguments restored and
//! validated against the server's own schema.

use std::collections::{BTreeMap, HashMap};

use rmcp::model::{CallToolResult, ContentBlock, Tool};
use serde_json::{Map, Value, json};
use toolschema::adapt::{AdaptSettings, Adapted, ConvertReport, LossKind, convert_for};
use toolschema::args::ArgsErrorKind;
use toolschema::catalog::Catalog;

use crate::choose::Chooser;

/// One upstream `tools/list`, as published to the client.
pub struct Published {
    /// The tools the client gets, each as the server wrote it but for `name` and `inputSchema`
    /// (every field the proxy does not rewrite passes: `execution`, `annotations`, `_meta`, and
    /// whatever a later MCP revision adds).
    pub tools: Vec<Value>,
    /// Per published name: the upstream name and the adaptation of its schema.
    by_name: HashMap<String, (String, Adapted<'static>)>,
    /// What `toolschema convert --report` says for the same tools.
    pub report: ConvertReport,
    /// The upstream tools `--tools`/`--exclude` left out.
    left_out: Vec<String>,
    /// The patterns that chose the tools, for the start-up line (empty: every tool).
    choice: String,
}

/// What to forward for a call, or the tool error the client gets instead.
pub enum Call {
    /// The upstream tool name and the restored, validated arguments.
    Forward(String, Option<Map<String, Value>>),
    /// Refused before it reached the server: the text tells the model what to fix.
    Refuse(CallToolResult),
    /// No such published tool: passed upstream unchanged (the server answers for itself).
    Unknown,
}

/// The refusal of a call to a tool `--tools`/`--exclude` left out, worded as for an unknown tool.
fn left_out_call(name: &str) -> CallToolResult {
    tool_error(format!(
        "Unknown tool `{name}`: it is not among the tools offered here; call one of the listed tools."
    ))
}

impl Published {
    /// Adapts `tools` (one server's whole `tools/list`, as rmcp read it) with `settings`, the
    /// chosen ones only.
    pub fn new(
        tools: Vec<Tool>,
        settings: &AdaptSettings,
        choose: &Chooser,
    ) -> Result<Published, String> {
        let tools = tools
            .iter()
            .map(|t| serde_json::to_value(t).map_err(|e| e.to_string()))
            .collect::<Result<Vec<Value>, String>>()?;
        Published::from_json(tools, settings, choose)
    }

    /// Adapts `tools` (one server's whole `tools/list`, each tool as the JSON it sent) with
    /// `settings`. An error when the list does not read as a catalog (see
    /// [`Catalog::from_value`]).
    pub fn from_json(
        tools: Vec<Value>,
        settings: &AdaptSettings,
        choose: &Chooser,
    ) -> Result<Published, String> {
        // The tools left out are neither listed nor callable: a call to one is refused as a
        // call to an unknown tool.
        let name_of = |t: &Value| {
            t.get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        choose
            .check_matches(
                tools
                    .iter()
                    .map(|t| t.get("name").and_then(Value::as_str).unwrap_or_default()),
            )
            .map_err(|e| e.0)?;
        let (tools, left_out): (Vec<Value>, Vec<Value>) =
            tools.into_iter().partition(|t| choose.chosen(&name_of(t)));
        let left_out: Vec<String> = left_out.iter().map(name_of).collect();
        let listed: Vec<Value> = tools
            .iter()
            .map(|t| {
                json!({
                    "name": t.get("name").cloned().unwrap_or(Value::Null),
                    "inputSchema": t.get("inputSchema").cloned().unwrap_or(Value::Null),
                })
            })
            .collect();
        let catalog = Catalog::from_value(json!({ "tools": listed }))
            .map_err(|e| format!("the server's `tools/list` is not a tool catalog: {e}"))?;
        let converted = convert_for(&catalog, settings);
        let mut by_name = HashMap::new();
        let mut published = Vec::with_capacity(tools.len());
        for ((mut tool, entry), adapted) in tools
            .into_iter()
            .zip(&converted.report.tools)
            .zip(converted.adapted.into_iter().map(Adapted::into_owned))
        {
            let upstream = tool
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            if let Value::Object(fields) = &mut tool {
                fields.insert("name".into(), Value::String(entry.tool.clone()));
                let schema = match &adapted.schema {
                    Value::Object(map) => Value::Object(map.clone()),
                    _ => Value::Object(Map::new()),
                };
                fields.insert("inputSchema".into(), schema);
            }
            by_name.insert(entry.tool.clone(), (upstream, adapted));
            published.push(tool);
        }
        Ok(Published {
            tools: published,
            by_name,
            report: converted.report,
            left_out,
            choice: choose.describe(),
        })
    }

    /// Ends the proxy, with a line saying why, when the chosen tools are more than the target
    /// takes in one request: every request the client made would be refused by the provider.
    pub fn exit_over_limit(&self, target: toolschema::Target) {
        if let Err(e) = crate::choose::within_limit(self.tools.len(), target) {
            eprintln!("toolschema proxy: {}", e.0);
            std::process::exit(2);
        }
    }

    /// A call to `name` with `arguments`, as the model sent them for the published schema.
    pub fn call(&self, name: &str, arguments: Option<Map<String, Value>>) -> Call {
        let Some((upstream, adapted)) = self.by_name.get(name) else {
            if self.left_out.iter().any(|n| n == name) {
                return Call::Refuse(left_out_call(name));
            }
            return Call::Unknown;
        };
        let args = Value::Object(arguments.unwrap_or_default());
        match toolschema::restore(adapted, args.clone()) {
            // The server's own schema does not compile (a bad `pattern`, say): nothing can be
            // checked here, so the call goes as the model sent it and the server decides.
            Err(error) if error.kind == ArgsErrorKind::Schema => {
                Call::Forward(upstream.clone(), args.as_object().cloned())
            }
            Ok(Value::Object(map)) => Call::Forward(upstream.clone(), Some(map)),
            Ok(other) => Call::Refuse(tool_error(format!(
                "Tool `{name}` was not called: its arguments must be an object, not {other}."
            ))),
            Err(error) => {
                Call::Refuse(tool_error(format!("Tool `{name}` was not called. {error}")))
            }
        }
    }

    /// Says what was published: the start-up line on stderr (`clause` appended), and the report
    /// written to `report` when asked for.
    pub fn announce(
        &self,
        target: toolschema::Target,
        clause: &str,
        report: Option<&std::path::Path>,
    ) -> Result<(), String> {
        eprintln!("toolschema proxy ({target}): {}{clause}", self.summary());
        if let Some(path) = report {
            let text = serde_json::to_string_pretty(&self.report).unwrap_or_default();
            std::fs::write(path, text + "\n")
                .map_err(|e| format!("cannot write the report {}: {e}", path.display()))?;
        }
        Ok(())
    }

    /// One line: tools, strict tools, fallbacks, renames, losses by kind, and the places sent
    /// encoded.
    pub fn summary(&self) -> String {
        let entries = &self.report.tools;
        let strict = entries.iter().filter(|t| t.strict == Some(true)).count();
        let fallback = entries.iter().filter(|t| t.fallback).count();
        let renamed = entries.iter().filter(|t| t.renamed_from.is_some()).count();
        let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
        for loss in entries.iter().flat_map(|t| &t.losses) {
            *kinds.entry(kind_name(loss.kind)).or_default() += 1;
        }
        let losses = if kinds.is_empty() {
            "no losses".to_owned()
        } else {
            kinds
                .iter()
                .map(|(k, n)| format!("{n} {k}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        // Counted among the losses too, and named: whoever allowed a union sees it here.
        let unions = (entries.iter().flat_map(|t| &t.losses))
            .filter(|l| l.rule == "structural-union-kept")
            .count();
        let unions = match unions {
            0 => String::new(),
            1 => "; 1 structural union kept (the client may flatten it)".to_owned(),
            n => format!("; {n} structural unions kept (the client may flatten them)"),
        };
        // Servers that publish schemas a provider refuses: each repair and each tool sent as the
        // fallback for a value with no one meaning (its loss names the place).
        let repairs: usize = entries.iter().map(|t| t.repaired.len()).sum();
        let invalid = (entries.iter())
            .filter(|t| {
                t.fallback
                    && t.losses
                        .iter()
                        .any(|l| l.detail.contains("not valid JSON Schema"))
            })
            .count();
        let invalid = match (repairs, invalid) {
            (0, 0) => String::new(),
            (r, f) => format!(
                "; invalid JSON Schema: {r} value{} repaired, {f} tool{} sent as the fallback",
                if r == 1 { "" } else { "s" },
                if f == 1 { "" } else { "s" }
            ),
        };
        // Places sent encoded (maps as pairs, any value as JSON text), decoded on every call.
        let encoded: usize = entries.iter().map(|t| t.encoded.len()).sum();
        let encoded = match encoded {
            0 => String::new(),
            1 => "; 1 place encoded (decoded on each call)".to_owned(),
            n => format!("; {n} places encoded (decoded on each call)"),
        };
        // The tools `--tools`/`--exclude` chose: how many of the server's, and by what.
        let chosen = if self.choice.is_empty() {
            String::new()
        } else {
            format!(
                " (of the server's {}, chosen by {})",
                entries.len() + self.left_out.len(),
                self.choice
            )
        };
        format!(
            "{} tools{chosen}, {strict} strict, {fallback} fallback, {renamed} renamed; losses: {losses}{unions}{invalid}{encoded}",
            entries.len()
        )
    }
}

/// The refusal of a `tools/call` whose parameters do not read as one: the arguments are not an
/// object (a string, an array, a number), or there is no tool name.
pub fn unreadable_call(params: &Value) -> CallToolResult {
    let text = match params.get("name").and_then(Value::as_str) {
        None => {
            "The tool was not called: `tools/call` needs the tool's `name` (a string).".to_owned()
        }
        Some(name) => match params.get("arguments") {
            Some(arguments) if !arguments.is_object() && !arguments.is_null() => format!(
                "Tool `{name}` was not called: arguments must be an object of named parameters, not {}.",
                json_kind(arguments)
            ),
            _ => format!(
                "Tool `{name}` was not called: its parameters are not a valid `tools/call`."
            ),
        },
    };
    tool_error(text)
}

/// "a string", "an array", ... for a value that is not what was expected.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A tool error (`isError: true`) with one text, built as a `tools/call` result of any protocol
/// version has it (rmcp's constructor adds the 2026 protocol's `resultType`).
fn tool_error(text: String) -> CallToolResult {
    serde_json::from_value(json!({"content": [{"type": "text", "text": text}], "isError": true}))
        .unwrap_or_else(|_| CallToolResult::error(vec![ContentBlock::text("invalid arguments")]))
}

fn kind_name(kind: LossKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| format!("{kind:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolschema::Target;

    fn every() -> Chooser {
        crate::choose::Choose::default().compile().unwrap()
    }

    #[test]
    fn the_tools_left_out_are_not_listed_and_their_calls_are_refused() {
        let choose = crate::choose::Choose {
            tools: vec![],
            exclude: vec!["files.*".into()],
        };
        let published = Published::new(
            tools(),
            &Target::OpenAi.settings(),
            &choose.compile().unwrap(),
        )
        .unwrap();
        let listed: Vec<&str> = (published.tools.iter())
            .filter_map(|t| t["name"].as_str())
            .collect();
        // `files.read/v2` left out; `files_read_v2` does not match `files.*` and stays, under
        // its own name (no longer renamed away from the other's rewrite).
        assert_eq!(listed, ["files_read_v2"]);
        match published.call("files.read/v2", None) {
            Call::Refuse(r) => assert!(format!("{:?}", r.content).contains("Unknown tool")),
            _ => panic!("a left-out tool is refused"),
        }
        assert!(published.summary().contains("chosen by --exclude files.*"));
    }

    fn tools() -> Vec<Tool> {
        serde_json::from_value(json!([
            {"name": "files.read/v2", "title": "Read", "description": "Read a file.",
             "inputSchema": {"type": "object", "properties": {"path": {"type": "string", "maxLength": 5}, "encoding": {"type": "string"}}, "required": ["path"]},
             "annotations": {"readOnlyHint": true}},
            {"name": "files_read_v2", "inputSchema": {"type": "object", "properties": {}}}
        ]))
        .unwrap()
    }

    #[test]
    fn names_are_rewritten_without_collisions_and_every_other_field_is_kept() {
        let published =
            Published::new(tools(), &Target::OpenAiStrict.settings(), &every()).unwrap();
        let listed = serde_json::to_value(&published.tools).unwrap();
        // The second tool already has the rewritten name and keeps it: the first gets another.
        assert_eq!(listed[0]["name"], json!("files_read_v2_2"));
        assert_eq!(listed[1]["name"], json!("files_read_v2"));
        assert_eq!(listed[0]["title"], json!("Read"));
        assert_eq!(listed[0]["annotations"], json!({"readOnlyHint": true}));
        assert_eq!(listed[0]["description"], json!("Read a file."));
        assert_eq!(
            published.report.tools[0].renamed_from.as_deref(),
            Some("files.read/v2")
        );
    }

    #[test]
    fn calls_are_restored_validated_and_mapped_back() {
        let published =
            Published::new(tools(), &Target::OpenAiStrict.settings(), &every()).unwrap();
        let args = |v: Value| v.as_object().cloned();
        match published.call(
            "files_read_v2_2",
            args(json!({"path": "a", "encoding": null})),
        ) {
            Call::Forward(name, Some(arguments)) => {
                assert_eq!(name, "files.read/v2");
                assert_eq!(Value::Object(arguments), json!({"path": "a"}));
            }
            _ => panic!("a valid call must be forwarded"),
        }
        // `maxLength` is spilled for OpenAI strict: the proxy still enforces it.
        match published.call(
            "files_read_v2_2",
            args(json!({"path": "toolong", "encoding": null})),
        ) {
            Call::Refuse(result) => {
                let text = serde_json::to_value(&result).unwrap()["content"][0]["text"].clone();
                assert!(text.as_str().unwrap().contains("/path"), "{text}");
                assert_eq!(
                    serde_json::to_value(&result).unwrap()["isError"],
                    json!(true)
                );
            }
            _ => panic!("an invalid call must be refused"),
        }
        assert!(matches!(published.call("nope", None), Call::Unknown));
    }

    #[test]
    fn a_schema_that_does_not_compile_forwards_the_call_unchecked() {
        let tools: Vec<Tool> = serde_json::from_value(json!([
            {"name": "t", "inputSchema": {"type": "object", "properties": {"p": {"type": "string", "pattern": "(unclosed"}}}}
        ]))
        .unwrap();
        let published = Published::new(tools, &Target::Mcp.settings(), &every()).unwrap();
        let arguments = json!({"p": "x"}).as_object().cloned();
        assert!(matches!(published.call("t", arguments), Call::Forward(name, _) if name == "t"));
    }

    #[test]
    fn the_summary_names_the_structural_unions_a_client_may_flatten() {
        let union = json!({"anyOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}},
            {"type": "object", "properties": {"b": {"type": "string"}}}
        ]});
        let tools = vec![
            serde_json::from_value(json!({"name": "one", "inputSchema": {
                "type": "object", "properties": {"change": union}
            }}))
            .unwrap(),
        ];
        let published = Published::new(tools, &Target::Gemini.settings(), &every()).unwrap();
        assert_eq!(
            published.summary(),
            "1 tools, 0 strict, 0 fallback, 0 renamed; losses: 1 collapsed; 1 structural union kept (the client may flatten it)"
        );
    }

    #[test]
    fn the_summary_counts_tools_strict_renames_and_losses() {
        let published =
            Published::new(tools(), &Target::OpenAiStrict.settings(), &every()).unwrap();
        assert_eq!(
            published.summary(),
            "2 tools, 2 strict, 0 fallback, 1 renamed; losses: 1 spilled"
        );
    }
}
