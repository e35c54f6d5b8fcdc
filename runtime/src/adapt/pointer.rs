//! [`Pointer`]: a report position that costs O(1) to record and is rendered as a JSON Pointer
//! string only when read, so that an adaptation stays linear in its input even when every node
//! records a change.

use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use serde::{Serialize, Serializer};

/// A JSON Pointer (RFC 6901) into a schema: a link to its parent and its last token. Making a
/// child costs one small allocation whatever the depth; the text (`/properties/a~1b`) is built
/// on first read ([`Pointer::as_str`], `Display`, `Serialize`, or through `Deref<Target = str>`)
/// and kept.
///
/// ```
/// use toolschema::adapt::Pointer;
///
/// let p = Pointer::root().child("properties").child("a/b");
/// assert_eq!(p, "/properties/a~1b");
/// assert_eq!(p.parent().unwrap().last_token(), Some("properties"));
/// assert_eq!(Pointer::parse("/properties/a~1b"), p);
/// ```
#[derive(Clone, Default)]
pub struct Pointer(Option<Arc<Node>>);

struct Node {
    parent: Pointer,
    /// The last token, escaped (`~0`, `~1`).
    escaped: Box<str>,
    /// The rendered pointer, once read.
    text: OnceLock<String>,
}

impl Pointer {
    /// The whole document (`""`).
    pub fn root() -> Self {
        Pointer(None)
    }

    /// The pointer of `token` below this one (`token` unescaped, as the key or index reads).
    pub fn child(&self, token: &str) -> Self {
        let escaped = if token.contains(['~', '/']) {
            token.replace('~', "~0").replace('/', "~1").into_boxed_str()
        } else {
            token.into()
        };
        self.child_escaped(escaped)
    }

    /// The pointer of item `index` below this one.
    pub fn index(&self, index: usize) -> Self {
        self.child_escaped(index.to_string().into_boxed_str())
    }

    /// The pointer of an already escaped token below this one.
    pub(crate) fn child_raw(&self, escaped: &str) -> Self {
        self.child_escaped(escaped.into())
    }

    fn child_escaped(&self, escaped: Box<str>) -> Self {
        Pointer(Some(Arc::new(Node {
            parent: self.clone(),
            escaped,
            text: OnceLock::new(),
        })))
    }

    /// Reads a JSON Pointer string (`""` is the root). A string that does not start with `/` is
    /// read as one token below the root.
    pub fn parse(text: &str) -> Self {
        if text.is_empty() {
            return Pointer::root();
        }
        let mut p = Pointer::root();
        for token in text.strip_prefix('/').unwrap_or(text).split('/') {
            p = p.child_escaped(token.into());
        }
        p
    }

    /// The parent pointer; `None` for the root.
    pub fn parent(&self) -> Option<&Pointer> {
        self.0.as_ref().map(|n| &n.parent)
    }

    /// The last token, unescaped when it needs no unescaping (`None` for the root, or for a
    /// token holding `~0`/`~1`: use [`Pointer::tokens`]).
    pub fn last_token(&self) -> Option<&str> {
        self.0
            .as_ref()
            .map(|n| &*n.escaped)
            .filter(|t| !t.contains('~'))
    }

    /// The last token as written in the pointer (escaped).
    pub(crate) fn last_escaped(&self) -> Option<&str> {
        self.0.as_ref().map(|n| &*n.escaped)
    }

    /// Whether this is the root.
    pub fn is_root(&self) -> bool {
        self.0.is_none()
    }

    /// The tokens from the root, unescaped.
    pub fn tokens(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .links()
            .map(|n| n.escaped.replace("~1", "/").replace("~0", "~"))
            .collect();
        out.reverse();
        out
    }

    /// The nodes from this one up to the root's child.
    fn links(&self) -> impl Iterator<Item = &Node> {
        let mut next = self.0.as_deref();
        std::iter::from_fn(move || {
            let node = next?;
            next = node.parent.0.as_deref();
            Some(node)
        })
    }

    /// The JSON Pointer string, rendered on first read.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            None => "",
            Some(node) => node.text.get_or_init(|| {
                let parts: Vec<&str> = self.links().map(|n| &*n.escaped).collect();
                let mut text = String::with_capacity(parts.iter().map(|p| p.len() + 1).sum());
                for part in parts.iter().rev() {
                    text.push('/');
                    text.push_str(part);
                }
                text
            }),
        }
    }

    /// An identity for this position's node (the same for clones of one pointer).
    pub(crate) fn id(&self) -> usize {
        self.0.as_ref().map_or(0, |n| Arc::as_ptr(n) as usize)
    }
}

impl Drop for Node {
    // A deep chain is dropped link by link, not recursively (nesting depth is unbounded).
    fn drop(&mut self) {
        let mut next = self.parent.0.take();
        while let Some(node) = next {
            match Arc::try_unwrap(node) {
                Ok(mut node) => next = node.parent.0.take(),
                Err(_) => break,
            }
        }
    }
}

impl Deref for Pointer {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Pointer {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl Serialize for Pointer {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl PartialEq for Pointer {
    fn eq(&self, other: &Pointer) -> bool {
        self.id() == other.id() || self.as_str() == other.as_str()
    }
}

impl Eq for Pointer {}

impl PartialEq<str> for Pointer {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Pointer {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Pointer {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<Pointer> for &str {
    fn eq(&self, other: &Pointer) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Pointer> for String {
    fn eq(&self, other: &Pointer) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<Pointer> for str {
    fn eq(&self, other: &Pointer) -> bool {
        self == other.as_str()
    }
}

impl From<&str> for Pointer {
    fn from(text: &str) -> Self {
        Pointer::parse(text)
    }
}

impl From<&String> for Pointer {
    fn from(text: &String) -> Self {
        Pointer::parse(text)
    }
}

impl From<String> for Pointer {
    fn from(text: String) -> Self {
        Pointer::parse(&text)
    }
}

impl From<&Pointer> for Pointer {
    fn from(p: &Pointer) -> Self {
        p.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_escapes_and_parses_back() {
        let p = Pointer::root().child("properties").child("a/b~c").index(3);
        assert_eq!(p.as_str(), "/properties/a~1b~0c/3");
        assert_eq!(Pointer::parse(p.as_str()), p);
        assert_eq!(p.tokens(), ["properties", "a/b~c", "3"]);
        assert_eq!(Pointer::root(), "");
        assert_eq!(Pointer::parse(""), Pointer::root());
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            "\"/properties/a~1b~0c/3\""
        );
        assert_eq!(p.parent().unwrap().last_token(), None);
        assert_eq!(p.last_token(), Some("3"));
    }

    #[test]
    fn a_very_deep_chain_drops_without_recursion() {
        let mut p = Pointer::root();
        for _ in 0..1_000_000 {
            p = p.child("x");
        }
        let copy = p.clone();
        drop(p);
        assert_eq!(copy.tokens().len(), 1_000_000);
    }
}
