//! The allow-list of known structural unions. It exists to reach zero: every entry needs a reason
//! and an issue, and a check fails both on a violation it does not cover and on an entry that no
//! longer matches anything (so the list cannot silently go stale).

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ContractReport, Kind, Violation};
use crate::AllowedUnion;

/// One known structural union: a tool, a path prefix (covering the subtree), why, and the issue
/// that tracks its removal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct AllowEntry {
    /// The tool; `None` covers the bare schema being checked (or every tool of a catalog).
    pub tool: Option<String>,
    /// The seed's dotted path, as a prefix: `properties.field_values` covers
    /// `properties.field_values.items` too. Never a line number.
    pub path: String,
    /// Why the union is tolerated for now.
    pub reason: String,
    /// The issue that tracks removing it.
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
}

impl fmt::Display for StaleAllow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tool = self.tool.as_deref().unwrap_or("(schema)");
        let path = if self.path.is_empty() {
            "(root)"
        } else {
            &self.path
        };
        write!(
            f,
            "{tool}: {path}: the allow-list entry ({}) no longer matches a structural union: remove it",
            self.issue
        )
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
    /// the enum's definition, `$defs.<schema name>`. schemars numbers the definitions of further
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
                    path: crate::walk::dotted(&[crate::walk::Step::Name("$defs", key)]),
                    reason: u.reason.to_owned(),
                    issue: format!("allow_union on `{}`", u.rust_type),
                });
            }
        }
        AllowList { entries }
    }

    /// The entries.
    pub fn entries(&self) -> &[AllowEntry] {
        &self.entries
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
        path_has_prefix(&v.path, &entry.path)
    }

    /// Removes the violations the list covers and reports the entries that covered none.
    pub fn apply(&self, violations: Vec<Violation>) -> ContractReport {
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
            })
            .collect();
        ContractReport {
            violations: kept,
            stale_allows,
        }
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
