//! The published-schema contract, checked on the schema a client actually receives.
//!
//! Rules (see the project README):
//! - `structural-union`: no `anyOf`/`oneOf` with more than one structured (object- or
//!   array-typed) branch, at any depth.
//! - `non-object-root`: the root is `type: "object"`.
//! - `root-combinator`: no `anyOf`/`oneOf`/`allOf`/`not`/`enum` at the root (OpenAI and
//!   Anthropic reject them).
//! - `unresolved-ref`: a local `$ref` that points nowhere.
//! - warnings: `structured-not-first` (the one structured branch is not the first non-null
//!   one, so a client that keeps the first branch loses it), `external-ref` (never fetched) and
//!   `invalid-pattern` (a `pattern` that does not compile as ECMA-262: dropped by the adapters).
//! - `invalid-schema`: a keyword whose value breaks the meta-schema of the schema's dialect
//!   (checked with the `validate` feature).

mod allow;
mod branch;
mod meta;

use std::collections::HashSet;
use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::keys::Keys;
use crate::walk::{Walk, dotted, pointer};

pub use allow::{ALLOWED_UNIONS_META, AllowEntry, AllowList, AllowListError, StaleAllow};
pub(crate) use branch::direct_branch_kind;
pub use branch::{Branch, BranchKind};

/// The branches of the union `owner[keyword]` (inside the document `root`), flattened as the
/// contract counts them: nested unions contribute their branches, `$ref`s are followed.
pub fn flatten_branches(
    root: &Value,
    owner: &Value,
    keyword: &str,
    branches: &[Value],
) -> Vec<Branch> {
    branch::flatten(root, owner, keyword, branches, &HashSet::new())
}

/// What rule a [`Violation`] breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Kind {
    /// An `anyOf`/`oneOf` with more than one structured branch.
    StructuralUnion,
    /// The root is not `type: "object"`.
    NonObjectRoot,
    /// A combinator or `enum` at the root.
    RootCombinator,
    /// A local `$ref` that does not resolve.
    UnresolvedRef,
    /// Warning: a union's only structured branch is not its first non-null branch.
    StructuredNotFirst,
    /// Warning: a `$ref` to another document, which is never fetched.
    ExternalRef,
    /// Warning: a `pattern` that does not compile as ECMA-262: the adapters drop it (with a loss),
    /// and a provider sent it refuses the whole request.
    InvalidPattern,
    /// A keyword whose value breaks the meta-schema of the schema's dialect (`type: "int"`,
    /// `required: true`, `additionalProperties: "object"`): a provider refuses the whole request.
    InvalidSchema,
}

impl Kind {
    /// The kebab-case name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::StructuralUnion => "structural-union",
            Kind::NonObjectRoot => "non-object-root",
            Kind::RootCombinator => "root-combinator",
            Kind::UnresolvedRef => "unresolved-ref",
            Kind::StructuredNotFirst => "structured-not-first",
            Kind::ExternalRef => "external-ref",
            Kind::InvalidPattern => "invalid-pattern",
            Kind::InvalidSchema => "invalid-schema",
        }
    }

    /// Errors fail a check; warnings are printed only.
    pub fn severity(self) -> Severity {
        match self {
            Kind::StructuredNotFirst | Kind::ExternalRef | Kind::InvalidPattern => {
                Severity::Warning
            }
            _ => Severity::Error,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How bad a [`Violation`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Severity {
    /// Fails the check.
    Error,
    /// Reported; fails only with `--deny-warnings`.
    Warning,
}

/// One breach of the contract, located in the published schema.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Violation {
    /// The tool, when checking a catalog.
    pub tool: Option<String>,
    /// The seed's dotted path (`properties.field_values.items`); the root is `""`.
    pub path: String,
    /// The same place as a JSON Pointer.
    pub pointer: String,
    /// The rule.
    pub kind: Kind,
    /// `error` or `warning`.
    pub severity: Severity,
    /// What is wrong, which branches, and what to do.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "(root)"
        } else {
            &self.path
        };
        match &self.tool {
            Some(tool) => write!(f, "{tool}: {path}: {}", self.message),
            None => write!(f, "{path}: {}", self.message),
        }
    }
}

/// Checks one published schema. Never panics; terminates on recursive schemas.
pub fn check(schema: &Value) -> Vec<Violation> {
    check_tool(None, schema)
}

/// Checks one tool's published schema; violations carry the tool's name.
pub fn check_tool(tool: Option<&str>, schema: &Value) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut push = |steps: &[crate::walk::Step<'_>], kind: Kind, message: String| {
        out.push(Violation {
            tool: tool.map(str::to_owned),
            path: dotted(steps),
            pointer: pointer(steps),
            kind,
            severity: kind.severity(),
            message,
        });
    };

    check_root(schema, &mut |kind, message| push(&[], kind, message));
    for (steps, words) in meta::meta_errors(schema) {
        push(
            &steps,
            Kind::InvalidSchema,
            format!(
                "not valid JSON Schema: {words}; fix the schema (the adapters repair a type name \
                 like `int`, a boolean `required` and a type name where a schema belongs, and \
                 send anything else as the empty object: `toolschema adapt --report` says which)"
            ),
        );
    }

    let walk = Walk::new(schema);
    let nested = nested_unions(&walk);
    for (index, (node, _)) in walk.nodes.iter().enumerate() {
        let Value::Object(map) = node else { continue };
        if let Some(Value::String(reference)) = map.key("$ref") {
            if let Some(kind_message) = check_ref(schema, reference) {
                push(&walk.steps(index), kind_message.0, kind_message.1);
            }
        }
        if let Some(why) = map
            .key("pattern")
            .and_then(crate::adapt::rules::pattern_refusal)
        {
            let mut steps = walk.steps(index);
            steps.push(crate::walk::Step::Keyword("pattern"));
            let value = map
                .key("pattern")
                .map(ToString::to_string)
                .unwrap_or_default();
            push(
                &steps,
                Kind::InvalidPattern,
                format!("`pattern: {value}` {why}: every adapter drops it; fix the expression"),
            );
        }
        if nested.contains(&(*node as *const Value)) {
            continue;
        }
        for keyword in ["anyOf", "oneOf"] {
            let Some(Value::Array(branches)) = map.get(keyword) else {
                continue;
            };
            for (kind, message) in check_union(schema, node, keyword, branches, &nested) {
                push(&walk.steps(index), kind, message);
            }
        }
    }
    out
}

/// The unions that are inline branches of another union: they are judged as part of it.
fn nested_unions(walk: &Walk<'_>) -> HashSet<*const Value> {
    let mut nested = HashSet::new();
    for (node, _) in &walk.nodes {
        for keyword in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = node.get(keyword) {
                for b in branches {
                    if branch::union_only(b).is_some() {
                        nested.insert(b as *const Value);
                    }
                }
            }
        }
    }
    nested
}

/// The structural unions of `schema`, as [`check`] reports them: each one's node (its index in
/// [`Walk::new`]'s breadth-first list), keyword and number of structured branches (for the
/// adapters that report a union a client may flatten).
pub(crate) fn structural_unions(schema: &Value) -> Vec<(usize, &'static str, usize)> {
    let walk = Walk::new(schema);
    let nested = nested_unions(&walk);
    let mut out = Vec::new();
    for (index, (node, _)) in walk.nodes.iter().enumerate() {
        if nested.contains(&(*node as *const Value)) {
            continue;
        }
        for keyword in ["anyOf", "oneOf"] {
            let Some(Value::Array(branches)) = node.get(keyword) else {
                continue;
            };
            let flat = branch::flatten(schema, node, keyword, branches, &nested);
            let count = structural(&flat).map_or(0, |s| s.len());
            if count > 1 {
                out.push((index, keyword, count));
            }
        }
    }
    out
}

/// A union's structured branches (`flat`: its branches flattened), `None` when it is reported
/// elsewhere: every structured branch comes from one referenced union, which is reported where
/// it is defined (`Option<Union>` is still that one union, reported once). Branches of two
/// different referenced unions (even under one inline branch) are reported here.
fn structural(flat: &[Branch]) -> Option<Vec<&Branch>> {
    let structured: Vec<&Branch> = flat
        .iter()
        .filter(|b| matches!(b.kind, BranchKind::Structured(_)))
        .collect();
    let one_nested_origin = structured.first().is_some_and(|first| {
        structured.iter().all(|b| {
            b.reported_elsewhere
                && b.origin == first.origin
                && b.elsewhere_union == first.elsewhere_union
        })
    });
    (!one_nested_origin).then_some(structured)
}

fn check_root(schema: &Value, report: &mut dyn FnMut(Kind, String)) {
    let Value::Object(map) = schema else {
        report(
            Kind::NonObjectRoot,
            format!(
                "the root schema is the boolean `{schema}`, not an object schema: publish `{{\"type\": \"object\", \"properties\": {{...}}}}`"
            ),
        );
        return;
    };
    match map.key("type") {
        Some(Value::String(t)) if t == "object" => {}
        other => {
            let what = match other {
                None => "has no `type`".to_owned(),
                Some(t) => format!("has `type: {t}`"),
            };
            report(
                Kind::NonObjectRoot,
                format!(
                    "the root {what}; providers require `type: \"object\"` at the root: make the parameters a struct with named fields"
                ),
            );
        }
    }
    let combinators: Vec<&str> = ["anyOf", "oneOf", "allOf", "not", "enum"]
        .into_iter()
        .filter(|k| map.has(k))
        .collect();
    if !combinators.is_empty() {
        report(
            Kind::RootCombinator,
            format!(
                "`{}` at the root: OpenAI and Anthropic reject combinators and `enum` at the top level; move the choice into a property (a unit enum for the kind plus separate optional fields)",
                combinators.join("`, `")
            ),
        );
    }
}

fn check_ref(root: &Value, reference: &str) -> Option<(Kind, String)> {
    if !reference.starts_with('#') {
        return Some((
            Kind::ExternalRef,
            format!(
                "`$ref: {reference}` points to another document, which is never fetched: its shape is not checked; inline it or move it into `$defs`"
            ),
        ));
    }
    if crate::walk::resolve_local(root, reference).is_none() {
        return Some((
            Kind::UnresolvedRef,
            format!(
                "`$ref: {reference}` does not resolve in this schema: add the definition or fix the reference"
            ),
        ));
    }
    None
}

fn check_union(
    root: &Value,
    owner: &Value,
    keyword: &str,
    branches: &[Value],
    nested: &HashSet<*const Value>,
) -> Vec<(Kind, String)> {
    let flat = branch::flatten(root, owner, keyword, branches, nested);
    let reported_here = structural(&flat);
    let structured: Vec<&Branch> = flat
        .iter()
        .filter(|b| matches!(b.kind, BranchKind::Structured(_)))
        .collect();
    let mut out = Vec::new();
    if let Some(structured) = reported_here.filter(|s| s.len() > 1) {
        let names: Vec<String> = structured
            .iter()
            .map(|b| match b.kind {
                BranchKind::Structured(t) => format!("{} ({t})", b.label()),
                _ => unreachable!("filtered to structured branches"),
            })
            .collect();
        out.push((
            Kind::StructuralUnion,
            format!(
                "`{keyword}` has {} structured branches: {}. Clients that keep only the first branch (Langflow) or flatten unions (Gemini) lose the others without an error. Fix: a unit enum for the kind plus separate optional fields, separate parameters for a replace-or-delta choice, or a permissive field validated on the server",
                structured.len(),
                names.join(", ")
            ),
        ));
    }
    if structured.len() == 1 {
        let first_non_null = flat.iter().find(|b| b.kind != BranchKind::Null);
        let only = structured[0];
        if let Some(first) = first_non_null {
            if first.origin != only.origin {
                out.push((
                    Kind::StructuredNotFirst,
                    format!(
                        "the only structured branch, {}, is not the first non-null branch ({}): a client that keeps the first branch (Langflow's converter) loses the structured form; list it first",
                        only.label(),
                        first.label()
                    ),
                ));
            }
        }
    }
    out
}

/// The result of checking against an allow-list: what is not covered, and what is stale.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ContractReport {
    /// Violations (errors and warnings) not covered by the allow-list.
    pub violations: Vec<Violation>,
    /// Allow-list entries that no longer match any violation.
    pub stale_allows: Vec<StaleAllow>,
}

impl ContractReport {
    /// Errors not covered by the allow-list.
    pub fn errors(&self) -> impl Iterator<Item = &Violation> {
        self.violations
            .iter()
            .filter(|v| v.severity == Severity::Error)
    }

    /// Warnings.
    pub fn warnings(&self) -> impl Iterator<Item = &Violation> {
        self.violations
            .iter()
            .filter(|v| v.severity == Severity::Warning)
    }

    /// Fails on any uncovered error or stale entry (warnings pass).
    pub fn is_ok(&self) -> bool {
        self.errors().next().is_none() && self.stale_allows.is_empty()
    }

    /// `Ok` when [`ContractReport::is_ok`], else the report as an error.
    pub fn into_result(self) -> Result<(), ContractError> {
        if self.is_ok() {
            Ok(())
        } else {
            Err(ContractError { report: self })
        }
    }

    /// Adds another tool's report.
    pub fn extend(&mut self, other: ContractReport) {
        self.violations.extend(other.violations);
        self.stale_allows.extend(other.stale_allows);
    }
}

/// Checks one schema (of `tool`, if named) against an allow-list.
pub fn check_with(tool: Option<&str>, schema: &Value, allow: &AllowList) -> ContractReport {
    let violations = check_tool(tool, schema);
    allow.apply(violations)
}

/// A failed contract check: the uncovered errors and the stale allow-list entries.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ContractError {
    /// The full report.
    pub report: ContractReport,
}

impl fmt::Display for ContractError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "the published schema breaks the tool-schema contract:")?;
        for v in self.report.errors() {
            writeln!(f, "  {}: {v}", v.kind)?;
        }
        for s in &self.report.stale_allows {
            writeln!(f, "  stale allow: {s}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ContractError {}

#[cfg(test)]
mod tests;
