//! Tools for callers who build provider requests themselves (an agent calling OpenAI, Gemini or
//! Anthropic over HTTP, no MCP): register each tool from its parameter type once, get each
//! provider's `tools` value with its report, and turn the model's tool calls back into your own
//! values.
//!
//! A [`Toolset<T>`] maps every tool to one Rust type `T` of your choosing, through a function per
//! tool: an enum's variant constructor (`Action::CreateEvent`) is such a function, so dispatch is
//! a `match` on your enum, never on names. `T` may as well be a boxed closure or a future.
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use serde_json::json;
//! use toolschema::toolset::Toolset;
//! use toolschema::{Target, ToolParams};
//!
//! /// Look a word up.
//! #[derive(Debug, Deserialize, JsonSchema, ToolParams)]
//! struct Define {
//!     /// The word.
//!     word: String,
//!     /// How many senses, at most.
//!     #[schemars(range(min = 1, max = 5))]
//!     senses: Option<u8>,
//! }
//!
//! #[derive(Debug)]
//! enum Action {
//!     Define(Define),
//! }
//!
//! let tools = Toolset::new().tool("define", "Look a word up.", Action::Define);
//! let request = tools.request(Target::OpenAiStrict);
//! // The request's `tools`, strict, with the optional `senses` required and nullable.
//! assert_eq!(request.body()["tools"][0]["function"]["strict"], true);
//! // OpenAI sends the arguments as a string; a strict null means "not given".
//! let call = request.call("define", r#"{"word": "tool", "senses": null}"#).unwrap();
//! assert!(matches!(call, Action::Define(Define { senses: None, .. })));
//! // Out of bounds: the text to send back as the tool result.
//! let refused = request.call("define", json!({"word": "tool", "senses": 9})).unwrap_err();
//! assert!(refused.to_string().contains("/senses must be at most 5"));
//! ```
//!
//! Where the parameter type's parts go: its fields' doc comments are the properties'
//! descriptions; the struct's doc comment is the schema's root `description`, which a provider
//! reads beside the tool's own: it is sent only when it says something else than the tool's
//! description (pass `""` as the description to use it as the tool's). The type's name, the
//! schema's root `title`, is never sent.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::adapt::{AdaptSettings, Adapted, ConvertReport, Converted, Target, convert_for};
use crate::catalog::{Catalog, Layout, Tool};
use crate::contract::{self, AllowList};
use crate::traits::ToolParams;

/// Turns a tool call's arguments, through the adaptation the request sent, into the caller's
/// value.
#[cfg(feature = "validate")]
type Parse<T> = Arc<dyn Fn(&Adapted<'_>, Value) -> Result<T, crate::ArgsError> + Send + Sync>;

/// The tools an agent offers, each from its parameter type, mapped to one type `T` (see the
/// [module documentation](self)).
pub struct Toolset<T> {
    catalog: Catalog,
    #[cfg(feature = "validate")]
    parsers: Vec<Parse<T>>,
    #[cfg(not(feature = "validate"))]
    parsers: std::marker::PhantomData<T>,
}

impl<T> Default for Toolset<T> {
    fn default() -> Self {
        Toolset {
            catalog: Catalog {
                layout: Layout::ToolArray,
                tools: Vec::new(),
            },
            parsers: Default::default(),
        }
    }
}

impl<T> fmt::Debug for Toolset<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolset")
            .field("catalog", &self.catalog)
            .finish_non_exhaustive()
    }
}

impl<T> Toolset<T> {
    /// No tools yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the tool `name`, described as `description`, with the parameters `P`; a call of it
    /// becomes `into(P)` (an enum variant's constructor, or any function). An empty
    /// `description` takes the struct's doc comment. The structural unions `P`'s types allow
    /// ([`ToolParams::allowed_unions`]) travel with the tool.
    ///
    /// A name registered twice keeps the last registration.
    pub fn tool<P, F>(mut self, name: &str, description: &str, into: F) -> Self
    where
        P: ToolParams + 'static,
        F: Fn(P) -> T + Send + Sync + 'static,
        T: 'static,
    {
        let tool = Tool::from_params::<P>(name, description);
        if let Some(i) = self.index(name) {
            self.catalog.tools.remove(i);
            #[cfg(feature = "validate")]
            self.parsers.remove(i);
        }
        self.catalog.tools.push(tool);
        #[cfg(feature = "validate")]
        self.parsers.push(Arc::new(move |adapted, args| {
            crate::args::restore_into::<P>(adapted, args).map(&into)
        }));
        #[cfg(not(feature = "validate"))]
        let _ = into;
        self
    }

    fn index(&self, name: &str) -> Option<usize> {
        (self.catalog.tools.iter()).position(|t| t.name.as_deref() == Some(name))
    }

    /// The tools as published (names, descriptions, schemas, allowed unions): what `toolschema
    /// convert`, `lint` and `snapshot` read; [`Catalog::to_value`] writes it as an MCP
    /// `tools/list` result.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Every tool against the published-schema contract, with the unions each allows.
    pub fn check_contract(&self) -> contract::ContractReport {
        self.catalog.check(&AllowList::new())
    }

    /// The tools for `target`, with its default settings.
    pub fn request(&self, target: Target) -> Request<'_, T> {
        self.request_with(&target.settings())
    }

    /// The tools for a provider as adjusted by the caller (kept keywords, added or removed
    /// rules, encoding): each call is restored through the same adaptation.
    pub fn request_with(&self, settings: &AdaptSettings) -> Request<'_, T> {
        Request {
            converted: convert_for(&self.catalog, settings),
            toolset: self,
        }
    }
}

impl Tool {
    /// The tool `name` with the parameters `P`: its published schema, and the unions `P`'s types
    /// allow as allow-list entries for this tool (what [`crate::catalog::Catalog::check`]
    /// reads). An empty `description` takes the struct's doc comment (the schema's root
    /// `description`), or none.
    pub fn from_params<P: ToolParams>(name: &str, description: &str) -> Tool {
        let schema = P::published_schema();
        let violations = contract::check(&schema);
        let allowed = AllowList::from_allowed_unions(&P::allowed_unions(), &violations);
        let allowed_unions = (allowed.entries().iter())
            .map(|e| contract::AllowEntry {
                tool: Some(name.to_owned()),
                ..e.clone()
            })
            .collect();
        let description = match description {
            "" => schema
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
            given => Some(given.to_owned()),
        };
        Tool {
            name: Some(name.to_owned()),
            description,
            schema,
            allowed_unions,
        }
    }
}

/// A [`Toolset`] for one provider: the request's tools and their report, and the way back from
/// a tool call.
pub struct Request<'t, T> {
    converted: Converted<'t>,
    toolset: &'t Toolset<T>,
}

impl<T> fmt::Debug for Request<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Request")
            .field("declarations", &self.converted.declarations)
            .field("report", &self.converted.report)
            .finish_non_exhaustive()
    }
}

impl<'t, T> Request<'t, T> {
    /// The tools as `toolschema convert` writes them (an array of declarations, or Gemini's
    /// `{"functionDeclarations": [...]}`): [`Converted::declarations`].
    pub fn declarations(&self) -> &Value {
        &self.converted.declarations
    }

    /// The part of the provider's request body that carries the tools, to merge into the rest
    /// of the body: `{"tools": [...]}` (OpenAI, Anthropic, MCP's `tools/list` result),
    /// `{"tools": [{"functionDeclarations": [...]}]}` (Gemini), `{"toolConfig": {"tools":
    /// [...]}}` (Bedrock).
    pub fn body(&self) -> Value {
        self.converted.body()
    }

    /// What each tool lost or had changed on the way, and whether it is strict.
    pub fn report(&self) -> &ConvertReport {
        &self.converted.report
    }

    /// The whole request against the provider's request limits
    /// ([`crate::adapt::check_request`]): more tools than it takes is a problem to solve before
    /// sending (`can_send()` is false); a description over its limit is already cut in
    /// [`Request::declarations`], reported in [`Request::report`].
    pub fn limits(&self) -> crate::adapt::RequestCheck {
        crate::adapt::check_request(
            &self.toolset.catalog,
            &self.converted.report.target.settings(),
        )
    }

    /// The adaptation of the tool the provider knows as `name` (a name the provider refuses is
    /// sent rewritten: the report's `renamed_from`).
    pub fn adapted(&self, name: &str) -> Option<&Adapted<'t>> {
        self.position(name).map(|i| &self.converted.adapted[i])
    }

    fn position(&self, name: &str) -> Option<usize> {
        (self.converted.report.tools.iter()).position(|t| t.tool == name)
    }
}

#[cfg(feature = "validate")]
impl<T> Request<'_, T> {
    /// A model's call of the tool `name` with `arguments` (a JSON value, or the JSON text
    /// OpenAI sends), restored through this request's adaptation, validated against the
    /// published schema and turned into the caller's value; or the refusal, whose `Display` is
    /// the text to send back to the model as the tool result.
    pub fn call(&self, name: &str, arguments: impl Into<Arguments>) -> Result<T, CallError> {
        let Some(i) = self.position(name) else {
            let known = (self.converted.report.tools.iter())
                .map(|t| t.tool.clone())
                .collect();
            return Err(CallError::UnknownTool {
                name: name.to_owned(),
                known,
            });
        };
        let args = match arguments.into() {
            Arguments::Value(v) => v,
            Arguments::Text(text) => match serde_json::from_str(&text) {
                Ok(v) => v,
                Err(e) => {
                    return Err(CallError::Args(crate::ArgsError::invalid().with(
                        "",
                        format!("must be a JSON object written as JSON text ({e})"),
                        Some(&Value::String(text)),
                    )));
                }
            },
        };
        Ok((self.toolset.parsers[i])(&self.converted.adapted[i], args)?)
    }
}

/// A tool call's arguments as a provider sends them: a JSON value (Anthropic's `input`,
/// Gemini's `args`) or JSON text (OpenAI's `arguments`).
#[derive(Clone, Debug, PartialEq)]
pub enum Arguments {
    /// Already parsed.
    Value(Value),
    /// JSON text.
    Text(String),
}

impl From<Value> for Arguments {
    fn from(v: Value) -> Self {
        Arguments::Value(v)
    }
}

impl From<&str> for Arguments {
    fn from(text: &str) -> Self {
        Arguments::Text(text.to_owned())
    }
}

impl From<String> for Arguments {
    fn from(text: String) -> Self {
        Arguments::Text(text)
    }
}

/// Why a tool call was not turned into a value. Its `Display` is written for the model: send it
/// back as the tool result (with the provider's error flag where it has one).
#[cfg(feature = "validate")]
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum CallError {
    /// The model named a tool this request does not have.
    UnknownTool {
        /// The name it sent.
        name: String,
        /// The tools it has, as sent.
        known: Vec<String>,
    },
    /// The arguments were refused.
    Args(crate::ArgsError),
}

#[cfg(feature = "validate")]
impl From<crate::ArgsError> for CallError {
    fn from(e: crate::ArgsError) -> Self {
        CallError::Args(e)
    }
}

#[cfg(feature = "validate")]
impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::UnknownTool { name, known } => write!(
                f,
                "There is no tool named `{name}`. Call one of: {}.",
                known.join(", ")
            ),
            CallError::Args(e) => e.fmt(f),
        }
    }
}

#[cfg(feature = "validate")]
impl std::error::Error for CallError {}
