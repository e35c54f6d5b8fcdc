//! Keyword lookups on schema objects.
//!
//! serde_json's `Map` (an `IndexMap` with SipHash here) hashes the key for every lookup. A schema
//! node holds a handful of keywords, where comparing the keys in order is several times cheaper
//! than hashing one; the adapters look a keyword up many times per node. [`Keys`] scans maps of
//! up to [`SCAN`] entries and hashes larger ones (a `properties` map of many names). Same
//! answers as `get`, `get_mut`, `contains_key` and `shift_remove`.

use serde_json::{Map, Value};

/// Up to this many entries a map is scanned rather than hashed.
const SCAN: usize = 8;

/// [`Map`]'s lookups by keyword, without hashing small maps; on a [`Value`], `None` (or
/// `false`) when it is not an object, as `Value::get` does.
pub(crate) trait Keys {
    /// `get`.
    fn key(&self, k: &str) -> Option<&Value>;
    /// `get_mut`.
    fn key_mut(&mut self, k: &str) -> Option<&mut Value>;
    /// `contains_key`.
    fn has(&self, k: &str) -> bool {
        self.key(k).is_some()
    }
    /// `shift_remove`: the entry removed, the order of the others kept.
    fn take_key(&mut self, k: &str) -> Option<Value>;
}

impl Keys for Map<String, Value> {
    #[inline]
    fn key(&self, k: &str) -> Option<&Value> {
        if self.len() <= SCAN {
            self.iter()
                .find(|(name, _)| name.as_str() == k)
                .map(|(_, v)| v)
        } else {
            self.get(k)
        }
    }

    #[inline]
    fn key_mut(&mut self, k: &str) -> Option<&mut Value> {
        if self.len() <= SCAN {
            self.iter_mut()
                .find(|(name, _)| name.as_str() == k)
                .map(|(_, v)| v)
        } else {
            self.get_mut(k)
        }
    }

    #[inline]
    fn take_key(&mut self, k: &str) -> Option<Value> {
        // Absent, the common case, is answered without hashing; present, serde_json removes it.
        if self.len() <= SCAN && !self.keys().any(|name| name == k) {
            return None;
        }
        self.shift_remove(k)
    }
}

impl Keys for Value {
    #[inline]
    fn key(&self, k: &str) -> Option<&Value> {
        self.as_object()?.key(k)
    }

    #[inline]
    fn key_mut(&mut self, k: &str) -> Option<&mut Value> {
        self.as_object_mut()?.key_mut(k)
    }

    #[inline]
    fn take_key(&mut self, k: &str) -> Option<Value> {
        self.as_object_mut()?.take_key(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The same answers as serde_json's own lookups, for small (scanned) and large (hashed) maps.
    #[test]
    fn answers_as_the_map_does() {
        let small = json!({"type": "object", "anyOf": [], "$ref": "#", "": 1});
        let large: Value = (0..20)
            .map(|i| (format!("k{i}"), json!(i)))
            .collect::<Map<_, _>>()
            .into();
        for doc in [small, large, json!([1, 2]), json!("type")] {
            for k in ["type", "anyOf", "$ref", "", "k3", "k19", "missing", "Type"] {
                assert_eq!(doc.key(k), doc.get(k), "{k}");
                assert_eq!(doc.has(k), doc.get(k).is_some(), "{k}");
                let (mut a, mut b) = (doc.clone(), doc.clone());
                assert_eq!(a.key_mut(k).cloned(), b.get_mut(k).cloned());
                let expected = b.as_object_mut().and_then(|m| m.shift_remove(k));
                assert_eq!(a.take_key(k), expected, "{k}");
                assert_eq!(a, b, "{k}: the rest in the same order");
            }
        }
    }
}
