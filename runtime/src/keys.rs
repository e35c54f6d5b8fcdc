//! Keyword lookups on schema values: on a [`Value`] that is not an object, `None` (or `false`),
//! as `Value::get` does.

use serde_json::{Map, Value};

/// [`Map`]'s lookups by keyword, also on a [`Value`].
pub(crate) trait Keys {
    /// `get`.
    fn key(&self, k: &str) -> Option<&Value>;
    /// `contains_key`.
    fn has(&self, k: &str) -> bool {
        self.key(k).is_some()
    }
}

impl Keys for Map<String, Value> {
    fn key(&self, k: &str) -> Option<&Value> {
        self.get(k)
    }
}

impl Keys for Value {
    fn key(&self, k: &str) -> Option<&Value> {
        self.as_object()?.get(k)
    }
}

/// Whether the node's `type` names `name` (as the one type or in the list).
pub(crate) fn has_type(node: &Map<String, Value>, name: &str) -> bool {
    match node.get("type") {
        Some(Value::String(t)) => t == name,
        Some(Value::Array(ts)) => ts.iter().any(|t| t.as_str() == Some(name)),
        _ => false,
    }
}
