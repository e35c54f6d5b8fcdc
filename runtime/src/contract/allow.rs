//! The allow-list of known structural unions. It exists to reach zero: every entry needs a reason
//! and an issue, and a check fails both on a violation it does not cover and on an entry that no
//! longer matches anything (so the list cannot silently go stale).

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ContractReport, Kind, Violation};
use crate::AllowedUnion;

/// One known structural union: a tool, a path prefix (covering the subtree), why, and the issue
/// that tracks its removal. The path is a JSON Pointer (`/$defs/Change`, the form every report
/// prints as `pointer`) or the seed's dotted path (`$defs.Change`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct AllowEntry {
    /// The tool; `None` covers the bare schema being checked (or every tool of a catalog).
    pub tool: Option<String>,
    /// The place, as a prefix: `/properties/field_values` (or the dotted
    /// `properties.field_values`) covers `/properties/field_values/items` too; `""` is the whole
    /// schema. Never a line number.
    pub path: String,
    /// Why the union is tolerated for now.
    pub reason: String,
    /// The issue that tracks removing it (for a derive's `allow_union`, the reference its
    /// reason names: `#163`, a URL).
    pub issue: String,
}

/// An entry that matched no violation: remove it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct StaleAllow {
    /// As in the entry.
    pub tool: Option<String>,
    /// As in the entry.
    pub path: String,
    /// As in the entry.
    pub reason: String,
    /// As in the entry.
    pub issue: String,
    /// The structural union (of the entry's tool) nearest to the entry's path, in the entry's
    /// form, when there is one: the entry may have meant it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nearest: Option<String>,
}

impl fmt::Display for StaleAllow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tool = self.tool.as_deref().unwrap_or("(schema)");
        let path = if self.path.is_empty() {
            "(root)"
        } else {
            &self.path
        };
        match &self.nearest {
            Some(nearest) => write!(
                f,
                "{tool}: {path}: the allow-list entry ({}) matches no structural union; nearest: `{nearest}`: use that path, or remove the entry",
                self.issue
            ),
            None => write!(
                f,
                "{tool}: {path}: the allow-list entry ({}) matches no structural union, and there is none to allow: remove it",
                self.issue
            ),
        }
    }
}

/// Why an allow-list could not be used.
#[derive(Debug)]
#[non_exhaustive]
pub enum AllowListError {
    /// Not JSON of the expected shape.
    Parse(serde_json::Error),
    /// An entry without a reason or an issue (`index` is its position in the list).
    Incomplete {
        /// Position in the list.
        index: usize,
        /// The missing field.
        field: &'static str,
    },
}

impl fmt::Display for AllowListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AllowListError::Parse(e) => write!(
                f,
                "the allow-list must be a JSON array of {{\"tool\", \"path\", \"reason\", \"issue\"}}: {e}"
            ),
            AllowListError::Incomplete { index, field } => write!(
                f,
                "allow-list entry [{index}] has an empty `{field}`: every entry needs a reason and the issue that tracks its removal"
            ),
        }
    }
}

impl std::error::Error for AllowListError {}

/// A list of [`AllowEntry`]s.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllowList {
    entries: Vec<AllowEntry>,
}

/// The issue reference a reason names, as the derive requires one (`#163`, `org/repo#163`, a URL,
/// `issue 163`); the reason itself when it names none in those forms. Never a Rust path: the
/// entry is published to every client in the tool's `_meta`.
pub(crate) fn issue_reference(reason: &str) -> String {
    let trim = |t: &str| {
        t.trim_matches(|c: char| matches!(c, '(' | ')' | '[' | ']' | ',' | ';' | '.' | ':'))
            .to_owned()
    };
    let words: Vec<&str> = reason.split_whitespace().collect();
    for (i, word) in words.iter().enumerate() {
        if word.contains("://") {
            return word
                .trim_matches(|c: char| matches!(c, '(' | ')' | '[' | ']' | ',' | ';'))
                .trim_end_matches('.')
                .to_owned();
        }
        let bytes = word.as_bytes();
        if bytes
            .windows(2)
            .any(|w| w[0] == b'#' && w[1].is_ascii_digit())
        {
            return trim(word);
        }
        if word.eq_ignore_ascii_case("issue") {
            if let Some(next) = words.get(i + 1).map(|n| trim(n)) {
                if next.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                    return format!("issue {next}");
                }
            }
        }
    }
    reason.to_owned()
}

impl AllowList {
    /// An empty list: every structural union fails.
    pub fn new() -> Self {
        AllowList::default()
    }

    /// A list from entries; each needs a non-empty reason and issue.
    pub fn from_entries(entries: Vec<AllowEntry>) -> Result<Self, AllowListError> {
        for (index, entry) in entries.iter().enumerate() {
            if entry.reason.trim().is_empty() {
                return Err(AllowListError::Incomplete {
                    index,
                    field: "reason",
                });
            }
            if entry.issue.trim().is_empty() {
                return Err(AllowListError::Incomplete {
                    index,
                    field: "issue",
                });
            }
        }
        Ok(AllowList { entries })
    }

    /// Reads `[{"tool", "path", "reason", "issue"}]`.
    pub fn from_json(value: Value) -> Result<Self, AllowListError> {
        let entries: Vec<AllowEntry> =
            serde_json::from_value(value).map_err(AllowListError::Parse)?;
        AllowList::from_entries(entries)
    }

    /// The entries for a derived type's `#[tool_schema(allow_union = "...")]` enums: each covers
    /// the enum's definition, `/$defs/<schema name>`. schemars numbers the definitions of further
    /// instantiations of a generic enum (`OrInline2`), so every numbered definition of that name
    /// that holds a structural union in `violations` is covered; when none does, the entry stays
    /// and is reported stale.
    pub fn from_allowed_unions(unions: &[AllowedUnion], violations: &[Violation]) -> Self {
        let mut entries = Vec::new();
        for u in unions {
            let mut keys: Vec<&str> = violations
                .iter()
                .filter(|v| v.kind == Kind::StructuralUnion)
                .filter_map(|v| def_key(&v.path))
                .filter(|key| is_numbered(key, &u.schema_name))
                .collect();
            keys.sort_unstable();
            keys.dedup();
            if keys.is_empty() {
                keys.push(&u.schema_name);
            }
            for key in keys {
                entries.push(AllowEntry {
                    tool: None,
                    path: crate::walk::pointer(&[crate::walk::Step::Name("$defs", key)]),
                    reason: u.reason.to_owned(),
                    issue: issue_reference(u.reason),
                });
            }
        }
        AllowList { entries }
    }

    /// The entries.
    pub fn entries(&self) -> &[AllowEntry] {
        &self.entries
    }

    /// This list with `more` entries added after its own.
    pub fn with_entries(mut self, more: impl IntoIterator<Item = AllowEntry>) -> Self {
        self.entries.extend(more);
        self
    }

    /// The entries as a tool publishes them under [`ALLOWED_UNIONS_META`] in its MCP `_meta`
    /// (`[{"path", "reason", "issue"}]`; the tool is the one publishing them).
    pub fn to_published(&self) -> Value {
        let entries = self
            .entries
            .iter()
            .map(|e| serde_json::json!({"path": e.path, "reason": e.reason, "issue": e.issue}));
        Value::Array(entries.collect())
    }

    /// The entries tool `tool` published in its MCP `_meta` ([`AllowList::to_published`]),
    /// each for that tool alone. An entry without a string `path`, `reason` and `issue` is not
    /// read (the union it meant is then reported, never silently allowed).
    pub fn from_published(tool: Option<&str>, meta: &Value) -> Vec<AllowEntry> {
        let Some(Value::Array(items)) = meta.get(ALLOWED_UNIONS_META) else {
            return Vec::new();
        };
        let field = |item: &Value, key: &str| {
            item.get(key)
                .and_then(Value::as_str)
                .filter(|s| !s.trim().is_empty() || key == "path")
                .map(str::to_owned)
        };
        (items.iter())
            .filter_map(|item| {
                Some(AllowEntry {
                    tool: tool.map(str::to_owned),
                    path: field(item, "path")?,
                    reason: field(item, "reason")?,
                    issue: field(item, "issue")?,
                })
            })
            .collect()
    }

    fn covers(entry: &AllowEntry, v: &Violation) -> bool {
        if v.kind != Kind::StructuralUnion {
            return false;
        }
        if let Some(tool) = &entry.tool {
            if v.tool.as_deref() != Some(tool.as_str()) {
                return false;
            }
        }
        if entry.path.starts_with('/') {
            pointer_has_prefix(&v.pointer, &entry.path)
        } else {
            path_has_prefix(&v.path, &entry.path)
        }
    }

    /// The structural union of `unions` (of the entry's tool) nearest to a stale entry's path:
    /// the one sharing the longest start with it, in the entry's form.
    fn nearest(entry: &AllowEntry, unions: &[&Violation]) -> Option<String> {
        let form = |v: &Violation| {
            if entry.path.starts_with('/') {
                v.pointer.clone()
            } else {
                v.path.clone()
            }
        };
        let shared =
            |a: &str, b: &str| a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
        (unions.iter())
            .filter(|v| entry.tool.is_none() || v.tool == entry.tool)
            .map(|v| form(v))
            .max_by_key(|p| (shared(p, &entry.path), std::cmp::Reverse(p.len())))
    }

    /// Removes the violations the list covers and reports the entries that covered none.
    pub fn apply(&self, violations: Vec<Violation>) -> ContractReport {
        let unions: Vec<Violation> = (violations.iter())
            .filter(|v| v.kind == Kind::StructuralUnion)
            .cloned()
            .collect();
        let unions: Vec<&Violation> = unions.iter().collect();
        let mut used = vec![false; self.entries.len()];
        let mut kept = Vec::new();
        for v in violations {
            let mut covered = false;
            for (i, entry) in self.entries.iter().enumerate() {
                if AllowList::covers(entry, &v) {
                    used[i] = true;
                    covered = true;
                }
            }
            if !covered {
                kept.push(v);
            }
        }
        let stale_allows = self
            .entries
            .iter()
            .zip(used)
            .filter(|(_, used)| !used)
            .map(|(e, _)| StaleAllow {
                tool: e.tool.clone(),
                path: e.path.clone(),
                reason: e.reason.clone(),
                issue: e.issue.clone(),
                nearest: AllowList::nearest(e, &unions),
            })
            .collect();
        ContractReport {
            violations: kept,
            stale_allows,
        }
    }
}

/// The `_meta` key under which a tool lists the structural unions its author allowed (from
/// `#[tool_schema(allow_union = …)]`: `toolschema::rmcp::exact_schemas` publishes them), so that
/// `toolschema lint` of the server allows the same unions. MCP clients ignore it; it never
/// reaches a model.
pub const ALLOWED_UNIONS_META: &str = "toolschema/allowedUnions";

/// `prefix` (a JSON Pointer) covers `pointer` when equal, or when `pointer` continues it with `/`.
fn pointer_has_prefix(pointer: &str, prefix: &str) -> bool {
    match pointer.strip_prefix(prefix) {
        Some(rest) => rest.is_empty() || rest.starts_with('/'),
        None => false,
    }
}

/// The definition name of a `$defs.<name>...` path.
fn def_key(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("$defs.")?;
    let end = rest.find(['.', '[']).unwrap_or(rest.len());
    Some(&rest[..end])
}

/// `key` is `name` or `name` followed by digits (`OrInline2`).
fn is_numbered(key: &str, name: &str) -> bool {
    key.strip_prefix(name)
        .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit()))
}

/// `prefix` covers `path` when equal, or when `path` continues it with `.` or `[`.
fn path_has_prefix(path: &str, prefix: &str) -> bool {
    if prefix.is_empty() {
        return true;
    }
    match path.strip_prefix(prefix) {
        Some(rest) => rest.is_empty() || rest.starts_with('.') || rest.starts_with('['),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_cover_subtrees_only() {
        assert!(path_has_prefix(
            "properties.field_values.items",
            "properties.field_values"
        ));
        assert!(path_has_prefix("properties.a", "properties.a"));
        assert!(path_has_prefix("properties.a[\"x\"]", "properties.a"));
        assert!(!path_has_prefix("properties.ab", "properties.a"));
        assert!(path_has_prefix("anything", ""));
    }

    #[test]
    fn numbered_definitions_of_generic_enums() {
        assert_eq!(def_key("$defs.OrInline2.anyOf[0]"), Some("OrInline2"));
        assert_eq!(def_key("properties.x"), None);
        assert!(is_numbered("OrInline2", "OrInline"));
        assert!(is_numbered("OrInline", "OrInline"));
        assert!(!is_numbered("OrInlineX", "OrInline"));
    }

    fn union_at(tool: &str, dotted: &str, pointer: &str) -> Violation {
        Violation {
            tool: Some(tool.to_owned()),
            path: dotted.to_owned(),
            pointer: pointer.to_owned(),
            kind: Kind::StructuralUnion,
            severity: Kind::StructuralUnion.severity(),
            message: String::new(),
        }
    }

    fn entry(tool: Option<&str>, path: &str) -> AllowEntry {
        AllowEntry {
            tool: tool.map(str::to_owned),
            path: path.to_owned(),
            reason: "r".to_owned(),
            issue: "#1".to_owned(),
        }
    }

    #[test]
    fn a_json_pointer_or_a_dotted_path_covers_the_subtree() {
        let v = union_at("t", "$defs.Change.anyOf[0]", "/$defs/Change/anyOf/0");
        for path in ["/$defs/Change", "$defs.Change", "", "/$defs/Change/anyOf/0"] {
            let report = AllowList::from_entries(vec![entry(Some("t"), path)])
                .unwrap()
                .apply(vec![v.clone()]);
            assert!(report.violations.is_empty(), "{path}");
            assert!(report.stale_allows.is_empty(), "{path}");
        }
        for path in ["/$defs/Chan", "/$defs/Changes", "$defs.Changes"] {
            let report = AllowList::from_entries(vec![entry(Some("t"), path)])
                .unwrap()
                .apply(vec![v.clone()]);
            assert_eq!(report.violations.len(), 1, "{path}");
            assert_eq!(report.stale_allows.len(), 1, "{path}");
        }
    }

    #[test]
    fn a_stale_entry_names_the_nearest_union_of_its_tool_in_its_own_form() {
        let unions = vec![
            union_at("t", "$defs.Change", "/$defs/Change"),
            union_at("t", "properties.x", "/properties/x"),
            union_at("other", "$defs.Changes", "/$defs/Changes"),
        ];
        let list = AllowList::from_entries(vec![
            entry(Some("t"), "/$defs/Changes"),
            entry(Some("t"), "$defs.Chnge"),
            entry(Some("none"), "/$defs/Change"),
        ])
        .unwrap();
        let stale = list.apply(unions).stale_allows;
        assert_eq!(stale[0].nearest.as_deref(), Some("/$defs/Change"));
        assert_eq!(stale[1].nearest.as_deref(), Some("$defs.Change"));
        assert_eq!(stale[2].nearest, None);
        assert!(
            stale[0].to_string().contains("nearest: `/$defs/Change`"),
            "{}",
            stale[0]
        );
        assert!(
            stale[2].to_string().contains("there is none"),
            "{}",
            stale[2]
        );
    }

    #[test]
    fn published_entries_are_read_back_for_their_tool_alone() {
        let list = AllowList::from_entries(vec![entry(None, "/$defs/Change")]).unwrap();
        let meta = serde_json::json!({ ALLOWED_UNIONS_META: list.to_published(), "other": 1 });
        let read = AllowList::from_published(Some("edit"), &meta);
        assert_eq!(read, vec![entry(Some("edit"), "/$defs/Change")]);
        // A malformed entry is not read: the union it meant is then reported, not allowed.
        let meta =
            serde_json::json!({ ALLOWED_UNIONS_META: [{"path": "/$defs/Change", "reason": ""}] });
        assert!(AllowList::from_published(Some("edit"), &meta).is_empty());
    }

    #[test]
    fn entries_need_reason_and_issue() {
        let list = serde_json::json!([{"tool": "t", "path": "p", "reason": " ", "issue": "#1"}]);
        let err = AllowList::from_json(list).unwrap_err();
        assert!(err.to_string().contains("`reason`"), "{err}");
        let list = serde_json::json!([{"tool": "t", "path": "p", "reason": "r", "issue": ""}]);
        let err = AllowList::from_json(list).unwrap_err();
        assert!(err.to_string().contains("`issue`"), "{err}");
        let list = serde_json::json!([{"tool": "t", "path": "p", "reason": "r"}]);
        assert!(matches!(
            AllowList::from_json(list),
            Err(AllowListError::Parse(_))
        ));
    }
}

#[cfg(test)]
mod issue_tests {
    use super::issue_reference;

    /// The reference a reason names, in each form the derive accepts; never a Rust path.
    #[test]
    fn the_issue_is_the_reference_the_reason_names() {
        assert_eq!(
            issue_reference("old clients send both shapes (#163)"),
            "#163"
        );
        assert_eq!(issue_reference("splitting it is tracked in #12"), "#12");
        assert_eq!(issue_reference("see acme/api#7, soon"), "acme/api#7");
        assert_eq!(
            issue_reference("see https://tracker.example/163."),
            "https://tracker.example/163"
        );
        assert_eq!(issue_reference("tracked as issue 42."), "issue 42");
        assert_eq!(issue_reference("no reference"), "no reference");
    }
}
