//! xgrammar (<https://github.com/mlc-ai/xgrammar>): the default structured-output engine of vLLM
//! (its `auto` backend) and SGLang. With a named `tool_choice` or `"required"`, vLLM turns the
//! tools' parameters into a JSON Schema that xgrammar compiles into the grammar constraining the
//! model (with `"auto"` the call is parsed afterwards, unconstrained). Read from
//! `cpp/json_schema_converter.cc` and `cpp/regex_converter.cc` at commit
//! 53da3ff8ce3fb1d1ebe7f8a36ec2f0a6c4f9ec4b, run in strict mode (vLLM's and SGLang's default), and
//! from vLLM's `has_xgrammar_unsupported_json_features` (its xgrammar backend), which refuses a
//! schema up front, or sends it to another engine under `auto`:
//!
//! - refused, so rewritten or removed here: a boolean `false` subschema and `true` among
//!   `prefixItems` (`bool-schemas`); a reference that does not resolve, or whose path has an
//!   escape (`~1`, `%25`: xgrammar splits on `/` without unescaping), or with an assertion beside
//!   it (read alone): every reference is inlined (`xgrammar-refs`, then `inline-refs`: recursion
//!   unrolled, then cut, a loss); plain references are kept, recursion with them; an integer bound that is not a whole
//!   64-bit number, an empty range, lengths or counts that contradict each other; a pattern
//!   with lookaround, back-references, `\b`, `\p{..}` or flags (spilled, `xgrammar-patterns`);
//!   and what vLLM refuses: `multipleOf`, `uniqueItems`, `contains`, `minContains`,
//!   `maxContains`, a format outside xgrammar's fourteen, lengths beside a pattern or format,
//!   `patternProperties` and `propertyNames` beside other object keywords (all spilled,
//!   `xgrammar-reads`);
//! - skipped without a word (its warnings are off by default), so spilled or dropped here with a
//!   loss (`xgrammar-reads`): every keyword but the one reading it takes at a node (see
//!   `rules::xgrammar`): keywords beside `$ref`, `const`, `enum`, a union or `allOf`; an `allOf`
//!   of several members (read as any value); `not`, `if`/`then`/`else`, `dependent*`,
//!   `additionalItems`, `unevaluated*`; a string's pattern beside a format it knows; string and
//!   number keywords on a node without `type`; `oneOf` is read as `anyOf` unless xgrammar proves
//!   it exclusive (`oneof-to-anyof`, `widened` unless we prove it); keywords beside an `anyOf`
//!   move into its branches (`siblings-into-branches`); a pattern is matched against the whole
//!   string with `^`/`$` ignored, so an unanchored one gets "any characters" at its open ends
//!   (`xgrammar-patterns`, the same meaning);
//! - closed (strict mode): an object without `additionalProperties` takes no undeclared
//!   property, a `closed` loss where it declares some (written `additionalProperties: false`),
//!   written `additionalProperties: true` where it declares none (it would take only `{}`); an
//!   array without `items` takes only its `prefixItems` (`items: false` written, a `closed`
//!   loss) or, without them, only `[]` (`items: {}` written).
//!
//! No strict flag: the grammar is on whenever the server constrains the call. `vllm` and
//! `sglang` name this target (both default to xgrammar; a server started with another backend
//! wants `llguidance`).

use super::super::Target;
use super::super::rules::{self as r, Rule};
use super::super::settings::AdaptSettings;
use super::{json_schema_prefix, relaxed_only};

impl AdaptSettings {
    /// xgrammar in strict mode, as vLLM and SGLang run it: what its converter reads, the rest
    /// spilled and reported.
    pub fn xgrammar() -> Self {
        relaxed_only(Target::Xgrammar, relaxed)
    }
}

fn relaxed(_: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = json_schema_prefix();
    rules.extend([
        Box::new(r::BoolSchemas) as Box<dyn Rule>,
        Box::new(r::MergeSingleAllOf),
        Box::new(r::OneOfToAnyOf),
        Box::new(r::SiblingsIntoBranches),
        // An `allOf` moved into a branch whose own keywords it may join.
        Box::new(r::MergeSingleAllOf),
        // References kept where xgrammar reads them as they are (after the union siblings
        // moved, which may land beside one), else inlined, and the inlined copies' union
        // siblings moved in turn.
        Box::new(r::XgrammarRefs),
        Box::new(r::SiblingsIntoBranches),
        Box::new(r::MergeSingleAllOf),
        // What a node says that is not read goes first, subtrees with it (a pattern spilled
        // into a description that then went with its `patternProperties` would be a promise
        // broken).
        Box::new(r::XgrammarReads),
        // A one-member `allOf` that collided with a sibling the reads removed: merged now, as
        // adapting again would.
        Box::new(r::MergeSingleAllOf),
        Box::new(r::XgrammarPatterns),
    ]);
    rules
}
