//! A whole catalog to a provider's tool declarations. One bad tool never fails the conversion:
//! it falls back, and the report says which and why.

use std::borrow::Cow;
use std::collections::HashSet;

use serde::Serialize;
use serde_json::Value;

use super::{
    AdaptOptions, AdaptSettings, Adapted, Change, Encoded, Loss, LossKind, Pointer, Target,
};
use crate::catalog::{Catalog, CatalogError, RawCatalog};
use crate::keys::Keys;

/// What happened to one tool.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ToolReport {
    /// The name sent.
    pub tool: String,
    /// The name in the input, when it had to be rewritten for the provider's name rule.
    pub renamed_from: Option<String>,
    /// The strict flag sent (`None`: not sent).
    pub strict: Option<bool>,
    /// The per-tool fallback was used.
    pub fallback: bool,
    /// What the provider no longer enforces.
    pub losses: Vec<Loss>,
    /// Keyword values that were not valid JSON Schema and were repaired, each with its place
    /// (the `valid-keywords` changes: `type: "int"` → `"integer"`, ...). An invalid value
    /// without one meaning makes the tool the fallback instead (`fallback`, with a loss).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub repaired: Vec<Change>,
    /// Places sent encoded ([`super::AdaptSettings::with_encoding`]): key/value pairs, JSON
    /// text. A model's arguments there are decoded by [`crate::restore`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub encoded: Vec<Encoded>,
    /// Annotations not sent ([`Change::annotation`]): the root `title` (the Rust type's name),
    /// a root `description` that repeats the tool's, titles, examples and comments the provider
    /// does not take. Nothing they enforced is lost: they enforced nothing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub annotations: Vec<Change>,
}

/// The annotations an adaptation did not send ([`ToolReport::annotations`]).
fn annotations(adapted: &Adapted) -> Vec<Change> {
    (adapted.changes.iter())
        .filter(|c| c.annotation)
        .cloned()
        .collect()
}

/// The `valid-keywords` changes of an adaptation: what was repaired to make it valid JSON Schema.
fn repairs(adapted: &Adapted) -> Vec<Change> {
    (adapted.changes.iter())
        .filter(|c| c.rule == super::rules::ValidKeywords::NAME)
        .cloned()
        .collect()
}

/// The catalog's report.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ConvertReport {
    /// The target.
    pub target: Target,
    /// One entry per tool, in order.
    pub tools: Vec<ToolReport>,
}

/// The provider's declarations and the report.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Converted<'a> {
    /// The value the provider's request takes, as `toolschema convert` prints it (the README's
    /// `convert` table): an array of declarations (OpenAI's `tools`, Anthropic's `tools`, Bedrock's
    /// `toolConfig.tools`), Gemini's one `Tool` `{"functionDeclarations": [...]}`, or MCP's
    /// `{"tools": [...]}`.
    pub declarations: Value,
    /// What changed and what was lost, per tool.
    pub report: ConvertReport,
    /// Every tool's adaptation, in order (borrowing its input from the catalog:
    /// [`Adapted::into_owned`] keeps one longer).
    pub adapted: Vec<Adapted<'a>>,
    wire: super::Wire,
}

impl Converted<'_> {
    /// The part of the provider's request body that carries the tools ([`super::Wire::body`]):
    /// `{"tools": [...]}`, Gemini's `{"tools": [{"functionDeclarations": [...]}]}`, Bedrock's
    /// `{"toolConfig": {"tools": [...]}}`.
    pub fn body(&self) -> Value {
        self.wire.body(self.declarations.clone())
    }
}

/// Optional parameters and union-typed parameters of a schema, at every level.
fn parameter_counts(schema: &Value) -> (usize, usize) {
    let (mut optional, mut unions) = (0, 0);
    for (node, _) in crate::walk::Walk::new(schema).nodes {
        let Some(Value::Object(props)) = node.key("properties") else {
            continue;
        };
        // A set: linear in the names, however many.
        let required: std::collections::HashSet<&str> = node
            .key("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (name, p) in props {
            if !required.contains(name.as_str()) {
                optional += 1;
            }
            if p.key("anyOf").is_some() || p.key("type").is_some_and(Value::is_array) {
                unions += 1;
            }
        }
    }
    (optional, unions)
}

/// Converts every tool of a catalog for `target`.
pub fn convert(catalog: &Catalog, target: Target) -> Converted<'_> {
    convert_with(catalog, target, AdaptOptions::default())
}

/// [`convert`] with the choices a target leaves to the caller.
pub fn convert_with(catalog: &Catalog, target: Target, options: AdaptOptions) -> Converted<'_> {
    convert_for(catalog, &target.settings().with_options(options))
}

/// [`convert`] with a provider's settings, as adjusted by the caller.
pub fn convert_for<'a>(catalog: &'a Catalog, settings: &AdaptSettings) -> Converted<'a> {
    let tools = catalog.tools.iter().map(|t| {
        let schema = Cow::Borrowed(&t.schema);
        (t.name.clone(), t.description.clone(), schema)
    });
    let mut entries = adapt_tools(tools, settings, true);
    let (declarations, report) = declare(settings, &mut entries, |a| {
        (a.schema.clone(), a.losses.clone())
    });
    Converted {
        declarations,
        report,
        adapted: entries.into_iter().map(|e| e.adapted).collect(),
        wire: settings.wire,
    }
}

/// [`convert_for`] taking the catalog by value, for a caller that only sends the result on
/// (the CLI): each input is dropped as soon as its tool is adapted, and each adapted schema
/// moves into its declaration, so no [`Adapted`] is kept. The same wire form and report as
/// [`convert_for`]'s.
pub fn convert_owned(catalog: Catalog, settings: &AdaptSettings) -> (Value, ConvertReport) {
    let tools = catalog
        .tools
        .into_iter()
        .map(|t| (t.name, t.description, Cow::Owned(t.schema)));
    let mut entries = adapt_tools(tools, settings, false);
    declare(settings, &mut entries, |a| {
        (std::mem::take(&mut a.schema), std::mem::take(&mut a.losses))
    })
}

/// One tool as converted: the name sent, the name it had when that was rewritten, its
/// description and its adaptation.
struct Entry<'a> {
    name: String,
    renamed_from: Option<String>,
    description: Option<String>,
    adapted: Adapted<'a>,
    /// What the request lost beside the schema (a description cut to the provider's limit):
    /// in the tool's report, not in its adaptation, whose pointers are the schema's.
    request_losses: Vec<Loss>,
}

/// Adapts with `settings`, borrowing or taking the input as given.
fn adapt_cow<'a>(settings: &AdaptSettings, input: Cow<'a, Value>) -> Adapted<'a> {
    match input {
        Cow::Borrowed(v) => settings.adapt(v),
        Cow::Owned(v) => settings.adapt_owned(v),
    }
}

/// What converting one tool depends on the tools before it: the names already sent (a name
/// the provider accepts is kept on its first use; only refused and repeated names are
/// rewritten, never into a name another tool keeps) and the provider's per-request strict
/// budget.
struct Sequence<'s> {
    settings: &'s AdaptSettings,
    /// Each tool's name in the input, and whether it is sent as it is.
    originals: std::vec::IntoIter<(String, bool)>,
    taken: HashSet<String>,
    used_tools: usize,
    used_optional: usize,
    used_unions: usize,
}

impl<'s> Sequence<'s> {
    /// For tools named `names` (in order; `None`: a bare schema), converted with `settings`.
    fn new(settings: &'s AdaptSettings, names: impl Iterator<Item = Option<String>>) -> Self {
        let rule = settings.names;
        let mut taken: HashSet<String> = HashSet::new();
        let originals: Vec<(String, bool)> = names
            .map(|n| {
                let original = n.unwrap_or_else(|| "tool".to_owned());
                let kept = rule.fits(&original) && taken.insert(original.clone());
                (original, kept)
            })
            .collect();
        Sequence {
            settings,
            originals: originals.into_iter(),
            taken,
            used_tools: 0,
            used_optional: 0,
            used_unions: 0,
        }
    }

    /// The next tool's name and adaptation. Without `keep_input` its input is dropped once it
    /// is adapted.
    fn next<'a>(
        &mut self,
        description: Option<String>,
        schema: Cow<'a, Value>,
        keep_input: bool,
    ) -> Entry<'a> {
        let settings = self.settings;
        let (original, kept) = self.originals.next().expect("one name per tool");
        let name = if kept {
            original.clone()
        } else {
            let name = settings.names.rewrite(&original, &self.taken);
            self.taken.insert(name.clone());
            name
        };
        let mut adapted = adapt_cow(settings, schema);
        if let (Some(budget), Some(true)) = (settings.budget, adapted.strict) {
            let (optional, unions) = parameter_counts(&adapted.schema);
            let (used_tools, used_optional, used_unions) =
                (self.used_tools, self.used_optional, self.used_unions);
            let over = used_tools + 1 > budget.tools
                || used_optional + optional > budget.optional
                || used_unions + unions > budget.unions;
            if over {
                let relaxed_settings = AdaptSettings {
                    options: settings.options,
                    kept_keywords: settings.kept_keywords.clone(),
                    ..budget.relaxed.settings()
                };
                let input = std::mem::replace(&mut adapted.input, Cow::Owned(Value::Null));
                let mut relaxed = adapt_cow(&relaxed_settings, input);
                relaxed.target = settings.target;
                relaxed.losses.insert(0, Loss {
                    pointer: Pointer::root(),
                    at: Some(Pointer::root()),
                    keyword: "strict".into(),
                    kind: LossKind::Fallback,
                    detail: format!(
                        "sent non-strict: {} allows {} strict tools, {} optional and {} union-typed parameters per request, and the tools before this one used {used_tools}, {used_optional} and {used_unions} (this one needs 1, {optional}, {unions}). {}",
                        budget.provider, budget.tools, budget.optional, budget.unions,
                        super::fixes::BUDGET
                    ),
                    rule: "strict-budget",
                });
                adapted = relaxed;
            } else {
                self.used_tools += 1;
                self.used_optional += optional;
                self.used_unions += unions;
            }
        }
        drop_repeated_description(&mut adapted, description.as_deref());
        let mut request_losses = Vec::new();
        let description =
            description.map(|d| shorten_description(d, settings, &mut request_losses));
        if !keep_input {
            adapted.input = Cow::Owned(Value::Null);
        }
        let renamed_from = (name != original).then_some(original);
        Entry {
            name,
            renamed_from,
            description,
            adapted,
            request_losses,
        }
    }
}

/// A tool description longer than the target takes, cut at a sentence or word boundary
/// ([`super::limits::shorten`]), with a loss that quotes what was cut (keyword `tool
/// description`: it is the declaration's, not the schema's).
fn shorten_description(
    description: String,
    settings: &AdaptSettings,
    losses: &mut Vec<Loss>,
) -> String {
    let Some(limit) = settings.target.request_limits().description else {
        return description;
    };
    let Some((kept, cut)) = super::limits::shorten(&description, limit.max) else {
        return description;
    };
    losses.push(Loss {
        pointer: Pointer::root(),
        at: None,
        keyword: "tool description".into(),
        kind: LossKind::Dropped,
        detail: format!(
            "the tool's description is {} characters and the provider takes {} ({}): cut to {} characters at a sentence or word boundary; not sent: {:?}",
            description.chars().count(),
            limit.max,
            limit.source,
            kept.chars().count(),
            cut
        ),
        rule: "description-limit",
    });
    kept
}

/// Removes the schema's root `description` where it only repeats the tool's (schemars writes the
/// struct's doc comment there, which is often the tool's description): a model reads both. A
/// change, not a loss.
fn drop_repeated_description(adapted: &mut Adapted<'_>, description: Option<&str>) {
    let Some(description) = description else {
        return;
    };
    let Some(Value::Object(root)) = Some(&mut adapted.schema) else {
        return;
    };
    let repeats = (root.get("description").and_then(Value::as_str))
        .is_some_and(|d| d.trim() == description.trim());
    if !repeats {
        return;
    }
    root.shift_remove("description");
    let in_input = adapted.input.get("description").is_some();
    adapted.changes.push(Change {
        pointer: if in_input {
            Pointer::parse("/description")
        } else {
            Pointer::root()
        },
        at: Some(Pointer::root()),
        rule: "repeated-description",
        detail: "the root `description` removed: it repeats the tool's description".into(),
        annotation: true,
    });
}

/// Every tool's name and adaptation, in order (see [`Sequence`]). Without `keep_inputs` each
/// input is dropped once its tool is adapted.
fn adapt_tools<'a>(
    tools: impl Iterator<Item = (Option<String>, Option<String>, Cow<'a, Value>)>,
    settings: &AdaptSettings,
    keep_inputs: bool,
) -> Vec<Entry<'a>> {
    let tools: Vec<_> = tools.collect();
    let mut sequence = Sequence::new(settings, tools.iter().map(|t| t.0.clone()));
    tools
        .into_iter()
        .map(|(_, description, schema)| sequence.next(description, schema, keep_inputs))
        .collect()
}

/// Whether a tool's strict flag is sent, and how: in a catalog that mixes strict and non-strict
/// tools, `false` is said explicitly.
fn strict_flag(strict: Option<bool>, any_strict: bool) -> Option<bool> {
    match strict {
        Some(true) => Some(true),
        Some(false) if any_strict => Some(false),
        _ => None,
    }
}

/// A converted catalog held compactly: each tool's adapted schema as compact JSON text, so
/// that converting a large catalog costs about its own size in memory rather than that of its
/// parsed form. It serializes as the provider's wire form (the value
/// [`Converted::declarations`] holds), parsing each schema back one at a time.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct CompactConverted {
    /// What changed and what was lost, per tool.
    pub report: ConvertReport,
    wire: super::Wire,
    tools: Vec<CompactTool>,
}

#[derive(Clone, Debug)]
struct CompactTool {
    description: Option<String>,
    /// The adapted schema, compact JSON text.
    schema: Box<str>,
    /// The stack its parse and print need, when deep.
    stack: Option<usize>,
}

/// [`convert_owned`] holding the result compactly ([`CompactConverted`]).
pub fn convert_compact(catalog: Catalog, settings: &AdaptSettings) -> CompactConverted {
    let names = catalog.tools.iter().map(|t| t.name.clone());
    let mut sequence = Sequence::new(settings, names);
    let tools = catalog
        .tools
        .into_iter()
        .map(|t| Ok::<_, std::convert::Infallible>((t.description, t.schema)));
    match compact(&mut sequence, tools) {
        Ok(converted) => converted,
        Err(never) => match never {},
    }
}

/// [`convert_owned`] for a catalog still as text ([`RawCatalog`]): each tool is parsed,
/// adapted and stored compactly before the next is read, so that only one tool's parsed form
/// is held at a time. The first tool that is not valid fails the conversion, with the error
/// [`Catalog::from_value`] gives for it.
pub fn convert_raw(
    catalog: &RawCatalog<'_>,
    settings: &AdaptSettings,
) -> Result<CompactConverted, CatalogError> {
    let mut sequence = Sequence::new(settings, (0..catalog.len()).map(|i| catalog.name(i)));
    let tools = (0..catalog.len()).map(|i| catalog.tool(i).map(|t| (t.description, t.schema)));
    compact(&mut sequence, tools)
}

fn compact<E>(
    sequence: &mut Sequence<'_>,
    tools: impl Iterator<Item = Result<(Option<String>, Value), E>>,
) -> Result<CompactConverted, E> {
    let settings = sequence.settings;
    let mut stored = Vec::new();
    let mut reports = Vec::new();
    for tool in tools {
        let (description, schema) = tool?;
        let mut entry = sequence.next(description, Cow::Owned(schema), false);
        let description = entry.description.take();
        let stack = super::stack_for(&entry.adapted.schema);
        // Printed (and the adaptation dropped) on the stack its depth needs.
        let store = move || {
            let text = serde_json::to_string(&entry.adapted.schema).expect("a Value prints");
            let report = ToolReport {
                tool: entry.name,
                renamed_from: entry.renamed_from,
                strict: entry.adapted.strict,
                fallback: entry.adapted.fallback,
                losses: std::mem::take(&mut entry.adapted.losses)
                    .into_iter()
                    .chain(std::mem::take(&mut entry.request_losses))
                    .collect(),
                repaired: repairs(&entry.adapted),
                encoded: std::mem::take(&mut entry.adapted.encoded),
                annotations: annotations(&entry.adapted),
            };
            (text.into_boxed_str(), report)
        };
        let (schema, report) = match stack {
            Some(size) => stacker::grow(size, store),
            None => store(),
        };
        stored.push(CompactTool {
            description,
            schema,
            stack,
        });
        reports.push(report);
    }
    let any_strict = reports.iter().any(|r| r.strict == Some(true));
    for report in &mut reports {
        report.strict = strict_flag(report.strict, any_strict);
    }
    Ok(CompactConverted {
        report: ConvertReport {
            target: settings.target,
            tools: reports,
        },
        wire: settings.wire,
        tools: stored,
    })
}

impl CompactConverted {
    /// The wire form as a value ([`Converted::declarations`]).
    pub fn declarations(&self) -> Value {
        let declarations = self
            .report
            .tools
            .iter()
            .zip(&self.tools)
            .map(|(report, tool)| self.declaration(report, tool))
            .collect();
        self.wire.envelope(declarations)
    }

    fn declaration(&self, report: &ToolReport, tool: &CompactTool) -> Value {
        let schema = super::parse_deep(&tool.schema).expect("printed by serde_json");
        self.wire.declaration(
            &report.tool,
            tool.description.as_deref(),
            schema,
            report.strict,
        )
    }
}

impl Serialize for CompactConverted {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        /// The list of declarations, each made, printed and dropped in turn.
        struct List<'c>(&'c CompactConverted);
        impl Serialize for List<'_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let c = self.0;
                let mut seq = serializer.serialize_seq(Some(c.tools.len()))?;
                for (report, tool) in c.report.tools.iter().zip(&c.tools) {
                    let mut one = || {
                        let declaration = c.declaration(report, tool);
                        seq.serialize_element(&declaration)
                    };
                    match tool.stack {
                        Some(size) => stacker::grow(size, one)?,
                        None => one()?,
                    }
                }
                seq.end()
            }
        }
        match self.wire.envelope_key() {
            Some(key) => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry(key, &List(self))?;
                map.end()
            }
            None => List(self).serialize(serializer),
        }
    }
}

/// The wire form and the report of converted tools; `take` gives each tool's schema and losses
/// (copied, or moved out).
fn declare(
    settings: &AdaptSettings,
    entries: &mut [Entry<'_>],
    take: impl Fn(&mut Adapted<'_>) -> (Value, Vec<Loss>),
) -> (Value, ConvertReport) {
    let any_strict = entries.iter().any(|e| e.adapted.strict == Some(true));
    let flag = |a: &Adapted| strict_flag(a.strict, any_strict);
    let mut declarations = Vec::with_capacity(entries.len());
    let mut tools = Vec::with_capacity(entries.len());
    for entry in entries {
        let strict = flag(&entry.adapted);
        let fallback = entry.adapted.fallback;
        let repaired = repairs(&entry.adapted);
        let encoded = entry.adapted.encoded.clone();
        let annotations = annotations(&entry.adapted);
        let (schema, mut losses) = take(&mut entry.adapted);
        losses.extend(entry.request_losses.iter().cloned());
        declarations.push(settings.wire.declaration(
            &entry.name,
            entry.description.as_deref(),
            schema,
            strict,
        ));
        tools.push(ToolReport {
            tool: entry.name.clone(),
            renamed_from: entry.renamed_from.clone(),
            strict,
            fallback,
            losses,
            repaired,
            encoded,
            annotations,
        });
    }
    let report = ConvertReport {
        target: settings.target,
        tools,
    };
    (settings.wire.envelope(declarations), report)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::adapt::NameRule;

    #[test]
    fn names() {
        use NameRule::*;
        assert!(Plain.fits("browser_navigate"));
        assert!(!Plain.fits("fs.read"));
        assert!(Google.fits("fs.read:v2"));
        assert!(!Google.fits("2fa"));
        assert!(Any.fits("anything goes"));
        let mut taken = HashSet::new();
        assert_eq!(Plain.rewrite("fs.read", &taken), "fs_read");
        taken.insert("fs_read".to_owned());
        assert_eq!(Plain.rewrite("fs/read", &taken), "fs_read_2");
        assert_eq!(Plain.rewrite(&"x".repeat(100), &HashSet::new()).len(), 64);
        assert_eq!(Plain.rewrite("", &HashSet::new()), "tool");
        assert_eq!(Google.rewrite("2fa check", &HashSet::new()), "_2fa_check");
    }

    /// Every bundled catalog, as text.
    fn bundled_catalogs() -> Vec<(String, String)> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/tools");
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json") && !p.ends_with("SOURCES.json"))
            .collect();
        files.sort();
        assert!(files.len() >= 5, "the bundled catalogs are there");
        files
            .into_iter()
            .map(|p| (p.display().to_string(), std::fs::read_to_string(p).unwrap()))
            .collect()
    }

    /// What a client receives: the whole wire form, printed as the CLI prints it.
    fn printed(value: &impl Serialize) -> String {
        serde_json::to_string_pretty(value).unwrap()
    }

    #[test]
    fn converting_from_text_tool_by_tool_sends_what_converting_the_catalog_sends() {
        for (file, text) in bundled_catalogs() {
            let raw = RawCatalog::parse(&text)
                .unwrap_or_else(|| panic!("{file} is a list of tools"))
                .unwrap();
            let catalog = Catalog::from_value(serde_json::from_str(&text).unwrap()).unwrap();
            assert_eq!(raw.layout, catalog.layout, "{file}");
            assert_eq!(raw.len(), catalog.tools.len(), "{file}");
            for &target in Target::ALL {
                let settings = target.settings();
                let by_ref = convert_for(&catalog, &settings);
                let streamed = convert_raw(&raw, &settings).unwrap();
                let compact = convert_compact(catalog.clone(), &settings);
                let expected = printed(&by_ref.declarations);
                assert_eq!(printed(&streamed), expected, "{file} {target}");
                assert_eq!(printed(&compact), expected, "{file} {target}");
                assert_eq!(
                    streamed.declarations(),
                    by_ref.declarations,
                    "{file} {target}"
                );
                assert_eq!(streamed.report, by_ref.report, "{file} {target}");
                assert_eq!(compact.report, by_ref.report, "{file} {target}");
            }
        }
    }

    #[test]
    fn a_catalog_read_as_text_has_the_names_and_errors_of_the_parsed_one() {
        let tool = |name: &str| {
            format!(
                r#"{{"name": "{name}", "description": "d", "inputSchema": {{"type": "object"}}}}"#
            )
        };
        let texts = [
            format!("[{}, {}]", tool("a"), tool("b")),
            format!(r#"{{"tools": [{}], "nextCursor": null}}"#, tool("a")),
            format!(
                r#"{{"jsonrpc": "2.0", "id": 1, "result": {{"tools": [{}]}}}}"#,
                tool("a")
            ),
            // A repeated name, a missing name, a name given twice (the last counts).
            format!(
                r#"[{}, {}, {{"inputSchema": {{}}}}, {{"name": "x", "name": "y", "inputSchema": {{}}}}]"#,
                tool("a"),
                tool("a")
            ),
            // Invalid tools: the error of the parsed catalog, at the same place.
            format!(r#"[{}, {{"name": "b"}}]"#, tool("a")),
            r#"[{"name": 3, "inputSchema": {}}]"#.to_owned(),
            r#"[{"name": "x", "inputSchema": "string"}]"#.to_owned(),
            r#"{"tools": [7]}"#.to_owned(),
            r#"{"jsonrpc": "2.0", "error": {"code": -32601}}"#.to_owned(),
            r#"{"jsonrpc": "2.0", "result": 3}"#.to_owned(),
            r#"{"jsonrpc": "2.0", "result": {"tools": {}}}"#.to_owned(),
        ];
        for text in &texts {
            let raw = RawCatalog::parse(text)
                .expect("a list of tools")
                .and_then(|raw| {
                    let tools: Result<Vec<_>, _> = (0..raw.len()).map(|i| raw.tool(i)).collect();
                    let names: Vec<_> = (0..raw.len()).map(|i| raw.name(i)).collect();
                    Ok((raw.layout, tools?, names))
                });
            let parsed = Catalog::from_value(serde_json::from_str(text).unwrap());
            match (raw, parsed) {
                (Ok((layout, tools, names)), Ok(catalog)) => {
                    assert_eq!(layout, catalog.layout, "{text}");
                    assert_eq!(tools, catalog.tools, "{text}");
                    let expected: Vec<_> = catalog.tools.into_iter().map(|t| t.name).collect();
                    assert_eq!(names, expected, "{text}");
                }
                (Err(a), Err(b)) => assert_eq!(a, b, "{text}"),
                (a, b) => panic!("{text}: read as text {a:?}, parsed {b:?}"),
            }
        }
        // Not a list of tools: left to the parsed reading, which also words any error.
        for text in [
            r#"{"type": "object", "properties": {"tools": {"type": "array"}}}"#,
            "true",
            "42",
            "[1, 2",
            "{} {}",
        ] {
            assert!(RawCatalog::parse(text).is_none(), "{text}");
        }
    }

    #[test]
    fn a_deep_tool_converts_from_text_on_an_ordinary_stack() {
        // 3,000 levels: parsed, adapted, printed and parsed back again, each on a grown stack
        // (this test thread has the default 2 MiB).
        let open = r#"{"type": "object", "properties": {"a": "#.repeat(3_000);
        let close = r#"}, "required": ["a"]}"#.repeat(3_000);
        let schema = format!(r#"{open}{{"type": "string"}}{close}"#);
        let text = format!(r#"{{"tools": [{{"name": "deep", "inputSchema": {schema}}}]}}"#);
        let raw = RawCatalog::parse(&text).unwrap().unwrap();
        for target in [Target::Mcp, Target::OpenAiStrict] {
            // On this thread's own stack: the tool is parsed, adapted and stored.
            let streamed = convert_raw(&raw, &target.settings()).unwrap();
            // The comparison, with values printed, compared and dropped recursively, on a
            // grown stack.
            let text = &text;
            stacker::grow(256 << 20, move || {
                let catalog = Catalog::from_value(crate::adapt::parse_deep(text).unwrap()).unwrap();
                let by_ref = convert_for(&catalog, &target.settings());
                assert!(streamed.declarations() == by_ref.declarations, "{target}");
                assert_eq!(streamed.report, by_ref.report, "{target}");
                assert_eq!(
                    printed(&streamed),
                    printed(&by_ref.declarations),
                    "{target}"
                );
            });
        }
    }

    #[test]
    fn converting_by_value_sends_what_converting_by_reference_sends() {
        // A real catalog of 40+ tools: over Anthropic's strict budget, with renames for Google.
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/tools/github-mcp-server.json"
        );
        let value: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let catalog = Catalog::from_value(value).unwrap();
        for &target in Target::ALL {
            let settings = target.settings();
            let by_ref = convert_for(&catalog, &settings);
            let (declarations, report) = convert_owned(catalog.clone(), &settings);
            assert_eq!(declarations, by_ref.declarations, "{target}");
            assert_eq!(report, by_ref.report, "{target}");
        }
        let budgeted = convert_for(&catalog, &Target::AnthropicStrict.settings());
        assert!(
            budgeted
                .report
                .tools
                .iter()
                .any(|t| t.losses.iter().any(|l| l.rule == "strict-budget")),
            "the fixture must exceed the strict budget"
        );
    }
}
