//! What a user can change for a tool to be strict, said beside each reason strict mode fails
//! open on ([`crate::adapt::report::Unrepresentable::fix`]): a change to the Rust type the schema
//! comes from (each refusal names its own), and encoding, offered only where the engine found
//! that the same settings with encoding on make the tool strict.

/// An open map (`additionalProperties` true or a schema).
pub(crate) const OPEN_MAP: &str = "replace the map (`HashMap`, `BTreeMap`, `serde_json::Map`) with a struct whose fields name its keys";

/// `patternProperties`.
pub(crate) const PATTERN_MAP: &str =
    "replace the pattern-keyed map with a struct whose fields name its keys";

/// A place that takes any value (`true`, `{}`, a node with no type).
pub(crate) const ANY_VALUE: &str = "give the field a concrete type instead of `serde_json::Value` (or `#[schemars(with = \"T\")]` with a type that says what it holds)";

/// An object that declares no properties.
pub(crate) const ANY_OBJECT: &str =
    "declare the object's fields in a struct instead of `serde_json::Map` or an empty object";

/// A boolean subschema.
pub(crate) const BOOLEAN: &str =
    "give the place a typed schema (`#[schemars(with = \"T\")]` on the field)";

/// `allOf` of several schemas.
pub(crate) const ALL_OF: &str = "write the members' fields in one struct (an `allOf` of several members comes from a hand-written schema or `schema_with`)";

/// An enum of objects or arrays.
pub(crate) const STRUCTURED_ENUM: &str =
    "make the enum's values strings (a unit-variant enum) and map them to the values in the server";

/// An enum value of another type than the node's.
pub(crate) const MIXED_ENUM: &str = "make every enum value of the node's type";

/// A `$ref` that does not resolve, or an external one.
pub(crate) const UNRESOLVED_REF: &str = "define the referenced schema in the document's `$defs` (schemars does for derived types; a hand-written `$ref` must point there)";

/// Recursion where the target takes none.
pub(crate) const RECURSION: &str =
    "bound the depth in the Rust type (a separate type for each level, the last without the field)";

/// An array without an `items` schema.
pub(crate) const NO_ITEMS: &str = "give the list an item type (`Vec<T>` with `T: JsonSchema`)";

/// Past OpenAI's enum limits.
pub(crate) const LONG_ENUM: &str =
    "take the long list of values out of the enum (a `String` the server checks against it)";

/// Past OpenAI's property or name-length limits.
pub(crate) const TOO_BIG: &str = "split the tool into several with fewer parameters";

/// Past OpenAI's nesting limit.
pub(crate) const TOO_DEEP: &str = "flatten the Rust type (fewer levels of structs inside structs)";

/// Said of a tool that the target's strict check refused after the caller's rules.
pub(crate) const COMPOSED: &str = "To keep the tool strict, keep the target's own rules for what the check names (remove the `without_rule`, `with_rule` or `keep_keyword` that lets it through).";

/// Said of a tool past a per-request strict budget (Anthropic's).
pub(crate) const BUDGET: &str = "To keep the tool strict, send fewer tools in one request, or list it earlier (the budget is used in catalog order); required fields (no `Option`, no `#[serde(default)]`) use less of it.";

/// Said when the same settings with encoding on make the tool strict.
const ENCODE: &str = "turn on encoding (`AdaptSettings::with_encoding(true)`, `--encode`; the proxy encodes by default), which sends what strict mode cannot hold in a form it can and decodes the model's arguments back (`restore`, `from_args` through the same settings)";

/// The sentence that ends a fail-open reason: the type's own fix, and encoding when it works.
pub(crate) fn sentence(type_fix: Option<&str>, encoding_works: bool) -> Option<String> {
    match (type_fix, encoding_works) {
        (Some(fix), true) => Some(format!("To keep the tool strict, {fix}, or {ENCODE}.")),
        (Some(fix), false) => Some(format!("To keep the tool strict, {fix}.")),
        (None, true) => Some(format!("To keep the tool strict, {ENCODE}.")),
        (None, false) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sentence_names_what_works() {
        assert_eq!(
            sentence(Some(OPEN_MAP), false).unwrap(),
            format!("To keep the tool strict, {OPEN_MAP}.")
        );
        let both = sentence(Some(ANY_VALUE), true).unwrap();
        assert!(both.contains("concrete type") && both.contains("with_encoding(true)"));
        assert!(sentence(None, true).unwrap().contains("--encode"));
        assert_eq!(sentence(None, false), None);
    }
}
