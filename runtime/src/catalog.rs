//! Tool catalogs as servers publish them, from any language: one bare JSON Schema, an array of
//! tools, an MCP `tools/list` result, or a JSON-RPC response holding one.

use std::collections::HashMap;
use std::fmt;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::contract::{self, AllowList, ContractReport};

/// One tool: its name, description and parameter schema.
#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    /// `None` for a bare schema.
    pub name: Option<String>,
    /// The tool's description, if any.
    pub description: Option<String>,
    /// The published parameter schema (`inputSchema`).
    pub schema: Value,
    /// The structural unions the tool's author allowed, as the tool publishes them in its MCP
    /// `_meta` ([`contract::ALLOWED_UNIONS_META`]): [`Catalog::check`] allows them for this tool.
    pub allowed_unions: Vec<contract::AllowEntry>,
}

/// How the input was laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Layout {
    /// One JSON Schema.
    Schema,
    /// `[{"name", "description", "inputSchema"}]`.
    ToolArray,
    /// `{"tools": [...]}`, an MCP `tools/list` result.
    ToolsList,
    /// `{"jsonrpc": "2.0", "result": {"tools": [...]}}`.
    JsonRpc,
}

/// A tool catalog.
#[derive(Clone, Debug, PartialEq)]
pub struct Catalog {
    /// How the input was shaped.
    pub layout: Layout,
    /// The tools, in input order.
    pub tools: Vec<Tool>,
}

/// Why an input is not a catalog.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CatalogError {
    /// JSON Pointer of the offending value in the input.
    pub pointer: String,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for CatalogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pointer.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "at `{}`: {}", self.pointer, self.message)
        }
    }
}

impl std::error::Error for CatalogError {}

/// The keys a tool's schema may be under: MCP's `inputSchema`, Anthropic's `input_schema`,
/// OpenAI's and Gemini's `parameters`.
const SCHEMA_KEYS: &[&str] = &["inputSchema", "input_schema", "parameters"];

/// The name of a tool that has none.
const UNNAMED: &str = "(unnamed)";

fn tool_from(value: Value, pointer: String) -> Result<Tool, CatalogError> {
    let Value::Object(mut map) = value else {
        return Err(CatalogError {
            pointer,
            message: "a tool must be an object `{\"name\", \"description\", \"inputSchema\"}`"
                .to_owned(),
        });
    };
    let name = match map.remove("name") {
        Some(Value::String(s)) => Some(s),
        None => None,
        Some(other) => {
            return Err(CatalogError {
                pointer: format!("{pointer}/name"),
                message: format!("a tool's name must be a string, found {}", kind(&other)),
            });
        }
    };
    let description = match map.remove("description") {
        Some(Value::String(s)) => Some(s),
        _ => None,
    };
    let schema = SCHEMA_KEYS
        .iter()
        .find_map(|k| map.remove(*k))
        .ok_or_else(|| CatalogError {
            pointer: pointer.clone(),
            message: format!(
                "tool {} has no `inputSchema` (nor `input_schema` or `parameters`)",
                name.as_deref()
                    .map_or("without a name".to_owned(), |n| format!("`{n}`"))
            ),
        })?;
    if !matches!(schema, Value::Object(_) | Value::Bool(_)) {
        return Err(CatalogError {
            pointer,
            message: format!(
                "the schema of tool {} must be a JSON Schema (an object or a boolean), found {}",
                name.as_deref().unwrap_or("without a name"),
                kind(&schema)
            ),
        });
    }
    let name = name.unwrap_or_else(|| UNNAMED.to_owned());
    let allowed_unions = map
        .get("_meta")
        .map(|meta| AllowList::from_published(Some(&name), meta))
        .unwrap_or_default();
    Ok(Tool {
        name: Some(name),
        description,
        schema,
        allowed_unions,
    })
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn tools_from(items: Vec<Value>, base: &str) -> Result<Vec<Tool>, CatalogError> {
    items
        .into_iter()
        .enumerate()
        .map(|(i, t)| tool_from(t, format!("{base}/{i}")))
        .collect()
}

impl Catalog {
    /// Detects the input's shape and reads the tools.
    pub fn from_value(value: Value) -> Result<Catalog, CatalogError> {
        match value {
            Value::Array(items) => Ok(Catalog {
                layout: Layout::ToolArray,
                tools: tools_from(items, "")?,
            }),
            Value::Object(mut map) => {
                if map.contains_key("jsonrpc") {
                    if let Some(error) = map.get("error") {
                        return Err(CatalogError {
                            pointer: "/error".to_owned(),
                            message: format!("the JSON-RPC response is an error: {error}"),
                        });
                    }
                    return match map.remove("result") {
                        Some(Value::Object(mut result)) => match result.remove("tools") {
                            Some(Value::Array(items)) => Ok(Catalog {
                                layout: Layout::JsonRpc,
                                tools: tools_from(items, "/result/tools")?,
                            }),
                            _ => Err(CatalogError {
                                pointer: "/result".to_owned(),
                                message: "a JSON-RPC response must hold a `tools/list` result: `{\"tools\": [...]}`".to_owned(),
                            }),
                        },
                        _ => Err(CatalogError {
                            pointer: String::new(),
                            message: "a JSON-RPC response without a `result` object".to_owned(),
                        }),
                    };
                }
                if let Some(Value::Array(_)) = map.get("tools") {
                    let Some(Value::Array(items)) = map.remove("tools") else {
                        unreachable!("checked above")
                    };
                    return Ok(Catalog {
                        layout: Layout::ToolsList,
                        tools: tools_from(items, "/tools")?,
                    });
                }
                Ok(Catalog {
                    layout: Layout::Schema,
                    tools: vec![Tool {
                        name: None,
                        description: None,
                        schema: Value::Object(map),
                        allowed_unions: Vec::new(),
                    }],
                })
            }
            Value::Bool(b) => Ok(Catalog {
                layout: Layout::Schema,
                tools: vec![Tool {
                    name: None,
                    description: None,
                    schema: Value::Bool(b),
                    allowed_unions: Vec::new(),
                }],
            }),
            other => Err(CatalogError {
                pointer: String::new(),
                message: format!(
                    "expected a JSON Schema, an array of tools, `{{\"tools\": [...]}}` or a JSON-RPC response, found {}",
                    kind(&other)
                ),
            }),
        }
    }

    /// Checks every tool against the contract, then applies the allow-list, with the unions
    /// each tool publishes as allowed ([`Tool::allowed_unions`]), to the whole catalog (so an
    /// entry for a tool that is not there, or no longer violates, is stale).
    pub fn check(&self, allow: &AllowList) -> ContractReport {
        let mut violations = Vec::new();
        for tool in &self.tools {
            violations.extend(contract::check_tool(tool.name.as_deref(), &tool.schema));
        }
        let published = self.tools.iter().flat_map(|t| t.allowed_unions.clone());
        allow.clone().with_entries(published).apply(violations)
    }

    /// The tools as an MCP `tools/list` result, `{"tools": [{"name", "description",
    /// "inputSchema", "_meta"}]}` (the allowed unions under [`contract::ALLOWED_UNIONS_META`]),
    /// which [`Catalog::from_value`] and every `toolschema` command read back.
    pub fn to_value(&self) -> Value {
        let tools = self.tools.iter().map(|t| {
            let mut tool = serde_json::Map::new();
            if let Some(name) = &t.name {
                tool.insert("name".into(), Value::String(name.clone()));
            }
            if let Some(description) = &t.description {
                tool.insert("description".into(), Value::String(description.clone()));
            }
            tool.insert("inputSchema".into(), t.schema.clone());
            if !t.allowed_unions.is_empty() {
                let list = AllowList::new().with_entries(t.allowed_unions.clone());
                tool.insert(
                    "_meta".into(),
                    serde_json::json!({ contract::ALLOWED_UNIONS_META: list.to_published() }),
                );
            }
            Value::Object(tool)
        });
        serde_json::json!({ "tools": tools.collect::<Vec<_>>() })
    }
}

/// A tool catalog still as JSON text: the list of tools found without building the document,
/// each tool parsed only when asked for ([`RawCatalog::tool`]). A large catalog converted tool by
/// tool ([`crate::adapt::convert_raw`]) then never holds more than one tool's parsed form at
/// a time.
#[derive(Clone, Debug)]
pub struct RawCatalog<'a> {
    /// How the input is shaped ([`Layout::ToolArray`], [`Layout::ToolsList`] or
    /// [`Layout::JsonRpc`]).
    pub layout: Layout,
    tools: Vec<&'a RawValue>,
    base: &'static str,
}

/// One level of an object, its values left as text (a repeated key: the last one counts, as in
/// a parsed [`Value`]).
type RawObject<'a> = HashMap<String, &'a RawValue>;

fn raw_object(raw: &RawValue) -> Option<RawObject<'_>> {
    serde_json::from_str(raw.get()).ok()
}

fn raw_array(raw: &RawValue) -> Option<Vec<&RawValue>> {
    serde_json::from_str(raw.get()).ok()
}

impl<'a> RawCatalog<'a> {
    /// Reads the list of tools from JSON text. `None` when the text is not a list of tools
    /// (a bare schema, a value of another kind, or not one JSON value): parse it with
    /// [`Catalog::from_value`], which also words the error. The errors given here are those
    /// [`Catalog::from_value`] gives for the same input.
    pub fn parse(text: &'a str) -> Option<Result<RawCatalog<'a>, CatalogError>> {
        let mut de = serde_json::Deserializer::from_str(text);
        // Only this level is parsed here (each value below is skipped as text, without
        // recursion): deep tools are parsed one at a time by `tool`.
        de.disable_recursion_limit();
        let top: &RawValue = <&RawValue>::deserialize(&mut de).ok()?;
        de.end().ok()?;
        let catalog = |layout, tools, base| {
            Some(Ok(RawCatalog {
                layout,
                tools,
                base,
            }))
        };
        if top.get().starts_with('[') {
            return catalog(Layout::ToolArray, raw_array(top)?, "");
        }
        let map = raw_object(top)?;
        if map.contains_key("jsonrpc") {
            if let Some(error) = map.get("error") {
                let error: Value = serde_json::from_str(error.get()).ok()?;
                return Some(Err(CatalogError {
                    pointer: "/error".to_owned(),
                    message: format!("the JSON-RPC response is an error: {error}"),
                }));
            }
            let Some(result) = map.get("result").filter(|r| r.get().starts_with('{')) else {
                return Some(Err(CatalogError {
                    pointer: String::new(),
                    message: "a JSON-RPC response without a `result` object".to_owned(),
                }));
            };
            let result = raw_object(result)?;
            return match result.get("tools").filter(|t| t.get().starts_with('[')) {
                Some(tools) => catalog(Layout::JsonRpc, raw_array(tools)?, "/result/tools"),
                None => Some(Err(CatalogError {
                    pointer: "/result".to_owned(),
                    message:
                        "a JSON-RPC response must hold a `tools/list` result: `{\"tools\": [...]}`"
                            .to_owned(),
                })),
            };
        }
        match map.get("tools").filter(|t| t.get().starts_with('[')) {
            Some(tools) => catalog(Layout::ToolsList, raw_array(tools)?, "/tools"),
            None => None,
        }
    }

    /// How many tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Tool `index`, parsed (as [`Catalog::from_value`] reads it, with the same errors).
    ///
    /// # Panics
    /// When `index` is out of range.
    pub fn tool(&self, index: usize) -> Result<Tool, CatalogError> {
        let value =
            crate::adapt::parse_deep(self.tools[index].get()).map_err(|e| CatalogError {
                pointer: format!("{}/{index}", self.base),
                message: format!("cannot parse this tool: {e}"),
            })?;
        tool_from(value, format!("{}/{index}", self.base))
    }

    /// The name tool `index` has in [`RawCatalog::tool`], read without parsing the rest of it
    /// (`None` when the tool is not valid: [`RawCatalog::tool`] says why).
    pub fn name(&self, index: usize) -> Option<String> {
        #[derive(Deserialize)]
        struct NameOnly {
            #[serde(default)]
            name: Option<String>,
        }
        match serde_json::from_str::<NameOnly>(self.tools[index].get()) {
            Ok(NameOnly { name }) => Some(name.unwrap_or_else(|| UNNAMED.to_owned())),
            // Not an object, a name that is not a string, or the name twice: the full reading.
            Err(_) => self.tool(index).ok().and_then(|t| t.name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str) -> Value {
        json!({"name": name, "description": "d", "inputSchema": {"type": "object"}})
    }

    #[test]
    fn detects_every_shape() {
        let array = Catalog::from_value(json!([tool("a"), tool("b")])).unwrap();
        assert_eq!(array.layout, Layout::ToolArray);
        assert_eq!(array.tools.len(), 2);
        let list = Catalog::from_value(json!({"tools": [tool("a")], "nextCursor": null})).unwrap();
        assert_eq!(list.layout, Layout::ToolsList);
        let rpc = Catalog::from_value(
            json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [tool("a")]}}),
        )
        .unwrap();
        assert_eq!(rpc.layout, Layout::JsonRpc);
        assert_eq!(rpc.tools[0].name.as_deref(), Some("a"));
        let bare = Catalog::from_value(
            json!({"type": "object", "properties": {"tools": {"type": "array"}}}),
        )
        .unwrap();
        assert_eq!(bare.layout, Layout::Schema);
        assert_eq!(bare.tools[0].name, None);
    }

    #[test]
    fn explains_bad_input() {
        let err = Catalog::from_value(json!([tool("a"), {"name": "b"}])).unwrap_err();
        assert_eq!(err.pointer, "/1");
        assert!(err.message.contains("`b` has no `inputSchema`"), "{err}");
        let err =
            Catalog::from_value(json!({"jsonrpc": "2.0", "error": {"code": -32601}})).unwrap_err();
        assert!(err.message.contains("error"), "{err}");
        let err = Catalog::from_value(json!(42)).unwrap_err();
        assert!(err.message.contains("found a number"), "{err}");
        let err = Catalog::from_value(json!([{"name": "x", "inputSchema": "string"}])).unwrap_err();
        assert!(err.message.contains("found a string"), "{err}");
    }
}
