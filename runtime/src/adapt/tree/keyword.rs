//! The JSON Schema vocabulary as an enum: a keyword read from the input is interned once, and a
//! rule asking "does this node have `anyOf`?" compares integers.

use serde_json::Value;

/// How a keyword holds subschemas (the table `crate::walk` reads from).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Holds {
    /// Not a subschema: a value.
    Value,
    /// One schema (`not`, `additionalProperties`, ...).
    One,
    /// A list of schemas (`anyOf`, `prefixItems`, ...).
    List,
    /// One schema or (draft-07 tuples) a list of them: `items`.
    OneOrList,
    /// Names to schemas (`properties`, `$defs`, ...).
    Map,
}

macro_rules! vocabulary {
    ($($variant:ident = $text:literal $holds:ident,)+) => {
        /// A keyword of JSON Schema (2020-12 and draft-07) or of the OpenAPI forms the providers
        /// use. Anything else is a [`Key::Other`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(missing_docs)]
        pub enum Keyword { $($variant,)+ }

        impl Keyword {
            /// The keyword as JSON spells it.
            pub fn as_str(self) -> &'static str {
                match self { $(Keyword::$variant => $text,)+ }
            }

            /// The keyword spelled `text`, if it is one.
            pub fn parse(text: &str) -> Option<Keyword> {
                match text { $($text => Some(Keyword::$variant),)+ _ => None }
            }

            /// How the keyword holds subschemas.
            pub(crate) fn holds(self) -> Holds {
                match self { $(Keyword::$variant => Holds::$holds,)+ }
            }

            /// Every keyword with its spelling.
            const ALL: &'static [(Keyword, &'static str)] = &[$((Keyword::$variant, $text),)+];
        }
    };
}

vocabulary! {
    Schema = "$schema" Value,
    Id = "$id" Value,
    Ref = "$ref" Value,
    Defs = "$defs" Map,
    Definitions = "definitions" Map,
    Comment = "$comment" Value,
    Anchor = "$anchor" Value,
    DynamicRef = "$dynamicRef" Value,
    DynamicAnchor = "$dynamicAnchor" Value,
    Type = "type" Value,
    Enum = "enum" Value,
    Const = "const" Value,
    Properties = "properties" Map,
    PatternProperties = "patternProperties" Map,
    AdditionalProperties = "additionalProperties" One,
    PropertyNames = "propertyNames" One,
    UnevaluatedProperties = "unevaluatedProperties" One,
    Required = "required" Value,
    Items = "items" OneOrList,
    PrefixItems = "prefixItems" List,
    AdditionalItems = "additionalItems" One,
    UnevaluatedItems = "unevaluatedItems" One,
    Contains = "contains" One,
    MinContains = "minContains" Value,
    MaxContains = "maxContains" Value,
    AllOf = "allOf" List,
    AnyOf = "anyOf" List,
    OneOf = "oneOf" List,
    Not = "not" One,
    If = "if" One,
    Then = "then" One,
    Else = "else" One,
    DependentSchemas = "dependentSchemas" Map,
    DependentRequired = "dependentRequired" Value,
    Dependencies = "dependencies" Map,
    ContentSchema = "contentSchema" One,
    ContentEncoding = "contentEncoding" Value,
    ContentMediaType = "contentMediaType" Value,
    Title = "title" Value,
    Description = "description" Value,
    Default = "default" Value,
    Examples = "examples" Value,
    Example = "example" Value,
    Deprecated = "deprecated" Value,
    ReadOnly = "readOnly" Value,
    WriteOnly = "writeOnly" Value,
    Format = "format" Value,
    Pattern = "pattern" Value,
    MinLength = "minLength" Value,
    MaxLength = "maxLength" Value,
    Minimum = "minimum" Value,
    Maximum = "maximum" Value,
    ExclusiveMinimum = "exclusiveMinimum" Value,
    ExclusiveMaximum = "exclusiveMaximum" Value,
    MultipleOf = "multipleOf" Value,
    MinItems = "minItems" Value,
    MaxItems = "maxItems" Value,
    UniqueItems = "uniqueItems" Value,
    MinProperties = "minProperties" Value,
    MaxProperties = "maxProperties" Value,
    Nullable = "nullable" Value,
    PropertyOrdering = "propertyOrdering" Value,
    Discriminator = "discriminator" Value,
}

/// An entry's key: a keyword of the vocabulary, or any other name (kept as the input spelled it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    /// A keyword of the vocabulary.
    Kw(Keyword),
    /// Any other key.
    Other(Box<str>),
}

impl Key {
    /// `text` interned: a keyword of the vocabulary is always a [`Key::Kw`].
    pub fn of(text: &str) -> Key {
        match Keyword::parse(text) {
            Some(k) => Key::Kw(k),
            None => Key::Other(text.into()),
        }
    }

    /// The key as JSON spells it.
    pub fn as_str(&self) -> &str {
        match self {
            Key::Kw(k) => k.as_str(),
            Key::Other(s) => s,
        }
    }

    /// How the key holds subschemas.
    pub(crate) fn holds(&self) -> Holds {
        match self {
            Key::Kw(k) => k.holds(),
            Key::Other(_) => Holds::Value,
        }
    }
}

impl From<Keyword> for Key {
    fn from(k: Keyword) -> Key {
        Key::Kw(k)
    }
}

impl PartialEq<Keyword> for Key {
    fn eq(&self, other: &Keyword) -> bool {
        matches!(self, Key::Kw(k) if k == other)
    }
}

/// A set of keys given as text (a provider's keyword table): the vocabulary's as bits, made
/// when the program is compiled (`const`); a key outside the vocabulary is compared as text.
/// Asking whether an entry's key is in it compares an integer.
#[derive(Clone, Copy, Debug, Default)]
pub struct KeySet {
    keywords: u128,
    keys: &'static [&'static str],
}

impl KeySet {
    /// The set of `keys` (in a `const`, made at compile time).
    pub const fn of(keys: &'static [&'static str]) -> KeySet {
        let mut keywords = 0u128;
        let mut k = 0;
        while k < keys.len() {
            let mut w = 0;
            while w < Keyword::ALL.len() {
                if same(keys[k], Keyword::ALL[w].1) {
                    keywords |= 1 << Keyword::ALL[w].0 as u32;
                }
                w += 1;
            }
            k += 1;
        }
        KeySet { keywords, keys }
    }

    /// Whether `key` is in the set.
    pub fn contains(&self, key: &Key) -> bool {
        match key {
            Key::Kw(k) => self.keywords & (1 << *k as u32) != 0,
            Key::Other(s) => self.keys.iter().any(|o| **o == **s),
        }
    }
}

/// `a == b`, in a `const fn`.
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A JSON Schema is an object or a boolean.
pub(crate) fn is_schema(value: &Value) -> bool {
    matches!(value, Value::Object(_) | Value::Bool(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every keyword reads back as itself, and the subschema table agrees with `crate::walk`'s.
    #[test]
    fn the_vocabulary_reads_back_and_agrees_with_the_walk() {
        let all = [
            "$schema",
            "$ref",
            "$defs",
            "definitions",
            "type",
            "properties",
            "items",
            "anyOf",
            "oneOf",
            "allOf",
            "not",
            "if",
            "then",
            "else",
            "prefixItems",
            "additionalProperties",
            "patternProperties",
            "dependentSchemas",
            "dependencies",
            "contentSchema",
            "contains",
            "propertyNames",
            "unevaluatedProperties",
            "unevaluatedItems",
            "additionalItems",
            "description",
            "nullable",
            "propertyOrdering",
        ];
        for text in all {
            let k = Keyword::parse(text).expect(text);
            assert_eq!(k.as_str(), text);
            let walk = crate::walk::SINGLE_SCHEMA_KEYWORDS.contains(&text)
                || crate::walk::SCHEMA_ARRAY_KEYWORDS.contains(&text)
                || crate::walk::SCHEMA_MAP_KEYWORDS.contains(&text);
            assert_eq!(walk, k.holds() != Holds::Value, "{text}");
        }
        assert_eq!(Key::of("x-thing"), Key::Other("x-thing".into()));
        assert_eq!(Key::of("anyOf"), Keyword::AnyOf);
    }
}
