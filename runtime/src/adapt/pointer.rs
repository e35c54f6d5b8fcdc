//! [`Pointer`]: a report position that costs O(1) to record and is rendered as a JSON Pointer
//! string only when read, so that an adaptation stays linear in its input even when every node
//! records a change.

use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use arrayvec::ArrayString;

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
pub struct Pointer(Repr);

#[derive(Clone, Default)]
enum Repr {
    /// `""`.
    #[default]
    Root,
    /// A token below a parent pointer.
    Node(Arc<Node>),
    /// A whole pointer given as text (`/a/b`), kept as it is, whatever its depth (behind one
    /// thin pointer: a `Pointer` is two words, and the reports hold many).
    Text(Arc<String>),
}

struct Node {
    parent: Pointer,
    /// The last token, escaped (`~0`, `~1`).
    escaped: Token,
    /// The rendered pointer, once read.
    text: OnceLock<Box<str>>,
}

impl Pointer {
    /// The whole document (`""`).
    pub fn root() -> Self {
        Pointer(Repr::Root)
    }

    /// The pointer of `token` below this one (`token` unescaped, as the key or index reads).
    pub fn child(&self, token: &str) -> Self {
        if token.contains(['~', '/']) {
            let escaped = token.replace('~', "~0").replace('/', "~1").into_boxed_str();
            return self.child_escaped(escaped);
        }
        // A JSON Schema keyword (most tokens but property names) is referred to, not copied;
        // a short name is kept in the link itself.
        self.below(Token::from(token))
    }

    /// The pointer of item `index` below this one.
    pub fn index(&self, index: usize) -> Self {
        self.below(Token::index(index))
    }

    fn child_escaped(&self, escaped: Box<str>) -> Self {
        self.below(Token::Owned(escaped))
    }

    fn below(&self, escaped: Token) -> Self {
        Pointer(Repr::Node(Arc::new(Node {
            parent: self.clone(),
            escaped,
            text: OnceLock::new(),
        })))
    }

    /// Reads a JSON Pointer string (`""` is the root). A string that does not start with `/` is
    /// read as one token below the root.
    pub fn parse(text: &str) -> Self {
        match text {
            "" => Pointer::root(),
            t if t.starts_with('/') => Pointer(Repr::Text(Arc::new(t.to_owned()))),
            t => Pointer(Repr::Text(Arc::new(format!("/{t}")))),
        }
    }

    /// The parent pointer; `None` for the root.
    pub fn parent(&self) -> Option<Pointer> {
        match &self.0 {
            Repr::Root => None,
            Repr::Node(n) => Some(n.parent.clone()),
            Repr::Text(t) => Some(Pointer::parse(&t[..t.rfind('/').unwrap_or(0)])),
        }
    }

    /// The last token, unescaped when it needs no unescaping (`None` for the root, or for a
    /// token holding `~0`/`~1`: use [`Pointer::tokens`]).
    pub fn last_token(&self) -> Option<&str> {
        self.last_escaped().filter(|t| !t.contains('~'))
    }

    /// The last token as written in the pointer (escaped).
    pub(crate) fn last_escaped(&self) -> Option<&str> {
        match &self.0 {
            Repr::Root => None,
            Repr::Node(n) => Some(&n.escaped),
            Repr::Text(t) => t.rsplit('/').next(),
        }
    }

    /// Whether this is the root.
    pub fn is_root(&self) -> bool {
        matches!(self.0, Repr::Root)
    }

    /// The tokens from the root, unescaped.
    pub fn tokens(&self) -> Vec<String> {
        match self.as_str() {
            "" => Vec::new(),
            t => t
                .split('/')
                .skip(1)
                .map(|s| s.replace("~1", "/").replace("~0", "~"))
                .collect(),
        }
    }

    /// The JSON Pointer string, rendered on first read.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Root => "",
            Repr::Text(t) => t,
            Repr::Node(node) => node.text.get_or_init(|| {
                // The tokens up to the nearest ancestor that is not a token link.
                let mut parts: Vec<&str> = Vec::new();
                let mut at = self;
                let base = loop {
                    match &at.0 {
                        Repr::Node(n) => {
                            parts.push(&n.escaped);
                            at = &n.parent;
                        }
                        Repr::Text(t) => break t.as_str(),
                        Repr::Root => break "",
                    }
                };
                let mut text = String::with_capacity(
                    base.len() + parts.iter().map(|p| p.len() + 1).sum::<usize>(),
                );
                text.push_str(base);
                for part in parts.iter().rev() {
                    text.push('/');
                    text.push_str(part);
                }
                text.into_boxed_str()
            }),
        }
    }

    /// An identity for this position's node (the same for clones of one pointer).
    pub(crate) fn id(&self) -> usize {
        match &self.0 {
            Repr::Root => 0,
            Repr::Node(n) => Arc::as_ptr(n) as usize,
            Repr::Text(t) => Arc::as_ptr(t) as usize,
        }
    }
}

/// A token as a pointer keeps it: a keyword of the vocabulary by reference, a short one (most
/// property names, every index) in the link itself, a longer one owned. In the link it costs no
/// allocation of its own, and the link is no larger in memory than its allocation was before
/// (`links_stay_small`). The tree of positions keeps its tokens the same way.
#[derive(Clone)]
pub(crate) enum Token {
    Static(&'static str),
    Inline(ArrayString<INLINE>),
    Owned(Box<str>),
}

impl Token {
    /// An array index, in the link itself.
    pub(crate) fn index(index: usize) -> Self {
        use std::fmt::Write as _;
        let mut digits = ArrayString::new();
        // At most 20 digits: they always fit.
        match write!(digits, "{index}") {
            Ok(()) => Token::Inline(digits),
            Err(_) => Token::Owned(index.to_string().into_boxed_str()),
        }
    }
}

impl Default for Token {
    fn default() -> Self {
        Token::Static("")
    }
}

impl From<&str> for Token {
    /// A keyword by reference, else [`Token::of`].
    fn from(token: &str) -> Self {
        match super::tree::Keyword::parse(token).map(super::tree::Keyword::as_str) {
            Some(word) => Token::Static(word),
            None => Token::of(token),
        }
    }
}

/// The longest token kept in the link, in bytes.
const INLINE: usize = 23;

impl Token {
    /// `token` (escaped already) in the link when it is short enough, else owned.
    fn of(token: &str) -> Token {
        match ArrayString::from(token) {
            Ok(inline) => Token::Inline(inline),
            Err(_) => Token::Owned(token.into()),
        }
    }
}

impl Deref for Token {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            Token::Static(s) => s,
            Token::Inline(s) => s,
            Token::Owned(s) => s,
        }
    }
}

impl Drop for Node {
    // A deep chain is dropped link by link, not recursively (nesting depth is unbounded).
    fn drop(&mut self) {
        let mut next = std::mem::take(&mut self.parent.0);
        while let Repr::Node(node) = next {
            match Arc::try_unwrap(node) {
                Ok(mut node) => next = std::mem::take(&mut node.parent.0),
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
        (self.id() == other.id() && !self.is_root()) || self.as_str() == other.as_str()
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

    /// A keyword token is referred to and a name copied; both read as written, and a name
    /// that shares a keyword's length and first and last eight bytes is not taken for it.
    #[test]
    fn keywords_and_names_read_as_written() {
        for token in [
            "properties",
            "additionalProperties",
            "additionXYZWoperties",
            "$ref:#/definitions/",
            "type:array",
            "",
            "x",
        ] {
            let p = Pointer::root().child("anyOf").child(token);
            assert_eq!(
                p.last_token(),
                Some(token).filter(|t| !t.contains(['~', '/']))
            );
            assert_eq!(p.tokens(), ["anyOf", token]);
            assert_eq!(Pointer::parse(p.as_str()), p);
        }
    }

    /// Names up to the inline length and past it, multi-byte characters, indices from 0 to the
    /// largest: each reads back as written.
    #[test]
    fn short_and_long_tokens_read_as_written() {
        let names = [
            "a".repeat(INLINE - 1),
            "a".repeat(INLINE),
            "a".repeat(INLINE + 1),
            "é".repeat(INLINE / 2),
            "é".repeat(INLINE / 2 + 1),
            "日本語のプロパティ名".to_owned(),
            "a~b/c".repeat(5),
        ];
        for name in &names {
            let p = Pointer::root().child("properties").child(name);
            assert_eq!(p.tokens(), ["properties", name.as_str()]);
            assert_eq!(Pointer::parse(p.as_str()), p);
        }
        for index in [0, 7, 10, 12_345, usize::MAX] {
            let p = Pointer::root().child("anyOf").index(index);
            assert_eq!(p.as_str(), format!("/anyOf/{index}"));
            assert_eq!(p.last_token(), Some(index.to_string().as_str()));
        }
    }

    /// A token kept in the link does not make the link larger than a reference does by more
    /// than a word (the allocation's size class stays the same).
    #[test]
    fn links_stay_small() {
        assert!(
            std::mem::size_of::<Token>() <= 32,
            "{}",
            std::mem::size_of::<Token>()
        );
        assert!(
            std::mem::size_of::<Node>() <= 72,
            "{}",
            std::mem::size_of::<Node>()
        );
        // Two words: a report holds two per entry.
        assert_eq!(std::mem::size_of::<Pointer>(), 16);
        assert_eq!(std::mem::size_of::<Option<Pointer>>(), 16);
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
