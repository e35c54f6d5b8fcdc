//! A provider as a value: everything one target needs (its rules, its strict policy and relaxed
//! form, its wire envelope, tool-name rule and per-request budget) in one [`AdaptSettings`],
//! built by one constructor per provider (in [`super::providers`]), as schemars'
//! `SchemaSettings` holds a JSON Schema dialect.

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::rules::{self, Rule};
use super::{AdaptOptions, Adapted, Target};

/// A list of rules, built from the settings (so that what a caller adjusts, such as a kept
/// keyword, reaches the rules that read it).
pub(crate) type RuleSet = fn(&AdaptSettings) -> Vec<Box<dyn Rule>>;

/// A caller's rule ([`AdaptSettings::with_rule`]): a new one for each adaptation.
#[derive(Clone)]
pub(crate) struct AddedRule {
    name: &'static str,
    make: Arc<dyn Fn() -> Box<dyn Rule> + Send + Sync>,
}

impl fmt::Debug for AddedRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("AddedRule").field(&self.name).finish()
    }
}

/// [`AdaptSettings::without_rule`] of a name that is none of the settings' rules.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnknownRule {
    /// The name given.
    pub name: String,
    /// The settings' target.
    pub target: Target,
    /// The rules the settings have ([`AdaptSettings::rule_names`]).
    pub known: Vec<&'static str>,
}

impl fmt::Display for UnknownRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no rule named `{}` in {}'s settings; its rules are: {}",
            self.name,
            self.target,
            self.known.join(", ")
        )
    }
}

impl std::error::Error for UnknownRule {}

/// How one provider is adapted for. Start from a constructor ([`Target::settings`],
/// [`AdaptSettings::openai_strict`], ...), adjust, then [`AdaptSettings::adapt`].
///
/// ```
/// use serde_json::json;
/// use toolschema::adapt::AdaptSettings;
///
/// let schema = json!({"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}}});
/// // Gemini strips `format`; a caller whose model reads it keeps it.
/// let settings = AdaptSettings::gemini().keep_keyword("format");
/// let adapted = settings.adapt(&schema);
/// assert_eq!(adapted.schema["properties"]["when"]["format"], "date-time");
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct AdaptSettings {
    /// The target these settings adapt for (reports and wire forms name it).
    pub target: Target,
    /// Choices the provider leaves to the caller.
    pub options: AdaptOptions,
    /// Keywords kept although the provider's tables would strip them.
    pub kept_keywords: Vec<String>,
    /// The tool-name rule of the provider's API.
    pub names: NameRule,
    /// The provider's wire envelope for a list of tools.
    pub wire: Wire,
    /// Per-request limits on strict tools, when the provider documents them.
    pub budget: Option<StrictBudget>,
    /// The wire format has a `strict` flag.
    pub strict_flag: bool,
    /// The rules both forms start with.
    pub(crate) shared: RuleSet,
    /// The strict attempt's rules after the shared ones; `None` for targets that never attempt
    /// strict.
    pub(crate) strict: Option<RuleSet>,
    /// The non-strict rules after the shared ones (the whole list of a non-strict target; the
    /// fail-open form of a strict one).
    pub(crate) relaxed: RuleSet,
    /// Whether the output must be a valid JSON Schema 2020-12 document (checked against the
    /// bundled meta-schema once written; a failure sends the per-tool fallback).
    pub(crate) meta_validate: bool,
    /// The caller's rules ([`AdaptSettings::with_rule`]), in the order added.
    pub(crate) added: Vec<AddedRule>,
    /// The rules the caller took out ([`AdaptSettings::without_rule`]), by name.
    pub(crate) removed: Vec<&'static str>,
    /// Encode what the target cannot hold instead of losing it ([`AdaptSettings::with_encoding`]).
    pub encode: bool,
}

impl AdaptSettings {
    /// Whether the target attempts strict mode (and fails open to its relaxed form when the
    /// schema has no strict form).
    pub fn attempts_strict(&self) -> bool {
        self.strict.is_some()
    }

    /// Adapts one tool's parameter schema. Never panics; recursive, deep and hostile schemas
    /// are ordinary input.
    ///
    /// A schema nested deeper than 128 levels is adapted on a stack sized for it (`stacker`):
    /// serde_json copies and drops values recursively; the rules themselves walk in loops.
    pub fn adapt<'a>(&self, schema: &'a Value) -> Adapted<'a> {
        super::engine::adapt(self, std::borrow::Cow::Borrowed(schema))
    }

    /// [`AdaptSettings::adapt`] taking the schema by value (it becomes [`Adapted::input`]
    /// without a copy).
    pub fn adapt_owned(&self, schema: Value) -> Adapted<'static> {
        super::engine::adapt(self, std::borrow::Cow::Owned(schema))
    }

    /// Keeps `keyword` wherever these settings would strip it (the caller knows its model reads
    /// it). The provider may then refuse the schema: that is the caller's choice.
    pub fn keep_keyword(mut self, keyword: &str) -> Self {
        if !self.kept_keywords.iter().any(|k| k == keyword) {
            self.kept_keywords.push(keyword.to_owned());
        }
        self
    }

    /// The same settings with `options`.
    pub fn with_options(mut self, options: AdaptOptions) -> Self {
        self.options = options;
        self
    }

    /// The same settings without the strict attempt: the provider's relaxed form, sent with
    /// `strict: false` where the wire has the flag (as `TOOLSCHEMA_NO_STRICT` does for every
    /// target, but for these settings alone and without a loss entry).
    pub fn without_strict(mut self) -> Self {
        self.strict = None;
        self
    }

    /// Whether the target attempts strict enforcement.
    pub fn wants_strict(&self) -> bool {
        self.strict.is_some()
    }

    /// Encodes what the target cannot hold instead of losing it or sending the tool non-strict
    /// (off by default): an open map becomes a list of `{"key", "value"}` objects, a place that
    /// takes any JSON value a string of JSON text, recursion past what the target allows JSON
    /// text after two levels. Each encoded place is an entry of [`Adapted::encoded`].
    ///
    /// The model then sends arguments in the encoded form: decode them with
    /// [`crate::restore`] (or [`crate::ToolParams::from_args`]) through the same settings. Which encodings a
    /// target uses is in its provider file; a target that holds every shape encodes nothing.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolschema::adapt::AdaptSettings;
    ///
    /// let schema = json!({"type": "object", "properties": {
    ///     "labels": {"type": "object", "additionalProperties": {"type": "string"}}},
    ///     "required": ["labels"]});
    /// let adapted = AdaptSettings::openai_strict().with_encoding(true).adapt(&schema);
    /// assert_eq!(adapted.strict, Some(true));
    /// assert_eq!(adapted.schema["properties"]["labels"]["type"], "array");
    /// let args = json!({"labels": [{"key": "env", "value": "prod"}]});
    /// assert_eq!(toolschema::restore(&adapted, args).unwrap(), json!({"labels": {"env": "prod"}}));
    /// ```
    pub fn with_encoding(mut self, yes: bool) -> Self {
        self.encode = yes;
        self
    }

    /// What [`AdaptSettings::with_encoding`] encodes on this target, in words (empty: nothing,
    /// the target holds every shape it takes or drops none): "open maps", "typed maps", "any
    /// value", "recursion past two levels".
    pub fn encodings(&self) -> Vec<&'static str> {
        let on = self.clone().with_encoding(true);
        let mut out = Vec::new();
        for rule in on.rules().into_iter().chain(on.relaxed_rules()) {
            let words = match rule.name() {
                "encode-maps" => "open maps",
                "encode-typed-maps" => "typed maps",
                "encode-any" => "any value",
                "unroll-recursion" => "recursion past two levels",
                _ => continue,
            };
            if !out.contains(&words) {
                out.push(words);
            }
        }
        out
    }

    /// Adds `rule` to every form these settings send, as schemars' `with_transform` adds a
    /// transform. A rule named as one of the target's replaces it where it stands; any other
    /// runs after the target's rules. A new copy of `rule` runs on each schema.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolschema::adapt::rules::{Keyword, Report, Rule, Tree};
    /// use toolschema::adapt::{AdaptSettings, LossKind};
    ///
    /// /// No `format` anywhere (a provider that refuses it).
    /// #[derive(Clone)]
    /// struct NoFormat;
    ///
    /// impl Rule for NoFormat {
    ///     fn name(&self) -> &'static str {
    ///         "no-format"
    ///     }
    ///     fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
    ///         tree.walk(|tree, id| {
    ///             if let Some(entry) = tree.take(id, Keyword::Format) {
    ///                 let why = "the provider refuses it";
    ///                 report.loss(entry.origin, Some(id), "format", LossKind::Dropped, why);
    ///             }
    ///         });
    ///     }
    /// }
    ///
    /// let schema = json!({"type": "object", "properties": {"when": {"type": "string", "format": "date"}}});
    /// let adapted = AdaptSettings::openai().with_rule(NoFormat).adapt(&schema);
    /// assert_eq!(adapted.schema["properties"]["when"], json!({"type": "string"}));
    /// assert_eq!(adapted.losses[0].pointer.as_str(), "/properties/when/format");
    /// ```
    pub fn with_rule<R: Rule + Clone + Send + Sync + 'static>(mut self, rule: R) -> Self {
        let name = rule.name();
        self.added.retain(|r| r.name != name);
        // A rule taken out by `without_rule` and added again runs (where the target had it).
        self.removed.retain(|r| *r != name);
        self.added.push(AddedRule {
            name,
            make: Arc::new(move || Box::new(rule.clone())),
        });
        self
    }

    /// Takes the rule named `name` out of every form these settings send (and a caller's rule
    /// of that name, [`AdaptSettings::with_rule`]). The report names each rule as
    /// [`Rule::name`] does; [`AdaptSettings::rule_names`] lists them.
    ///
    /// A name that is none of these settings' rules is an error (a misspelt rule removed
    /// silently would leave the schema as it was). A strict form is still claimed only if what
    /// is written passes the target's strict check: without a rule the provider needs, the tool
    /// is sent non-strict, with the reason in its report.
    ///
    /// ```
    /// use toolschema::adapt::AdaptSettings;
    ///
    /// assert!(AdaptSettings::openai().without_rule("structured-first").is_ok());
    /// let err = AdaptSettings::openai().without_rule("structured-frist").unwrap_err();
    /// assert!(err.to_string().contains("structured-first"));
    /// ```
    pub fn without_rule(mut self, name: &str) -> Result<Self, UnknownRule> {
        let Some(known) = self.rule_names().into_iter().find(|n| *n == name) else {
            return Err(UnknownRule {
                name: name.to_owned(),
                target: self.target,
                known: self.rule_names(),
            });
        };
        self.added.retain(|r| r.name != known);
        if !self.removed.contains(&known) {
            self.removed.push(known);
        }
        Ok(self)
    }

    /// The names of every rule these settings may run, in each form, with encoding on or off,
    /// and the caller's own ([`AdaptSettings::with_rule`]): what
    /// [`AdaptSettings::without_rule`] takes.
    pub fn rule_names(&self) -> Vec<&'static str> {
        let mut names = Vec::new();
        for encode in [false, true] {
            let settings = AdaptSettings {
                encode,
                removed: Vec::new(),
                ..self.clone()
            };
            let lists = [Some(self.shared), self.strict, Some(self.relaxed)];
            for list in lists.into_iter().flatten() {
                names.extend(list(&settings).iter().map(|r| r.name()));
            }
        }
        names.extend(self.added.iter().map(|r| r.name));
        let mut seen = HashSet::new();
        names.retain(|n| seen.insert(*n));
        names
    }

    /// One of the lists, with the caller's edits: what was taken out is gone, a caller's rule
    /// named as one of the list's stands in its place, and the caller's other rules run last
    /// (`last`: the list is the one a form ends with).
    pub(crate) fn build(&self, list: RuleSet, last: bool) -> Vec<Box<dyn Rule>> {
        let mut rules = list(self);
        rules.retain(|r| !self.removed.contains(&r.name()));
        let mut placed = vec![false; self.added.len()];
        for rule in &mut rules {
            if let Some(i) = self.added.iter().position(|a| a.name == rule.name()) {
                *rule = (self.added[i].make)();
                placed[i] = true;
            }
        }
        if last {
            // Whatever rule dropped a definition's last use (a `not` holding a `$ref`
            // stripped, say), the definition is not sent: every form ends (before the caller's
            // added rules) by removing the definitions nothing references, unless the caller
            // removed that rule.
            let orphans = rules::OrphanedDefinitions.name();
            if rules.last().is_none_or(|r| r.name() != orphans) && !self.removed.contains(&orphans)
            {
                rules.push(Box::new(rules::OrphanedDefinitions));
            }
            // A root `$ref` inlined by a later rule brings its target's `title` to the root: a
            // form that removes the root's title removes it again at its end (else adapting the
            // output again would).
            let defined = |name| {
                [Some(self.shared), self.strict, Some(self.relaxed)]
                    .into_iter()
                    .flatten()
                    .any(|list| list(self).iter().any(|r| r.name() == name))
            };
            let title = rules::RemoveRootTitle.name();
            if defined(title) && !self.removed.contains(&title) {
                rules.push(Box::new(rules::RemoveRootTitle));
            }
            for (added, placed) in self.added.iter().zip(placed) {
                if !placed && !defined(added.name) {
                    rules.push((added.make)());
                }
            }
        }
        rules
    }

    /// The rules of the main attempt (strict when the target wants strict), in order, with the
    /// caller's edits.
    pub fn rules(&self) -> Vec<Box<dyn Rule>> {
        let mut rules = self.build(self.shared, false);
        rules.extend(self.build(self.strict.unwrap_or(self.relaxed), true));
        rules
    }

    /// The rules of the non-strict form, in order, with the caller's edits.
    pub fn relaxed_rules(&self) -> Vec<Box<dyn Rule>> {
        let mut rules = self.build(self.shared, false);
        rules.extend(self.build(self.relaxed, true));
        rules
    }
}

impl Target {
    /// Adapts one tool's parameter schema with the target's default [`Target::settings`]
    /// (the same as `target.settings().adapt(schema)`). Never panics; recursive, deep and
    /// hostile schemas are ordinary input.
    pub fn adapt(self, schema: &Value) -> Adapted<'_> {
        self.settings().adapt(schema)
    }

    /// [`Target::adapt`] taking the schema by value: it becomes [`Adapted::input`] without a
    /// copy (one clone fewer).
    pub fn adapt_owned(self, schema: Value) -> Adapted<'static> {
        self.settings().adapt_owned(schema)
    }

    /// Whether the wire format has a `strict` flag.
    pub fn has_strict_flag(self) -> bool {
        self.settings().strict_flag
    }

    /// Whether the target attempts strict enforcement.
    pub fn wants_strict(self) -> bool {
        self.settings().wants_strict()
    }
}

/// A provider's tool-name rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NameRule {
    /// MCP: names pass through.
    Any,
    /// OpenAI and Anthropic: `^[a-zA-Z0-9_-]{1,64}$`.
    Plain,
    /// Google: `^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`.
    Google,
}

impl NameRule {
    fn allowed(self, c: char) -> bool {
        match self {
            NameRule::Any => true,
            NameRule::Plain => c.is_ascii_alphanumeric() || c == '_' || c == '-',
            NameRule::Google => c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'),
        }
    }

    fn starts_well(self, name: &str) -> bool {
        self != NameRule::Google
            || name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
    }

    /// Whether the provider accepts `name` as it is.
    pub fn fits(self, name: &str) -> bool {
        self == NameRule::Any
            || (!name.is_empty()
                && name.len() <= 64
                && self.starts_well(name)
                && name.chars().all(|c| self.allowed(c)))
    }

    /// A name the provider accepts, made from `name`, that is not in `taken`.
    pub fn rewrite(self, name: &str, taken: &HashSet<String>) -> String {
        let mut base: String = name
            .chars()
            .map(|c| if self.allowed(c) { c } else { '_' })
            .collect();
        if !base.is_empty() && !self.starts_well(&base) {
            base.insert(0, '_');
        }
        base.truncate(64);
        if base.is_empty() {
            base = "tool".into();
        }
        let mut candidate = base.clone();
        let mut n = 2;
        while taken.contains(&candidate) {
            let suffix = format!("_{n}");
            let mut b = base.clone();
            b.truncate(64 - suffix.len());
            candidate = format!("{b}{suffix}");
            n += 1;
        }
        candidate
    }
}

/// How a provider's API wraps a list of tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Wire {
    /// MCP `tools/list`: `{"tools": [{"name", "description", "inputSchema"}]}`.
    Mcp,
    /// OpenAI Chat Completions: `[{"type": "function", "function": {"name", "description",
    /// "parameters", "strict"}}]`.
    OpenAiChat,
    /// OpenAI Responses: `[{"type": "function", "name", "description", "parameters", "strict"}]`.
    OpenAiResponses,
    /// Anthropic Messages: `[{"name", "description", "input_schema", "strict"}]`.
    Anthropic,
    /// Google: `{"functionDeclarations": [{"name", "description", <field>}]}` where the field is
    /// `parametersJsonSchema` or `parameters`.
    Google {
        /// The declaration's schema field.
        field: &'static str,
    },
    /// Amazon Bedrock Converse: `[{"toolSpec": {"name", "description", "inputSchema": {"json"}}}]`,
    /// the request's `toolConfig.tools`.
    Bedrock,
}

impl Wire {
    /// One tool's declaration.
    pub fn declaration(
        self,
        name: &str,
        description: Option<&str>,
        schema: Value,
        strict: Option<bool>,
    ) -> Value {
        let mut decl = Map::new();
        // Bedrock refuses an empty description ("Minimum length of 1",
        // `ToolSpecification.description`): one is left out there, as a missing one is.
        let bedrock = matches!(self, Wire::Bedrock);
        let describe = |m: &mut Map<String, Value>| {
            if let Some(d) = description.filter(|d| !(bedrock && d.is_empty())) {
                m.insert("description".into(), json!(d));
            }
        };
        let flag = |m: &mut Map<String, Value>| {
            if let Some(s) = strict {
                m.insert("strict".into(), json!(s));
            }
        };
        match self {
            Wire::Mcp => {
                decl.insert("name".into(), json!(name));
                describe(&mut decl);
                decl.insert("inputSchema".into(), schema);
            }
            Wire::OpenAiChat => {
                let mut function = Map::new();
                function.insert("name".into(), json!(name));
                describe(&mut function);
                function.insert("parameters".into(), schema);
                flag(&mut function);
                decl.insert("type".into(), json!("function"));
                decl.insert("function".into(), Value::Object(function));
            }
            Wire::OpenAiResponses => {
                decl.insert("type".into(), json!("function"));
                decl.insert("name".into(), json!(name));
                describe(&mut decl);
                decl.insert("parameters".into(), schema);
                flag(&mut decl);
            }
            Wire::Anthropic => {
                decl.insert("name".into(), json!(name));
                describe(&mut decl);
                decl.insert("input_schema".into(), schema);
                flag(&mut decl);
            }
            Wire::Google { field } => {
                decl.insert("name".into(), json!(name));
                describe(&mut decl);
                decl.insert(field.into(), schema);
            }
            Wire::Bedrock => {
                let mut spec = Map::new();
                spec.insert("name".into(), json!(name));
                describe(&mut spec);
                let mut input = Map::new();
                input.insert("json".into(), schema);
                spec.insert("inputSchema".into(), Value::Object(input));
                decl.insert("toolSpec".into(), Value::Object(spec));
            }
        }
        Value::Object(decl)
    }

    /// The request's list of tools.
    pub fn envelope(self, declarations: Vec<Value>) -> Value {
        // Built around the list, not through `json!`, which would copy every declaration.
        match self.envelope_key() {
            Some(key) => {
                let mut map = Map::new();
                map.insert(key.to_owned(), Value::Array(declarations));
                Value::Object(map)
            }
            None => Value::Array(declarations),
        }
    }

    /// The part of a request body that carries [`Wire::envelope`]'s output, to merge into the
    /// rest of the body: `{"tools": [...]}` for OpenAI (both APIs), Anthropic and MCP's
    /// `tools/list` result (the envelope itself), `{"tools": [{"functionDeclarations": [...]}]}`
    /// for Google (its `tools` is a list of `Tool` objects), `{"toolConfig": {"tools": [...]}}`
    /// for Bedrock Converse.
    pub fn body(self, envelope: Value) -> Value {
        let field = |key: &str, value: Value| {
            let mut map = Map::new();
            map.insert(key.to_owned(), value);
            Value::Object(map)
        };
        match self {
            Wire::Mcp => envelope,
            Wire::OpenAiChat | Wire::OpenAiResponses | Wire::Anthropic => field("tools", envelope),
            Wire::Google { .. } => field("tools", Value::Array(vec![envelope])),
            Wire::Bedrock => field("toolConfig", field("tools", envelope)),
        }
    }

    /// Where a tool's schema and its strict flag sit in [`Wire::envelope`]'s output, `[]` for
    /// every tool (`[].function.parameters`); the flag's place is `None` when the wire form has
    /// none.
    pub fn places(self) -> (&'static str, Option<&'static str>) {
        match self {
            Wire::Mcp => ("tools[].inputSchema", None),
            Wire::OpenAiChat => ("[].function.parameters", Some("[].function.strict")),
            Wire::OpenAiResponses => ("[].parameters", Some("[].strict")),
            Wire::Anthropic => ("[].input_schema", Some("[].strict")),
            Wire::Google {
                field: "parametersJsonSchema",
            } => ("functionDeclarations[].parametersJsonSchema", None),
            Wire::Google { .. } => ("functionDeclarations[].parameters", None),
            Wire::Bedrock => ("[].toolSpec.inputSchema.json", None),
        }
    }

    /// The key the list of declarations is under (`None`: the list is the request's value).
    pub(crate) fn envelope_key(self) -> Option<&'static str> {
        match self {
            Wire::Mcp => Some("tools"),
            Wire::Google { .. } => Some("functionDeclarations"),
            _ => None,
        }
    }
}

/// A provider's per-request limits on strict tools; a tool over them is sent in the relaxed
/// form of `relaxed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct StrictBudget {
    /// The provider, as the report names it.
    pub provider: &'static str,
    /// Strict tools per request.
    pub tools: usize,
    /// Optional parameters over all strict tools.
    pub optional: usize,
    /// Union-typed parameters over all strict tools.
    pub unions: usize,
    /// The target a tool over budget is adapted for instead.
    pub relaxed: Target,
}
