//! [`Pointer`]: a report position, rendered as a JSON Pointer string only when read. The places
//! of one document are one shared table ([`Places`]: each a parent place and a token), so that
//! recording a position costs no allocation and rendering every place of a deep document is
//! linear.

use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use serde::{Serialize, Serializer};

/// A JSON Pointer (RFC 6901) into a schema. The text (`/properties/a~1b`) is made on first read
/// ([`Pointer::as_str`], `Display`, `Serialize`, or through `Deref<Target = str>`) and kept.
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
    /// A pointer given as text (`/a/b`), kept as it is.
    Text(Arc<str>),
    /// Place `index` of a table (never 0, the root).
    At(Arc<Places>, u32),
}

/// One step below a place.
#[derive(Clone, Debug)]
pub(crate) enum Token {
    /// The root's own place (place 0).
    Root,
    /// A keyword of the vocabulary.
    Key(&'static str),
    /// A property or definition name, or any other key (unescaped).
    Name(Box<str>),
    /// An array index.
    Index(u32),
}

/// The places of one document: place 0 is the root, every other a parent place and a token.
#[derive(Debug)]
pub(crate) struct Places {
    steps: Vec<(u32, Token)>,
    /// Each place's text, made when first read (the list itself too).
    text: OnceLock<Box<[OnceLock<Box<str>>]>>,
}

impl Clone for Places {
    fn clone(&self) -> Self {
        Places {
            steps: self.steps.clone(),
            text: OnceLock::new(),
        }
    }
}

impl Places {
    /// A table holding the root alone (place 0, not stored), with room for `capacity` more.
    pub(crate) fn with_capacity(capacity: usize) -> Places {
        Places {
            steps: Vec::with_capacity(capacity),
            text: OnceLock::new(),
        }
    }

    /// A new place below `parent`.
    pub(crate) fn push(&mut self, parent: u32, token: Token) -> u32 {
        self.steps.push((parent, token));
        u32::try_from(self.steps.len()).expect("fewer than 2^32 places")
    }

    /// Place `index`'s parent and token (the root's: itself, [`Token::Root`]).
    fn step(&self, index: u32) -> (u32, &Token) {
        match index {
            0 => (0, &Token::Root),
            i => {
                let (parent, token) = &self.steps[i as usize - 1];
                (*parent, token)
            }
        }
    }

    /// Place `index`'s token.
    pub(crate) fn token(&self, index: u32) -> &Token {
        self.step(index).1
    }

    /// The pointer of place `index` of `places`.
    pub(crate) fn pointer(places: &Arc<Places>, index: u32) -> Pointer {
        match index {
            0 => Pointer::root(),
            i => Pointer(Repr::At(places.clone(), i)),
        }
    }

    /// Place `index` as text, made once (the tokens up to the root, gathered in a loop: any
    /// depth; only the place read keeps its text).
    fn text(&self, index: u32) -> &str {
        if index == 0 {
            return "";
        }
        let texts = self.text.get_or_init(|| {
            (0..self.steps.len())
                .map(|_| OnceLock::new())
                .collect::<Vec<_>>()
                .into_boxed_slice()
        });
        texts[index as usize - 1].get_or_init(|| self.render(index).into_boxed_str())
    }

    /// Place `index` as a new string: the tokens up to the root, gathered in a loop.
    pub(crate) fn render(&self, index: u32) -> String {
        let mut chain = Vec::new();
        let mut at = index;
        while at != 0 {
            chain.push(at);
            at = self.step(at).0;
        }
        let mut text = String::new();
        for place in chain.into_iter().rev() {
            match self.step(place).1 {
                Token::Root => {}
                Token::Key(k) => push_escaped(&mut text, k),
                Token::Name(name) => push_escaped(&mut text, name),
                Token::Index(i) => {
                    text.push('/');
                    text.push_str(&i.to_string());
                }
            }
        }
        text
    }
}

/// `/` and `token` escaped (`~` as `~0`, `/` as `~1`).
fn push_escaped(text: &mut String, token: &str) {
    text.push('/');
    if token.contains(['~', '/']) {
        text.push_str(&token.replace('~', "~0").replace('/', "~1"));
    } else {
        text.push_str(token);
    }
}

impl Pointer {
    /// The whole document (`""`).
    pub fn root() -> Self {
        Pointer(Repr::Root)
    }

    /// The pointer of `token` below this one (`token` unescaped, as the key or index reads).
    pub fn child(&self, token: &str) -> Self {
        let mut text = self.as_str().to_owned();
        push_escaped(&mut text, token);
        Pointer(Repr::Text(text.into()))
    }

    /// The pointer of item `index` below this one.
    pub fn index(&self, index: usize) -> Self {
        Pointer(Repr::Text(format!("{}/{index}", self.as_str()).into()))
    }

    /// Reads a JSON Pointer string (`""` is the root). A string that does not start with `/` is
    /// read as one token below the root.
    pub fn parse(text: &str) -> Self {
        match text {
            "" => Pointer::root(),
            t if t.starts_with('/') => Pointer(Repr::Text(t.into())),
            t => Pointer(Repr::Text(format!("/{t}").into())),
        }
    }

    /// The parent pointer; `None` for the root.
    pub fn parent(&self) -> Option<Pointer> {
        match &self.0 {
            Repr::Root => None,
            Repr::At(places, i) => Some(Places::pointer(places, places.step(*i).0)),
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
            Repr::At(places, i) => match places.token(*i) {
                Token::Key(k) => Some(k),
                _ => self.as_str().rsplit('/').next(),
            },
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
            Repr::At(places, i) => places.text(*i),
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
        match (&self.0, &other.0) {
            (Repr::At(a, i), Repr::At(b, j)) if Arc::ptr_eq(a, b) && i == j => true,
            _ => self.as_str() == other.as_str(),
        }
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

    /// A table's places read as the text pointers of the same tokens, whatever the order they
    /// are read in; parents and last tokens too.
    #[test]
    fn places_read_as_their_text() {
        let mut places = Places::with_capacity(4);
        let props = places.push(0, Token::Key("properties"));
        let name = places.push(props, Token::Name("a/b~c".into()));
        let any = places.push(name, Token::Key("anyOf"));
        let item = places.push(any, Token::Index(12));
        let places = Arc::new(places);
        let at = |i| Places::pointer(&places, i);
        assert_eq!(at(item), "/properties/a~1b~0c/anyOf/12");
        assert_eq!(at(name), "/properties/a~1b~0c");
        assert_eq!(at(item).parent(), Some(at(any)));
        assert_eq!(at(any).last_token(), Some("anyOf"));
        assert_eq!(at(name).last_token(), None);
        assert_eq!(at(item).last_token(), Some("12"));
        assert_eq!(at(props).parent(), Some(Pointer::root()));
        let text = Pointer::root()
            .child("properties")
            .child("a/b~c")
            .child("anyOf");
        assert_eq!(at(any), text);
        assert_eq!(text, at(any));
    }

    /// A million-deep chain of places renders without recursion.
    #[test]
    fn a_very_deep_place_renders_in_a_loop() {
        let mut places = Places::with_capacity(1_000_001);
        let mut at = 0;
        for _ in 0..1_000_000 {
            at = places.push(at, Token::Key("items"));
        }
        let places = Arc::new(places);
        let p = Places::pointer(&places, at);
        assert_eq!(p.len(), 6 * 1_000_000);
        assert_eq!(p.parent().unwrap().len(), 6 * 999_999);
        drop(places);
        assert_eq!(p.tokens().len(), 1_000_000);
    }
}
