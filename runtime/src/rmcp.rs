//! rmcp integration (feature `rmcp`): a drop-in for rmcp's `Parameters<T>`.
//!
//! ```ignore
//! use toolschema::rmcp::Parameters;           // instead of rmcp's own `Parameters`
//!
//! #[tool(description = "Search entries")]
//! async fn search(&self, Parameters(args): Parameters<SearchArgs>) -> String { ... }
//! ```
//!
//! With `#[derive(ToolParams)]` on `SearchArgs`, the `#[tool]` macro finds the `Parameters` type
//! as usual and publishes the schema adapted for MCP (a union's structured branch first); a
//! call's arguments are restored, validated against the schema (every
//! constraint re-imposed) and deserialized, and a bad call gets a tool result with
//! `isError: true` whose text tells the model what to fix. For another wire format use
//! `#[tool(input_schema = toolschema::rmcp::input_schema_for::<T>(Target::Gemini))]`.
//!
//! rmcp's `#[tool]` adds `"$schema": "https://json-schema.org/draft/2020-12/schema"` to every
//! input schema it generates, which some clients refuse (Gemini CLI: "no schema with key or ref";
//! Vertex AI: `Unknown name "$schema"`). Pass the router through [`exact_schemas`] once, where
//! the server is built, and serve that router (rmcp's `#[tool_handler]` builds a new one per
//! request unless told which): every tool then publishes the keys and values of
//! `T::schema_for(Target::Mcp)`, less the root `title` and `description`, which rmcp takes out
//! (the type's name and doc are not the tool's).
//!
//! ```ignore
//! struct Server { tool_router: ToolRouter<Self> }
//! // where the server is made:
//! Server { tool_router: toolschema::rmcp::exact_schemas(Self::tool_router()) }
//!
//! #[tool_handler(router = self.tool_router)]
//! impl ServerHandler for Server {}
//! ```

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use rmcp::handler::server::common::FromContextPart;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::JsonObject;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::Value;

use crate::contract::{ALLOWED_UNIONS_META, AllowList};
use crate::{Target, ToolParams};

/// Tool parameters for rmcp: the adapted schema out, restored and validated arguments in.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameters<T>(pub T);

impl<T: ToolParams + 'static> JsonSchema for Parameters<T> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        // The whole published document, definitions included, as the parameters' schema. It has
        // no root `title`/`description`, so rmcp's own removal of them (a swap-remove) moves
        // nothing: the keys reach the client in our order.
        Schema::try_from(Value::Object(published::<T>())).unwrap_or_else(|_| Schema::from(true))
    }
}

/// What a client receives as `inputSchema` for `T`: the MCP-adapted schema without the root
/// `title` and `description`. rmcp removes those two from every `#[tool]` input schema (the Rust
/// type's name and doc are not the tool's); both publishing paths here agree with it.
fn published<T: ToolParams + 'static>() -> JsonObject {
    let map = match T::schema_for(Target::Mcp).schema {
        Value::Object(mut map) => {
            map.shift_remove("title");
            map.shift_remove("description");
            map
        }
        _ => JsonObject::new(),
    };
    note_allowed_unions::<T>(&map);
    map
}

/// The schemas published so far whose types allow structural unions, each with its allowed
/// unions in the `_meta` form ([`AllowList::to_published`]): [`exact_schemas`] finds a tool's
/// entry by its `inputSchema`. Only types with `#[tool_schema(allow_union = …)]` are noted (a
/// handful per server).
static ALLOWED_UNIONS: Mutex<Vec<(JsonObject, Value)>> = Mutex::new(Vec::new());

fn note_allowed_unions<T: ToolParams + 'static>(schema: &JsonObject) {
    let unions = T::allowed_unions();
    if unions.is_empty() {
        return;
    }
    let document = Value::Object(schema.clone());
    let allowed = AllowList::from_allowed_unions(&unions, &crate::contract::check(&document));
    let mut noted = ALLOWED_UNIONS.lock().unwrap_or_else(|e| e.into_inner());
    if !noted.iter().any(|(s, _)| s == schema) {
        noted.push((schema.clone(), allowed.to_published()));
    }
}

/// rmcp's tool router turns an `invalid_params` error whose message starts with this text into a
/// tool result with `isError: true` (rmcp's own `Parameters` uses it for the same purpose).
const RMCP_TOOL_ERROR_PREFIX: &str = "failed to deserialize parameters: ";

impl<S, T: ToolParams + 'static> FromContextPart<ToolCallContext<'_, S>> for Parameters<T> {
    /// Invalid arguments are a tool execution error, as MCP's specification (2025-11-25,
    /// SEP-1303) asks: the client gets a `CallToolResult` with `isError: true` whose text the model
    /// reads and corrects its call from, not a JSON-RPC error many clients never show the model.
    /// A broken schema (the server's fault) stays a protocol error.
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, rmcp::ErrorData> {
        let arguments = context.arguments.take().unwrap_or_default();
        T::from_args(Target::Mcp, Value::Object(arguments))
            .map(Parameters)
            .map_err(|e| {
                let data = serde_json::to_value(&e).ok();
                match e.kind {
                    crate::args::ArgsErrorKind::Schema => {
                        rmcp::ErrorData::internal_error(e.to_string(), data)
                    }
                    _ => rmcp::ErrorData::invalid_params(
                        format!("{RMCP_TOOL_ERROR_PREFIX}{e}"),
                        data,
                    ),
                }
            })
    }
}

/// `T`'s schema adapted for MCP, as `#[tool(input_schema = ...)]` takes it: exactly what a
/// client receives, key for key.
///
/// Through `Parameters<T>` alone, rmcp 3.11's `#[tool]` runs its own schemars generator over
/// our schema: it adds `"$schema": "https://json-schema.org/draft/2020-12/schema"` after our
/// `JsonSchema` impl returns, serializes in schemars' keyword order (`$schema`, `title`,
/// `description`, `type`, `format`, `properties`, the rest, `$defs`) and then swap-removes the
/// root `title`, which moves the last key forward. Nothing inside `JsonSchema` can stop either
/// (schemars 1.2 gives no access to the generator's settings). The keys and values are this
/// value's plus that URI; for this value exactly, in this order, use
/// `#[tool(input_schema = toolschema::rmcp::input_schema::<T>())]`.
pub fn input_schema<T: ToolParams + 'static>() -> Arc<JsonObject> {
    Arc::new(published::<T>())
}

/// `T`'s schema adapted for `target`.
pub fn input_schema_for<T: ToolParams + 'static>(target: Target) -> Arc<JsonObject> {
    match T::schema_for(target).schema {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The router with every tool's `inputSchema` (and `outputSchema`) as this crate publishes it:
/// the `$schema` that rmcp's generator adds to the root of each is taken out, and a tool whose
/// parameters allow structural unions (`#[tool_schema(allow_union = …)]`) lists them in its
/// `_meta` under [`ALLOWED_UNIONS_META`], so that `toolschema lint --server` of this server
/// allows the same unions (clients ignore the key; it never reaches a model). Tools whose
/// parameters are `Parameters<T>` then publish the same keys and values as
/// [`input_schema::<T>()`](input_schema) (in schemars' keyword order, where rmcp serialized
/// them); hand-written schemas lose only a root `$schema`. Call it once, where the router is made.
pub fn exact_schemas<S>(
    mut router: rmcp::handler::server::router::tool::ToolRouter<S>,
) -> rmcp::handler::server::router::tool::ToolRouter<S> {
    let noted = ALLOWED_UNIONS.lock().unwrap_or_else(|e| e.into_inner());
    for route in router.map.values_mut() {
        let tool = &mut route.attr;
        if tool.input_schema.contains_key("$schema") {
            Arc::make_mut(&mut tool.input_schema).shift_remove("$schema");
        }
        if let Some((_, allowed)) = noted.iter().find(|(s, _)| *s == *tool.input_schema) {
            let meta = tool.meta.get_or_insert_with(Default::default);
            meta.0
                .insert(ALLOWED_UNIONS_META.to_owned(), allowed.clone());
        }
        if let Some(output) = tool
            .output_schema
            .as_mut()
            .filter(|o| o.contains_key("$schema"))
        {
            Arc::make_mut(output).shift_remove("$schema");
        }
    }
    router
}
