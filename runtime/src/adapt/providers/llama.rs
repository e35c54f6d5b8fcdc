//! llama.cpp's server (`llama-server`, and what runs on it): a request's tools, in OpenAI's chat
//! `tools` form, become one GBNF grammar that constrains the model's tool calls. The grammar is
//! built by `common/json-schema-to-grammar.cpp` (through `common/chat.cpp`; read at commit
//! 011c6c3c305634c65886cf7f32805907f667590c) and parsed by `src/llama-grammar.cpp` (commit
//! 04332939dd7adc7edbff9dbb4e25efdfae1c7668). One tool the converter or the parser refuses fails
//! every request (HTTP 400, "JSON schema conversion failed" / "failed to parse grammar"):
//!
//! - refused, so rewritten or removed here: a `pattern` not anchored `^…$` or holding escapes
//!   the grammar parser does not know (`\d`, `\w`, `\s`, `\/`: rewritten with the same meaning;
//!   lookaround, back-references, `\b`: spilled, `llama-cpp-patterns`); a boolean subschema
//!   ("Unrecognized schema: true": `bool-schemas`); a repetition of 2000 or more
//!   (`MAX_REPETITION_THRESHOLD`: `minLength`/`maxLength` at 2000 and over, `minItems`/`maxItems`
//!   at a third of it, spilled, `llama-cpp-reads`); a reference that is not local (`#/...`:
//!   every reference is inlined, `inline-refs`);
//! - skipped without a word, so spilled or dropped here with a loss (`llama-cpp-reads`): every
//!   keyword other than the one reading the converter takes at a node (see
//!   `rules::grammar`): number bounds and `multipleOf`, bounds on strings with a `pattern` or a
//!   `format`, formats but `uuid`, `date`, `time`, `date-time`, `uniqueItems`, `contains`, `not`,
//!   `if`/`then`/`else`, `dependent*`, `patternProperties`, `propertyNames`,
//!   `minProperties`/`maxProperties`, `allOf` of more than one member (after single ones are
//!   merged); `oneOf` is read as `anyOf` (`oneof-to-anyof`, `widened` unless provably exclusive);
//!   keywords beside an `anyOf`, which the converter reads alone, move into its branches
//!   (`siblings-into-branches`);
//! - closed: an object with `properties` and no `additionalProperties` admits no other property
//!   in the grammar, where JSON Schema admits any: a loss at each such object; `{}` reads as any
//!   object, so an empty subschema is given every type.
//!
//! No strict flag: the grammar is always on. LM Studio's GGUF engine is llama.cpp, but its MLX
//! engine (Apple silicon) constrains with another library, so `lm-studio` is not an alias.

use super::super::Target;
use super::super::rules::{self as r, Rule};
use super::super::settings::AdaptSettings;
use super::{json_schema_prefix, relaxed_only};

impl AdaptSettings {
    /// llama.cpp's server: what its grammar converter takes, the rest spilled and reported.
    pub fn llama_cpp() -> Self {
        relaxed_only(Target::LlamaCpp, relaxed)
    }
}

fn relaxed(_: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = json_schema_prefix();
    rules.extend([
        Box::new(r::BoolSchemas) as Box<dyn Rule>,
        Box::new(r::InlineRefs::default()),
        Box::new(r::MergeSingleAllOf),
        Box::new(r::OneOfToAnyOf),
        Box::new(r::SiblingsIntoBranches),
        // What a node says that is not read goes first, subtrees with it: a pattern spilled
        // into a description that then went with its `patternProperties` would be a promise
        // broken.
        Box::new(r::LlamaCppReads),
        Box::new(r::LlamaCppPatterns),
    ]);
    rules
}
