//! A provider as a value: everything one target needs (its rules, its strict policy and relaxed
//! form, its wire envelope, tool-name rule and per-request budget) in one [`AdaptSettings`],
//! built by one constructor per provider (in [`super::providers`]), as schemars'
//! `SchemaSettings` holds a JSON Schema dialect.

use std::cell::RefCell;
use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::plan::RuleList;
use super::rules::Rule;
use super::{AdaptOptions, Adapted, Target};

/// The rules of one attempt, built from the settings (so that what a caller adjusts reaches
/// the rules that use it).
pub(crate) type RuleSet = fn(&AdaptSettings) -> Vec<Box<dyn Rule>>;

/// A rule list of the tree engine, built from the settings.
pub(crate) type TreeRuleSet = fn(&AdaptSettings) -> Vec<Box<dyn super::tree::Rule>>;

/// A target's rules on the tree engine (`super::tree`): the shared ones, the strict attempt's
/// (when the target attempts strict) and the relaxed form's.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TreeRules {
    pub(crate) shared: TreeRuleSet,
    pub(crate) strict: Option<TreeRuleSet>,
    pub(crate) relaxed: TreeRuleSet,
    /// Whether the output must be a valid JSON Schema 2020-12 document (checked against the
    /// bundled meta-schema once written; a failure sends the per-tool fallback).
    pub(crate) meta_validate: bool,
}

/// The rule lists of one [`AdaptSettings`], built from it.
pub(crate) struct Built {
    /// [`AdaptSettings::shared`]'s rules.
    pub(crate) shared: RuleList,
    /// [`AdaptSettings::strict`]'s rules, when the settings attempt strict.
    pub(crate) strict: Option<Strict>,
    /// [`AdaptSettings::relaxed`]'s rules.
    pub(crate) relaxed: RuleList,
    /// Whether a rule of the lists reads the facts of OpenAI's strict limits
    /// ([`Rule::reads_limits`]), which the engine's first scan then notes.
    pub(crate) limits: bool,
}

impl Built {
    /// Every rule of the lists.
    fn all(&self) -> impl Iterator<Item = &dyn Rule> {
        let strict = self
            .strict
            .iter()
            .flat_map(|s| s.checks.iter().chain(&s.rewrites.rules));
        self.shared
            .rules
            .iter()
            .chain(strict)
            .chain(&self.relaxed.rules)
            .map(|r| r.as_ref())
    }
}

/// A strict attempt's rules: its leading checks ([`Rule::reads_only`]), run on the shared
/// rules' output before anything is rewritten, and the rest.
pub(crate) struct Strict {
    pub(crate) checks: Vec<Box<dyn Rule>>,
    pub(crate) rewrites: RuleList,
}

impl Strict {
    fn new(mut rules: Vec<Box<dyn Rule>>) -> Self {
        let checks = rules.iter().take_while(|r| r.reads_only()).count();
        let rewrites = rules.split_off(checks);
        Strict {
            checks: rules,
            rewrites: RuleList::new(rewrites),
        }
    }
}

/// What the rule lists are built from: the three rule-set functions and the fields they read.
struct BuiltFrom {
    target: Target,
    shared: RuleSet,
    strict: Option<RuleSet>,
    relaxed: RuleSet,
    options: AdaptOptions,
    kept_keywords: Vec<String>,
}

impl BuiltFrom {
    fn of(settings: &AdaptSettings) -> Self {
        BuiltFrom {
            target: settings.target,
            shared: settings.shared,
            strict: settings.strict,
            relaxed: settings.relaxed,
            options: settings.options,
            kept_keywords: settings.kept_keywords.clone(),
        }
    }

    /// Whether `settings` build the same rules. A function's address may differ between two
    /// references to it (then the lists are built again), never between different functions.
    fn builds(&self, settings: &AdaptSettings) -> bool {
        let same = |a: RuleSet, b: RuleSet| std::ptr::fn_addr_eq(a, b);
        self.target == settings.target
            && same(self.shared, settings.shared)
            && match (self.strict, settings.strict) {
                (Some(a), Some(b)) => same(a, b),
                (None, None) => true,
                _ => false,
            }
            && same(self.relaxed, settings.relaxed)
            && self.options == settings.options
            && self.kept_keywords == settings.kept_keywords
    }
}

/// How many settings' rule lists a thread keeps.
const KEPT_BUILDS: usize = 8;

thread_local! {
    /// Rule lists built on this thread, most recently used last. Building a target's list is a
    /// dozen allocations, as many as the copy of a small tool's schema makes; the rules hold
    /// nothing from one run to the next (the Anthropic strict gate's flag is set by each run of
    /// the gate before its second half reads it), so a list is run again as it is.
    /// Each is boxed: taking one out and putting it back moves a pointer, not the lists.
    #[allow(clippy::vec_box)]
    static BUILT: RefCell<Vec<Box<(BuiltFrom, Built)>>> = const { RefCell::new(Vec::new()) };
}

/// No rules (the shared part of a target without a strict attempt).
pub(crate) fn no_rules(_: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    Vec::new()
}

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
    /// The rules both forms start with (run once when a strict attempt is refused early).
    pub(crate) shared: RuleSet,
    /// The strict attempt's rules after the shared ones; `None` for targets that never attempt
    /// strict.
    pub(crate) strict: Option<RuleSet>,
    /// The non-strict rules after the shared ones (the whole pipeline of a non-strict target;
    /// the fail-open form of a strict one).
    pub(crate) relaxed: RuleSet,
    /// The target's rules on the tree engine, once it is ported there (it then adapts with
    /// them; the other rule lists are the old engine's, kept until every target is ported).
    pub(crate) tree: Option<TreeRules>,
}

impl AdaptSettings {
    /// Adapts one tool's parameter schema. Never panics; recursive, deep and hostile schemas
    /// are ordinary input.
    ///
    /// A schema nested deeper than 128 levels is adapted on a stack sized for it, which the
    /// thread keeps for its next deep schema (at most 256 MiB of address space; the memory it
    /// holds is the pages the deepest schema so far touched, about 1 KB a level of nesting),
    /// and frees when it exits.
    pub fn adapt<'a>(&self, schema: &'a Value) -> Adapted<'a> {
        super::engine(self, std::borrow::Cow::Borrowed(schema))
    }

    /// [`AdaptSettings::adapt`] taking the schema by value (it becomes [`Adapted::input`]
    /// without a copy).
    pub fn adapt_owned(&self, schema: Value) -> Adapted<'static> {
        super::engine(self, std::borrow::Cow::Owned(schema))
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
        if let Some(tree) = &mut self.tree {
            tree.strict = None;
        }
        self
    }

    /// Whether the target attempts strict enforcement.
    pub fn wants_strict(&self) -> bool {
        match &self.tree {
            Some(tree) => tree.strict.is_some(),
            None => self.strict.is_some(),
        }
    }

    /// Runs `f` with these settings' rule lists: the ones this thread built for equal settings
    /// before, or new ones. A list is taken out of the thread's store while `f` runs, so that
    /// an adaptation inside `f` (the per-tool fallback) builds its own.
    pub(crate) fn with_rules<R>(&self, f: impl FnOnce(&mut Built) -> R) -> R {
        let kept = BUILT
            .try_with(|built| {
                let mut built = built.try_borrow_mut().ok()?;
                let found = built.iter().rposition(|kept| kept.0.builds(self))?;
                Some(built.remove(found))
            })
            .ok()
            .flatten();
        let mut kept = kept.unwrap_or_else(|| {
            let mut rules = Built {
                shared: RuleList::new((self.shared)(self)),
                strict: self.strict.map(|strict| Strict::new(strict(self))),
                relaxed: RuleList::new((self.relaxed)(self)),
                limits: false,
            };
            let limits = rules.all().any(|r| r.reads_limits());
            rules.limits = limits;
            Box::new((BuiltFrom::of(self), rules))
        });
        let result = f(&mut kept.1);
        // A thread being torn down keeps nothing.
        let _ = BUILT.try_with(|built| {
            if let Ok(mut built) = built.try_borrow_mut() {
                if built.len() >= KEPT_BUILDS {
                    built.remove(0);
                }
                built.push(kept);
            }
        });
        result
    }

    /// The rules of the main attempt (strict when the target wants strict), in order.
    ///
    /// A list is meant to run in order on one document, each rule on what the one before left:
    /// some rules hand what they found to a later rule of the same list (Anthropic strict's gate
    /// to its check after the rewrite, OpenAI strict's close-objects to its last check), which
    /// then does not look again. Changing the document between them, or running the later one
    /// on another document, gives that rule a stale answer; each run on its own is exact.
    pub fn rules(&self) -> Vec<Box<dyn Rule>> {
        let mut rules = (self.shared)(self);
        rules.extend((self.strict.unwrap_or(self.relaxed))(self));
        rules
    }

    /// The rules of the non-strict form, in order.
    pub fn relaxed_rules(&self) -> Vec<Box<dyn Rule>> {
        let mut rules = (self.shared)(self);
        rules.extend((self.relaxed)(self));
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

    /// The provider's default settings.
    pub fn settings(self) -> AdaptSettings {
        match self {
            Target::Mcp => AdaptSettings::mcp(),
            Target::OpenAi => AdaptSettings::openai(),
            Target::OpenAiStrict => AdaptSettings::openai_strict(),
            Target::OpenAiResponses => AdaptSettings::openai_responses(),
            Target::Anthropic => AdaptSettings::anthropic(),
            Target::AnthropicStrict => AdaptSettings::anthropic_strict(),
            Target::Gemini => AdaptSettings::gemini(),
            Target::GeminiOpenApi => AdaptSettings::gemini_openapi(),
            Target::CcaClaude => AdaptSettings::cca_claude(),
        }
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
        let describe = |m: &mut Map<String, Value>| {
            if let Some(d) = description {
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
        }
        Value::Object(decl)
    }

    /// The request's list of tools.
    pub fn envelope(self, declarations: Vec<Value>) -> Value {
        // Built around the list, not through `json!`, which would copy every declaration.
        match self.envelope_key() {
            Some(key) => super::rules::one_key(key, Value::Array(declarations)),
            None => Value::Array(declarations),
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
