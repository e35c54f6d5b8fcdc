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

/// `name == key`, for the short keys of a schema without a call to `memcmp` (which most of a
/// scan's comparisons of equal-length keys spent their time calling): keys of up to 16 bytes
/// are compared as two words that may overlap.
#[inline]
pub(crate) fn same_key(name: &str, key: &str) -> bool {
    let (a, b) = (name.as_bytes(), key.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    // The first and last `W` bytes of each, as words (they overlap when `n < 2 W`).
    macro_rules! ends {
        ($w:ty, $bytes:expr) => {
            <$w>::from_le_bytes(a[..$bytes].try_into().expect("long enough"))
                == <$w>::from_le_bytes(b[..$bytes].try_into().expect("long enough"))
                && <$w>::from_le_bytes(a[n - $bytes..].try_into().expect("long enough"))
                    == <$w>::from_le_bytes(b[n - $bytes..].try_into().expect("long enough"))
        };
    }
    match n {
        0 => true,
        1 => a[0] == b[0],
        2..=3 => ends!(u16, 2),
        4..=7 => ends!(u32, 4),
        8..=16 => ends!(u64, 8),
        _ => a == b,
    }
}

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
                .find(|(name, _)| same_key(name, k))
                .map(|(_, v)| v)
        } else {
            self.get(k)
        }
    }

    #[inline]
    fn key_mut(&mut self, k: &str) -> Option<&mut Value> {
        if self.len() <= SCAN {
            self.iter_mut()
                .find(|(name, _)| same_key(name, k))
                .map(|(_, v)| v)
        } else {
            self.get_mut(k)
        }
    }

    #[inline]
    fn take_key(&mut self, k: &str) -> Option<Value> {
        // Absent, the common case, is answered without hashing; present, serde_json removes it.
        if self.len() <= SCAN && !self.keys().any(|name| same_key(name, k)) {
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

/// `take_key` for a key a few-entry map holds, in one pass over its entries (the small table
/// rebuilt from the hashes it keeps) instead of hashing the key to remove it; the others keep
/// their order. `None` when the map does not hold it.
pub(crate) fn take_in_one_pass(map: &mut Map<String, Value>, k: &str) -> Option<Value> {
    if !map.has(k) {
        return None;
    }
    let mut taken = None;
    map.retain(|key, v| {
        if taken.is_none() && key == k {
            taken = Some(std::mem::take(v));
            return false;
        }
        true
    });
    taken
}

/// Whether the node's `type` names `name` (as the one type or in the list), without collecting
/// the list.
pub(crate) fn has_type(node: &Map<String, Value>, name: &str) -> bool {
    match node.key("type") {
        Some(Value::String(t)) => t == name,
        Some(Value::Array(ts)) => ts.iter().any(|t| t.as_str() == Some(name)),
        _ => false,
    }
}

/// For each slot (a mix of a word's first and last bytes), the lengths of the `words` that fall
/// in it (bit `n` for `n` bytes; bit 63 for 63 bytes or more): a key whose slot and length
/// match none is none of them, found without comparing a string. Usable in `const` context for
/// static tables. (By the first byte alone, `type` would pass for a list holding `then`, and
/// `description` for one holding `definitions`.)
pub(crate) const fn end_byte_lengths(words: &[&str]) -> [u64; 256] {
    let mut table = [0u64; 256];
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_bytes();
        if !w.is_empty() {
            table[slot(w[0], w[w.len() - 1])] |= 1 << length_bit(w.len());
        }
        i += 1;
    }
    table
}

/// The slot of a word by its first and last bytes.
#[inline]
const fn slot(first: u8, last: u8) -> usize {
    ((first as usize).wrapping_mul(7) ^ (last as usize).wrapping_mul(13)) & 255
}

const fn length_bit(len: usize) -> usize {
    if len < 63 { len } else { 63 }
}

/// Whether `key` may be one of the words `table` was made from ([`end_byte_lengths`]);
/// `false` is certain. The empty key is never in a table.
#[inline]
pub(crate) fn may_be_in(table: &[u64; 256], key: &str) -> bool {
    match key.as_bytes() {
        [] => false,
        [first, .., last] | [first @ last] => {
            table[slot(*first, *last)] & (1 << length_bit(key.len())) != 0
        }
    }
}

/// A set of keywords (a provider's table), asked many times per document: a key is rejected by
/// its first and last bytes and its length before it is compared with the words.
pub(crate) struct KeywordSet {
    words: &'static [&'static str],
    table: &'static [u64; 256],
}

/// Accepts every key: what a word list gets when the cache is full (the look-up is still exact,
/// only the quick rejection is lost).
static EVERY_KEY: [u64; 256] = [u64::MAX; 256];

/// Values made once per static word list and kept for the process: the providers' tables are
/// static, so each is made once, not once per adaptation (a 2 KiB table made, copied and freed on
/// every `adapt` cost more than the walk it speeds up). A list is known by its address and
/// length, which no other static list shares. Up to 64 lists are kept.
pub(crate) struct PerList<T: Copy> {
    kept: std::sync::RwLock<Vec<((usize, usize), T)>>,
}

impl<T: Copy> PerList<T> {
    const KEPT: usize = 64;

    pub(crate) const fn new() -> Self {
        PerList {
            kept: std::sync::RwLock::new(Vec::new()),
        }
    }

    /// The value kept for `words`, made by `make` on the list's first use; `None` when the list
    /// is not kept and there is no room left to keep it (the caller makes or replaces it).
    pub(crate) fn get(
        &self,
        words: &'static [&'static str],
        make: impl FnOnce() -> T,
    ) -> Option<T> {
        let id = (words.as_ptr() as usize, words.len());
        let find =
            |kept: &[((usize, usize), T)]| kept.iter().find(|(k, _)| *k == id).map(|(_, v)| *v);
        if let Some(v) = find(&self.kept.read().unwrap_or_else(|e| e.into_inner())) {
            return Some(v);
        }
        let mut kept = self.kept.write().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = find(&kept) {
            return Some(v);
        }
        if kept.len() >= Self::KEPT {
            return None;
        }
        let v = make();
        kept.push((id, v));
        Some(v)
    }
}

/// The table of a static word list, made on its first use and kept ([`PerList`]); past the
/// lists kept, the table that accepts every key.
fn table_of(words: &'static [&'static str]) -> &'static [u64; 256] {
    static TABLES: PerList<&'static [u64; 256]> = PerList::new();
    TABLES
        .get(words, || Box::leak(Box::new(end_byte_lengths(words))))
        .unwrap_or(&EVERY_KEY)
}

impl KeywordSet {
    pub(crate) fn new(words: &'static [&'static str]) -> Self {
        KeywordSet {
            words,
            table: table_of(words),
        }
    }

    /// Whether `key` is one of the words.
    #[inline]
    pub(crate) fn contains(&self, key: &str) -> bool {
        (key.is_empty() || may_be_in(self.table, key)) && self.words.contains(&key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `same_key` answers as `==` does: for keys of every length up to past the word sizes,
    /// against themselves, against keys differing in one byte anywhere, and of other lengths.
    #[test]
    fn same_key_is_equality() {
        let text = "abcdefghijklmnopqrstuvwxyz";
        for n in 0..=text.len() {
            let key = &text[..n];
            assert!(same_key(key, &String::from(key)), "{key}");
            for at in 0..n {
                let mut other = key.as_bytes().to_vec();
                other[at] = b'_';
                let other = String::from_utf8(other).expect("ascii");
                assert!(!same_key(key, &other), "{key} {other}");
            }
            for m in 0..=text.len() {
                assert_eq!(same_key(key, &text[..m]), n == m, "{key} {m}");
            }
        }
        assert!(same_key("$ref", "$ref") && !same_key("type", "enum"));
    }

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
                let mut c = a.clone();
                if let Some(c) = c.as_object_mut() {
                    assert_eq!(take_in_one_pass(c, k), expected, "{k}");
                }
                assert_eq!(a.take_key(k), expected, "{k}");
                assert_eq!(a, c, "{k}: taken in one pass as by take_key");
                assert_eq!(a, b, "{k}");
                if let (Some(a), Some(b)) = (a.as_object(), b.as_object()) {
                    let order = |m: &Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
                    assert_eq!(order(a), order(b), "{k}: the rest in the same order");
                    // The map's own (hashed) look-ups still find every entry left.
                    for (name, value) in b {
                        assert_eq!(a.get(name), Some(value), "{k}: {name}");
                    }
                    assert_eq!(a.get(k), None, "{k}");
                }
            }
        }
    }

    /// A keyword set answers as the list does, for words, near misses, the empty key and keys
    /// past the table's longest length.
    #[test]
    fn keyword_sets_answer_as_the_list_does() {
        let long: &'static str = Box::leak("y".repeat(80).into_boxed_str());
        let words: &'static [&'static str] =
            Box::leak(Box::new(["pattern", "format", "", "x", long, "minLength"]));
        let set = KeywordSet::new(words);
        // Made once per list.
        assert!(std::ptr::eq(set.table, KeywordSet::new(words).table));
        for key in [
            "pattern",
            "patterns",
            "format",
            "formal",
            // A word's first byte and length with another last byte, and the reverse.
            "patterm",
            "qattern",
            "",
            "x",
            "xx",
            "minLength",
            "maxLength",
            long,
            &long[..79],
            "type",
        ] {
            assert_eq!(set.contains(key), words.contains(&key), "{key:?}");
        }
    }

    /// Past the lists the cache keeps, a list's answers are still exact.
    #[test]
    fn keyword_sets_past_the_cache_answer_as_their_lists_do() {
        for i in 0..PerList::<&'static [u64; 256]>::KEPT + 8 {
            let word: &'static str = Box::leak(format!("w{i}").into_boxed_str());
            let words: &'static [&'static str] = Box::leak(Box::new([word, "format"]));
            let set = KeywordSet::new(words);
            assert!(set.contains(word) && set.contains("format"), "{i}");
            assert!(
                !set.contains("w") && !set.contains("type") && !set.contains(""),
                "{i}"
            );
        }
    }
}
