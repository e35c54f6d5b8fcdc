//! Ollama's chat API with tools (<https://docs.ollama.com/capabilities/tool-calling>; the request
//! types in `api/types.go`). Ollama decodes a tool's parameters into fixed structs: the root
//! keeps `type`, `$defs`, `items`, `required` and `properties`, each property `anyOf`, `type` (a
//! string or a list), `items`, `description`, `enum`, `properties` and `required`; any other
//! keyword is dropped when the request is read, without an error, and the model's template never
//! sees it. So every other keyword is spilled into the description (or dropped) here, with a
//! loss, references are inlined, and an untyped subschema names every type. Ollama has no
//! strict mode. (That `items` holds a property's fields is read from the structs; a template that
//! reads the raw JSON may see more: this target stays conservative.)

use super::super::Target;
use super::super::rules::{self as r, KeySet, Rule};
use super::super::settings::AdaptSettings;
use super::{json_schema_prefix, relaxed_only};

impl AdaptSettings {
    /// Ollama: only the fields of its request types, references inlined.
    pub fn ollama() -> Self {
        relaxed_only(Target::Ollama, relaxed)
    }
}

fn relaxed(_: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = json_schema_prefix();
    rules.extend([
        Box::new(r::RootCombinators::OPENAI) as Box<dyn Rule>,
        Box::new(r::BoolSchemas),
        Box::new(r::TupleItems::default()),
        Box::new(r::MergeSingleAllOf),
        Box::new(r::OneOfToAnyOf),
        Box::new(r::AllConstToEnum),
        Box::new(r::ConstToEnum),
        Box::new(r::InferType),
        Box::new(r::OnlyFields {
            name: "ollama-fields",
            root: OLLAMA_ROOT,
            node: OLLAMA_PROPERTY,
            why: "Ollama's request types drop it",
        }),
        // A node whose `allOf` the field list dropped: its type from what it still says.
        Box::new(r::InferType),
        Box::new(r::InlineRefs::default()),
        Box::new(r::InferType),
        Box::new(r::OpenSubschemas),
        Box::new(r::StructuredFirst),
    ]);
    rules
}

/// The fields of Ollama's `ToolFunctionParameters`.
const OLLAMA_ROOT: KeySet = KeySet::of(&["type", "$defs", "items", "required", "properties"]);

/// The fields of Ollama's `ToolProperty`.
const OLLAMA_PROPERTY: KeySet = KeySet::of(&[
    "anyOf",
    "type",
    "items",
    "description",
    "enum",
    "properties",
    "required",
]);
