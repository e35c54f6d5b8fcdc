//! The test documents every rule and target is run on: each real tool and fuzz fixture bundled
//! in the repository, documents made for particular rules, and generated ones.

use serde_json::{Value, json};

use crate::catalog::Catalog;

/// A deterministic source of choices for the document generator (xorshift; no dependency).
pub(crate) trait Xorshift {
    /// The generator's state (never 0).
    fn state(&mut self) -> &mut u64;

    fn next(&mut self) -> u64 {
        let s = self.state();
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        *s
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[(self.next() % from.len() as u64) as usize]
    }
}

/// Every real tool's schema and every fuzz regression fixture's schema, bundled in the
/// repository.
fn fixtures() -> Vec<Value> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures");
    let read = |dir: &str| -> Vec<Value> {
        let mut files: Vec<_> = std::fs::read_dir(format!("{root}/{dir}"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json") && !p.ends_with("SOURCES.json"))
            .collect();
        files.sort();
        files
            .iter()
            .map(|p| crate::adapt::parse_deep(&std::fs::read_to_string(p).unwrap()).unwrap())
            .collect()
    };
    let mut schemas: Vec<Value> = read("tools")
        .into_iter()
        .flat_map(|c| Catalog::from_value(c).unwrap().tools)
        .map(|t| t.schema)
        .collect();
    assert!(schemas.len() > 200, "the real tools are there");
    let fuzz = read("fuzz");
    assert!(fuzz.len() > 40, "the fuzz fixtures are there");
    schemas.extend(fuzz.into_iter().map(|f| f["schema"].clone()));
    schemas
}

/// Schema-like documents built from the keywords rules ask about and write, in every
/// position (xorshift, deterministic).
pub(crate) struct Gen(pub(crate) u64);

impl Xorshift for Gen {
    fn state(&mut self) -> &mut u64 {
        &mut self.0
    }
}

impl Gen {
    pub(crate) fn schema(&mut self, depth: u32) -> Value {
        if depth > 0 && self.next() % 11 == 0 {
            return json!(self.next() % 2 == 0);
        }
        let mut map = serde_json::Map::new();
        for _ in 0..self.next() % 5 {
            let key = self.pick(&[
                "type",
                "type",
                "properties",
                "properties",
                "required",
                "anyOf",
                "oneOf",
                "allOf",
                "any_of",
                "prefix_items",
                "additional_properties",
                "items",
                "prefixItems",
                "$ref",
                "$defs",
                "definitions",
                "default",
                "const",
                "enum",
                "not",
                "nullable",
                "description",
                "format",
                "pattern",
                "minLength",
                "title",
                "additionalProperties",
                "propertyOrdering",
                "examples",
                "$schema",
                "$schema",
                "additionalItems",
            ]);
            let sub = depth < 3;
            let value = match key {
                "type" if self.next() % 3 == 0 => json!([
                    self.pick(&["string", "object", "array", "integer"]),
                    self.pick(&["null", "string", "object"])
                ]),
                "type" => json!(self.pick(&["string", "object", "array", "null", "number"])),
                "properties" | "$defs" | "definitions" if sub => {
                    let mut m = serde_json::Map::new();
                    for name in ["a", "b", "anyOf", "$ref"] {
                        if self.next() % 2 == 0 {
                            m.insert(name.into(), self.schema(depth + 1));
                        }
                    }
                    Value::Object(m)
                }
                "required" => json!(["a", self.pick(&["b", "ghost", "anyOf"])]),
                "anyOf" | "oneOf" | "allOf" | "any_of" | "prefix_items" | "prefixItems" if sub => {
                    let n = 1 + self.next() % 3;
                    Value::Array((0..n).map(|_| self.schema(depth + 1)).collect())
                }
                "items" if sub && self.next() % 3 == 0 => {
                    // Draft-07's tuple form.
                    let n = 1 + self.next() % 2;
                    Value::Array((0..n).map(|_| self.schema(depth + 1)).collect())
                }
                "items" | "not" | "additional_properties" | "additionalProperties" if sub => {
                    self.schema(depth + 1)
                }
                "additionalProperties" => json!(false),
                "$ref" => json!(self.pick(&["#/$defs/a", "#/definitions/b", "#", "#/$defs/x"])),
                "default" | "const" => json!(self.pick(&["x", "1", ""])),
                "enum" => json!([self.pick(&["x", "y"]), self.next() % 3]),
                "nullable" => json!(self.next() % 2 == 0),
                "propertyOrdering" => json!(["a"]),
                "examples" => json!([1]),
                "minLength" => json!(2),
                "$schema" => json!(self.pick(&[
                    "http://json-schema.org/draft-07/schema#",
                    "https://json-schema.org/draft/2020-12/schema"
                ])),
                "additionalItems" if sub => self.schema(depth + 1),
                _ => json!(self.pick(&["date-time", "^a$", "text"])),
            };
            map.insert(key.into(), value);
        }
        Value::Object(map)
    }
}

/// Documents where the draft-07 upgrade or the `$schema` removal has work at the root
/// alone, or only seems to: the root's work puts a schema below it (`nullable`), or a node
/// below holds a form too (by key, or only as a fact of a value).
fn at_the_root() -> Vec<Value> {
    let draft07 = "http://json-schema.org/draft-07/schema#";
    vec![
        json!({"$schema": draft07, "type": "object", "properties": {"a": {"type": "string"}}}),
        json!({"$schema": 3, "properties": {"a": {"$ref": "#/$defs/x"}}}),
        json!({"$schema": draft07, "nullable": true, "properties": {}}),
        json!({"$schema": draft07, "nullable": true, "type": "object"}),
        json!({"$schema": draft07, "properties": {"a": {"$schema": draft07}}}),
        json!({"$schema": draft07, "properties": {"a": {"nullable": true}}}),
        json!({"$schema": draft07, "properties": {"a": {"items": [{"type": "string"}]}}}),
        json!({"$schema": draft07, "properties": {"a": {"$ref": "#/definitions/a"}}}),
        json!({"$schema": draft07, "default": {"$schema": 1}, "type": "object"}),
        json!({"$schema": draft07, "items": [{"type": "string"}], "additionalItems": false}),
        json!({"$ref": "#/definitions/a", "definitions": {"a": {"type": "object"}}}),
        json!({"type": "object", "properties": {"$schema": {"type": "string"}}}),
    ]
}

/// Documents where a rule may make a fact the scan notes that the input did not have as
/// such: an `anyOf` in a union's branch (splice-nested-anyof), a `type: "array"`
/// (tuple-items), a list of types (split-type-arrays), a union past `[T, null]`
/// (structured-first).
fn facts_made_by_rules() -> Vec<Value> {
    let str_or_null = json!({"anyOf": [{"type": "string"}, {"type": "null"}]});
    vec![
        // A single `allOf` branch merged into a union's branch.
        json!({"type": "object", "properties": {"a": {"anyOf": [{"allOf": [str_or_null]}, {"type": "integer"}]}}}),
        // A referenced definition put into a union's branch.
        json!({"type": "object", "properties": {"a": {"anyOf": [{"$ref": "#/$defs/u"}, {"type": "integer"}]}}, "$defs": {"u": str_or_null}}),
        json!({"type": "object", "properties": {"a": {"anyOf": [{"$ref": "#/$defs/u", "description": "d"}, {"type": "integer"}]}}, "$defs": {"u": str_or_null}}),
        // `oneOf` in `oneOf`, read as `anyOf`.
        json!({"type": "object", "properties": {"a": {"oneOf": [{"oneOf": [{"type": "string"}, {"type": "null"}]}, {"type": "integer"}]}}}),
        // A type list split into a union, inside a union's branch.
        json!({"type": "object", "properties": {"a": {"anyOf": [{"type": ["string", "null"]}, {"type": "integer"}]}}}),
        // An optional property that is a union with more than the union (wrapped whole).
        json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "integer"}], "enum": ["x", 1]}}}),
        json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "integer"}], "description": "d"}}, "required": []}),
        // Tuples, positions that are unions.
        json!({"type": "object", "properties": {"t": {"type": "array", "prefixItems": [str_or_null, {"type": "integer"}]}}}),
        json!({"type": "object", "properties": {"t": {"items": [{"type": "string"}], "additionalItems": false}}}),
        // Arrays whose type is inferred, or comes from a merged branch or a definition.
        json!({"type": "object", "properties": {"l": {"items": {"type": "string"}}}}),
        json!({"type": "object", "properties": {"l": {"allOf": [{"type": "array"}]}}}),
        json!({"type": "object", "properties": {"l": {"$ref": "#/$defs/l"}}, "$defs": {"l": {"type": "array"}}}),
        json!({"type": "object", "properties": {"l": {"type": ["array", "null"]}}}),
        json!({"type": "object", "properties": {"l": {"nullable": true, "type": "array"}}}),
        // An array type that meets an `items` that is no schema in a merge.
        json!({"type": "object", "properties": {"l": {"type": "array", "items": {"type": "string"}, "allOf": [{"items": true}]}}}),
        json!({"type": "object", "properties": {"l": {"items": [{"type": "string"}], "allOf": [{"type": "array", "items": {}}]}}}),
        json!({"type": "object", "properties": {"l": {"$ref": "#/$defs/l", "items": true}}, "$defs": {"l": {"type": "array", "items": {"type": "string"}}}}),
        // Unions of a schema and the null schema, and a structured branch after a null one.
        json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "null"}], "nullable": true}}}),
        json!({"type": "object", "properties": {"a": {"oneOf": [{"type": "object", "properties": {}}, {"type": "null"}]}}}),
        json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "null"}, {"type": "object", "properties": {"x": {"type": "string"}}}]}}}),
        json!({"type": "object", "properties": {"a": {"type": ["object", "null"], "properties": {"x": {"type": ["string", "integer"]}}}}}),
        // Nodes left untyped: a union, an `allOf` or a `$ref` taken away or merged into a
        // node with an enum, `items` or `properties` and no type of its own; a `null` type
        // taken away; a snake_case tuple renamed.
        json!({"type": "object", "properties": {"a": {"allOf": [{"description": "d"}], "enum": ["x"]}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/d", "enum": ["x"]}}, "$defs": {"d": {"description": "d"}}}),
        json!({"type": "object", "properties": {"a": {"anyOf": [{"description": "d"}], "enum": ["x", "y"]}}}),
        json!({"type": "object", "properties": {"a": {"oneOf": [{"description": "d"}, {"type": "null"}], "items": {"type": "string"}}}}),
        json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "null"}], "enum": ["x", null]}}}),
        json!({"type": "object", "properties": {"a": {"type": "null", "properties": {}}}}),
        json!({"type": "object", "properties": {"a": {"type": ["null"], "items": {"type": "string"}}}}),
        json!({"type": "object", "properties": {"a": {"anyOf": [{"const": "x"}, {"const": 1}]}}}),
        json!({"type": "object", "properties": {"a": {"anyOf": [{"const": null}, {"const": null}]}}}),
        json!({"type": "object", "properties": {"a": {"prefix_items": [{"type": "string"}]}}}),
        json!({"anyOf": [{"type": "object", "properties": {"x": {"type": "string", "enum": ["a"]}}}, {"type": "object", "properties": {"x": {"type": "integer", "enum": [1]}}}]}),
        // A `$schema` hidden below a snake_case spelling until it is renamed (the only
        // keyword of Google's strip list there).
        json!({"type": "object", "properties": {"a": {"any_of": [{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"}, {"type": "integer"}]}}}),
        json!({"type": "object", "additional_properties": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}}),
        // Lists of types split where the document holds no `anyOf`: one in a single `allOf`
        // branch (merged into each new branch later), one in a `oneOf` branch (made an
        // `anyOf` later), one beside another list below it.
        json!({"type": "object", "properties": {"a": {"type": ["string", "null"], "allOf": [{"type": ["string", "null"], "minLength": 1}]}}}),
        json!({"type": "object", "properties": {"a": {"oneOf": [{"type": ["string", "null"]}, {"type": "integer"}]}}}),
        json!({"type": "object", "properties": {"a": {"type": ["array", "null"], "items": {"type": ["object", "null"], "properties": {"b": {"type": ["integer", "null"]}}}}}}),
        // `null` types written: an enum of `null` alone typed, a wrapped optional property.
        json!({"type": "object", "properties": {"a": {"enum": [null]}, "b": {"type": "string"}}, "required": ["a"]}),
    ]
}

/// The real tools, the fuzz fixtures, documents made for particular rules, and 1,500
/// generated documents.
pub(crate) fn documents() -> Vec<Value> {
    let mut docs = fixtures();
    docs.extend(at_the_root());
    docs.extend(facts_made_by_rules());
    let mut generator = Gen(0x0dd5_eed5);
    docs.extend((0..1_500).map(|_| generator.schema(0)));
    docs
}
