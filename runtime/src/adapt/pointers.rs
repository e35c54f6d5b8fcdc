//! Report positions a caller can find: every `Loss`/`Change` pointer is made to resolve in the
//! **input** schema, and `at` names the node in the **output**.
//!
//! Rules record a position in the document as it is when they run, after earlier rules rewrote
//! it: `definitions` renamed `$defs`, `oneOf` read as `anyOf`, a type array split into `anyOf`
//! branches, a `$ref` inlined, a single `allOf` or a union's branches merged, a tuple's
//! `prefixItems` sent as `items`. Each of those rewrites is undone here, step by step, when the
//! recorded path cannot be followed in the input as it is: the position a rule names is mapped to
//! where the keyword stands in what the caller passed (for an inlined node: the definition it came
//! from). Where a step cannot be mapped, the nearest ancestor that exists is named.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use serde_json::Value;

use super::pointer::Pointer;
use super::report::{BranchMove, Change, Loss, LossKind};
use crate::keys::Keys;
use crate::walk::{Cursor, escape, escaped, resolve_local, step};

mod places;

/// How many `$ref` jumps one mapping may take (a cycle of references ends here).
const MAX_JUMPS: usize = 32;

fn tokens(pointer: &str) -> Vec<String> {
    if pointer.is_empty() {
        return Vec::new();
    }
    pointer
        .split('/')
        .skip(1)
        .map(|t| unescaped(t).into_owned())
        .collect()
}

fn join<'t>(tokens: impl IntoIterator<Item = &'t String>) -> String {
    let mut out = String::new();
    for t in tokens {
        out.push('/');
        out.push_str(&escaped(t));
    }
    out
}

fn child<'a>(node: &'a Value, token: &str) -> Option<&'a Value> {
    match node {
        Value::Object(m) => m.key(token),
        Value::Array(a) => token.parse::<usize>().ok().and_then(|i| a.get(i)),
        _ => None,
    }
}

/// The combinator steps (`anyOf`, `0`, ...) from `node` to the first branch, at any depth up to
/// four combinators, that has `token`.
fn branch_with(node: &Value, token: &str, depth: usize) -> Option<Vec<String>> {
    if depth > 4 {
        return None;
    }
    for k in ["allOf", "anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = node.get(k) else {
            continue;
        };
        // A branch that stands for null alone was removed, not merged (the nullable forms):
        // the other branches first.
        let mut order: Vec<usize> = (0..branches.len()).collect();
        order.sort_by_key(|i| null_only(&branches[*i]));
        for i in order {
            if child(&branches[i], token).is_some() {
                return Some(vec![k.to_owned(), i.to_string()]);
            }
        }
        for (i, b) in branches.iter().enumerate() {
            if let Some(rest) = branch_with(b, token, depth + 1) {
                let mut steps = vec![k.to_owned(), i.to_string()];
                steps.extend(rest);
                return Some(steps);
            }
        }
    }
    None
}

/// The child under the keyword `token` was renamed from (`oneOf` read as `anyOf`, the draft-07
/// `definitions` upgraded to `$defs`, a tuple's `prefixItems` sent as `items`).
fn renamed_child<'a>(node: &'a Value, token: &str) -> Option<&'a Value> {
    if token == "items" {
        // A tuple sent as one `items` schema: its first position (the rest of the path decides
        // between positions where it matters, in `follow`).
        if let Some(Value::Array(positions)) = node.key("prefixItems") {
            return positions.first();
        }
    }
    let from = match token {
        // A `const` read as a one-value `enum`.
        "enum" => "const",
        "$defs" => "definitions",
        "definitions" => "$defs",
        "anyOf" => "oneOf",
        "oneOf" => "anyOf",
        _ => return None,
    };
    node.as_object()?.get(from)
}

/// A branch that stands for `null` alone, itself or as an `allOf` of one.
fn null_only(branch: &Value) -> bool {
    crate::nullable::is_null_branch(branch)
        || matches!(branch.key("allOf"), Some(Value::Array(all)) if all.len() == 1 && crate::nullable::is_null_branch(&all[0]))
}

/// The node `token` leads to from `node`, as written, renamed, or through the branches of merged
/// unions.
fn step_through<'a>(node: &'a Value, token: &str) -> Option<&'a Value> {
    #[cfg(test)]
    tests::STEPS.with(|s| s.set(s.get() + 1));
    if let Some(c) = child(node, token).or_else(|| renamed_child(node, token)) {
        return Some(c);
    }
    let steps = branch_with(node, token, 0)?;
    let mut n = node;
    for s in &steps {
        n = child(n, s).expect("found by branch_with");
    }
    Some(child(n, token).expect("found by branch_with"))
}

/// How many tokens of a path can be followed from a node (as written or through the branches of
/// merged unions), remembered per node and index into the path for one [`follow`]: each union
/// step there asks how far every branch reaches, and each deeper step asks again from nodes the
/// first asking went through, which made one follow cost the square of its depth (and a report
/// with an entry per level, the cube). Paths of up to [`Reach::SHORT`] tokens (most) are followed
/// again each time, which costs less than a table.
struct Reach {
    known: HashMap<(usize, usize), usize, BuildHasherDefault<IdHasher>>,
    remember: bool,
}

impl Reach {
    const SHORT: usize = 16;

    fn new(path: &[String]) -> Self {
        Reach {
            known: HashMap::default(),
            remember: path.len() > Self::SHORT,
        }
    }

    /// How many tokens of `path` from `from` on can be followed from `node`.
    fn of(&mut self, node: &Value, path: &[String], from: usize) -> usize {
        if !self.remember {
            let mut n = node;
            return path[from.min(path.len())..]
                .iter()
                .take_while(|t| step_through(n, t).map(|next| n = next).is_some())
                .count();
        }
        let mut chain: Vec<(usize, usize)> = Vec::new();
        let mut n = node;
        let mut i = from;
        let mut known = 0;
        while i < path.len() {
            let key = (std::ptr::from_ref(n) as usize, i);
            if let Some(&k) = self.known.get(&key) {
                known = k;
                break;
            }
            chain.push(key);
            match step_through(n, &path[i]) {
                Some(next) => {
                    n = next;
                    i += 1;
                }
                None => {
                    // This node reaches nothing of the rest.
                    chain.pop();
                    self.known.insert(key, 0);
                    break;
                }
            }
        }
        for key in chain.into_iter().rev() {
            known += 1;
            self.known.insert(key, known);
        }
        known
    }
}

/// Follows `wanted` in `doc`, undoing the rewrites the rules make where the path cannot be
/// followed as written. Returns the path found in `doc` and whether all of `wanted` was followed.
fn follow(doc: &Value, wanted: &[String]) -> (Vec<String>, bool) {
    let mut reached = Reach::new(wanted);
    let mut node = doc;
    let mut path: Vec<String> = Vec::new();
    let mut i = 0;
    let mut jumps = 0;
    while i < wanted.len() {
        let t = wanted[i].as_str();
        // A branch index of a union whose branches moved since (a null branch merged away, the
        // structured branch put first): the branch that has what comes next.
        // A list where the path names a keyword, not a position (a draft-07 tuple, `items: [..]`,
        // sent as one `items` schema): the position the path goes on in.
        if let Value::Array(items) = node {
            if t.parse::<usize>().is_err() {
                // `anyOf/k` made from the positions: skip those two tokens and choose by what
                // comes after them.
                let made_union = t == "anyOf"
                    && wanted
                        .get(i + 1)
                        .is_some_and(|k| k.parse::<usize>().is_ok());
                // Its index names the position, other things equal.
                let mut preferred = None;
                if made_union {
                    preferred = wanted[i + 1].parse::<usize>().ok();
                    i += 2;
                    if i == wanted.len() {
                        break;
                    }
                }
                let mut reach = |b: &Value| reached.of(b, wanted, i);
                match (0..items.len())
                    .max_by_key(|k| (reach(&items[*k]), Some(*k) == preferred, usize::MAX - k))
                {
                    Some(k) => {
                        path.push(k.to_string());
                        node = &items[k];
                        continue;
                    }
                    None => break,
                }
            }
        }
        if let (Value::Array(items), true) = (node, i + 1 < wanted.len()) {
            let mut reach = |b: &Value| reached.of(b, wanted, i + 1);
            let given = t.parse::<usize>().ok().filter(|k| *k < items.len());
            // Branches moved by the rules are taken back by the move log (`unmove`) first.
            let best = (0..items.len())
                .max_by_key(|k| (reach(&items[*k]), Some(*k) == given, usize::MAX - k));
            if let Some(k) = best.filter(|k| Some(*k) != given) {
                if given.is_none_or(|g| reach(&items[k]) > reach(&items[g])) {
                    path.push(k.to_string());
                    node = &items[k];
                    i += 1;
                    continue;
                }
            }
        }
        if let Some(next) = child(node, t) {
            path.push(t.to_owned());
            node = next;
            i += 1;
            continue;
        }
        let Value::Object(m) = node else { break };
        if let Some(r) = renamed_key(m, t).filter(|r| m.contains_key(*r)) {
            path.push(r.to_owned());
            node = &m[r];
            i += 1;
            continue;
        }
        if t == "items" {
            if let Some(Value::Array(positions)) = m.key("prefixItems") {
                // Positions with different schemas were sent as `items.anyOf` of them; one
                // shared schema as `items` itself.
                // Two distinct or more: one differs from the first (no count needed).
                let made_union = positions.iter().any(|p| *p != positions[0]);
                // The position that has what comes next (the first, when none does).
                let next = wanted.get(i + 1).map(String::as_str);
                let k = next
                    .filter(|_| !made_union)
                    .and_then(|n| {
                        positions
                            .iter()
                            .position(|p| child(p, n).or_else(|| renamed_child(p, n)).is_some())
                    })
                    .unwrap_or(0);
                if let Some(first) = positions.get(k) {
                    path.extend(["prefixItems".to_owned(), k.to_string()]);
                    node = first;
                    i += 1;
                    // `items.anyOf[k]` made from distinct positions: position k, as near as known.
                    if made_union && wanted.get(i).map(String::as_str) == Some("anyOf") {
                        // Branches may have moved since (a null branch merged away): the
                        // position that has what comes next, else the one at that index.
                        let after = wanted.get(i + 2).map(String::as_str);
                        let index = wanted.get(i + 1).and_then(|k| k.parse::<usize>().ok());
                        let index = index.map(|k| {
                            let fits = |p: &Value| {
                                after.is_none_or(|n| {
                                    child(p, n).or_else(|| renamed_child(p, n)).is_some()
                                })
                            };
                            if positions.get(k).is_some_and(fits) {
                                k
                            } else {
                                positions.iter().position(fits).unwrap_or(k)
                            }
                        });
                        match index {
                            Some(k) if k < positions.len() => {
                                path.pop();
                                path.push(k.to_string());
                                node = &positions[k];
                                i += 2;
                            }
                            // The union of the positions itself: the tuple.
                            _ => {
                                path.pop();
                                node = &m["prefixItems"];
                                i += 1;
                            }
                        }
                    }
                    continue;
                }
            }
        }
        // An inlined reference: continue in its target.
        if let Some(Value::String(r)) = m.key("$ref") {
            if jumps < MAX_JUMPS {
                if let Some(target) = resolve_local(doc, r) {
                    jumps += 1;
                    path = tokens(r.trim_start_matches('#'));
                    node = target;
                    continue;
                }
            }
        }
        // A union the rules made (a type array split, a nullable wrap): the node itself.
        if (t == "anyOf" || t == "oneOf")
            && wanted
                .get(i + 1)
                .is_some_and(|k| k.parse::<usize>().is_ok())
        {
            i += 2;
            continue;
        }
        // A merged branch (`allOf` of one, object unions merged, unions of one inside unions):
        // the branch, at any combinator depth, that has it.
        if let Some(steps) = branch_with(node, t, 0) {
            for s in steps {
                node = child(node, &s).expect("found by branch_with");
                path.push(s);
            }
            continue;
        }
        break;
    }
    (path, i == wanted.len())
}

/// The key the rules renamed `token` from, in the object `m` of a document that does not have
/// `token`: the draft-07 upgrade (`definitions`, `$defs`), `oneOf` read as `anyOf` (and back), a
/// tuple (`items: [..]`) read as `prefixItems`. `follow` and [`through_renames`] read the
/// renames from this one table, so that where the second finds a position the first finds it.
fn renamed_key(m: &serde_json::Map<String, Value>, token: &str) -> Option<&'static str> {
    match token {
        "$defs" => Some("definitions"),
        "definitions" => Some("$defs"),
        "anyOf" => Some("oneOf"),
        "oneOf" => Some("anyOf"),
        "prefixItems" if m.key("items").is_some_and(Value::is_array) => Some("items"),
        _ => None,
    }
}

/// Where the definition `defs/name` was inlined: the first node outside the definitions whose
/// `$ref` names it.
fn inlined_at(input: &Value, defs: &str, name: &str) -> Option<Vec<String>> {
    let wanted = format!("#/{}/{}", escape(defs), escape(name));
    let mut stack: Vec<(&Value, Vec<String>)> = vec![(input, Vec::new())];
    while let Some((v, path)) = stack.pop() {
        match v {
            Value::Object(m) => {
                if m.key("$ref").and_then(Value::as_str) == Some(wanted.as_str())
                    && !matches!(
                        path.first().map(String::as_str),
                        Some("$defs" | "definitions")
                    )
                {
                    return Some(path);
                }
                for (k, sub) in m.iter().rev() {
                    let mut p = path.clone();
                    p.push(k.clone());
                    stack.push((sub, p));
                }
            }
            Value::Array(a) => {
                for (i, sub) in a.iter().enumerate().rev() {
                    let mut p = path.clone();
                    p.push(i.to_string());
                    stack.push((sub, p));
                }
            }
            _ => {}
        }
    }
    None
}

/// The input position of a recorded one.
fn in_input(input: &Value, recorded: &str, cursor: &mut Cursor<'_>) -> String {
    if cursor.get(recorded).is_some() {
        return recorded.to_owned();
    }
    join(&follow(input, &tokens(recorded)).0)
}

type Inlined = HashMap<(String, String), Option<Vec<String>>>;

/// The output position of the node a recorded position names (its parent, for a keyword the
/// output no longer has); `None` when that node is gone.
fn in_output(
    input: &Value,
    output: &Value,
    recorded: &str,
    keyword: Option<&str>,
    inlined: &mut Inlined,
    cursor: &mut Cursor<'_>,
) -> Option<String> {
    let node = match keyword {
        Some(k) => recorded
            .strip_suffix(escaped(k).as_ref())
            .and_then(|r| r.strip_suffix('/'))
            .unwrap_or(recorded),
        None => recorded,
    };
    if cursor.get(node).is_some() {
        return Some(node.to_owned());
    }
    let mut wanted = tokens(recorded);
    if keyword.is_some_and(|k| wanted.last().map(String::as_str) == Some(k)) {
        wanted.pop();
    }
    let (path, complete) = follow(output, &wanted);
    if complete {
        return Some(join(&path));
    }
    // A definition the output no longer has was inlined where the input refers to it.
    if let [defs, name, rest @ ..] = wanted.as_slice() {
        if (defs == "$defs" || defs == "definitions") && child(output, defs).is_none() {
            let mut place = inlined
                .entry((defs.clone(), name.clone()))
                .or_insert_with(|| inlined_at(input, defs, name))
                .clone()?;
            place.extend(rest.iter().cloned());
            let (path, complete) = follow(output, &place);
            return complete.then(|| join(&path));
        }
    }
    None
}

/// Where the `const` an `enum` was made from stands below `node`: the node's own, or the first
/// in its union branches (a union of constants read as one enum).
fn const_source(node: &Value, depth: usize) -> Option<String> {
    if node.key("enum").is_some() || depth > 4 {
        return None;
    }
    if node.key("const").is_some() {
        return Some("/const".to_owned());
    }
    ["anyOf", "oneOf", "allOf"].iter().find_map(|k| {
        node.get(*k)?
            .as_array()?
            .iter()
            .enumerate()
            .find_map(|(i, b)| const_source(b, depth + 1).map(|rest| format!("/{k}/{i}{rest}")))
    })
}

/// Whether `a` and `b` name the same place below a parent, through the renames the rules make
/// (`oneOf` read as `anyOf`, `definitions` as `$defs`): a move logged before a rename matches
/// positions recorded after it. Names in a map of schemas (`properties`, ...: `names`) are
/// compared as they are.
fn same_token(names: bool, a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    if names {
        return false;
    }
    matches!(
        (a, b),
        ("anyOf", "oneOf")
            | ("oneOf", "anyOf")
            | ("$defs", "definitions")
            | ("definitions", "$defs")
    )
}

/// The keywords whose children are names (compared as spelled), not keywords (compared through
/// the rules' renames): as [`same_token`] tells them.
fn names_children(token: &str) -> bool {
    matches!(
        token,
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
    )
}

/// Whether the children of the token `token` are names, given whether `token` itself is one
/// (`token_is_name`): a keyword of a map of schemas has names below it; a name (a property
/// called `properties`) has keywords.
fn names_below(token_is_name: bool, token: &str) -> bool {
    !token_is_name && names_children(token)
}

/// Whether the last token of `tokens` has names below it.
#[cfg(test)]
fn names_after(tokens: &[String]) -> bool {
    tokens.iter().fold(false, |name, t| names_below(name, t))
}

/// A token as [`same_token`] compares it (a name when `names`): a renamed keyword as the one
/// name both spellings share.
fn canonical(names: bool, token: &str) -> &str {
    if names {
        return token;
    }
    match token {
        "oneOf" => "anyOf",
        "definitions" => "$defs",
        other => other,
    }
}

/// Ids of tokens at or above this are [`fixed_id`]s; those numbered by a map are below it.
pub(super) const FIXED_IDS: u32 = 1 << 30;

/// A token's id found without hashing its text, when it has one: a keyword of the vocabulary
/// (one id per word), or an array index as RFC 6901 writes it (digits, no leading zero) below
/// 2^31. Any other token (a property name, which comes from the input) is numbered by a map
/// hashed with SipHash, below [`FIXED_IDS`]. The same text always gets the same id: what kind
/// of id a token gets depends on its text alone.
pub(super) fn fixed_id(token: &str) -> Option<u32> {
    let digits = token.as_bytes();
    if !digits.first().is_some_and(u8::is_ascii_digit) {
        // No keyword starts with a digit.
        let i = super::holds::vocabulary_index(token)?;
        return Some(FIXED_IDS + u32::try_from(i).ok()?);
    }
    if digits.len() > 10 || (digits.len() > 1 && digits[0] == b'0') {
        return None;
    }
    let n = digits.iter().try_fold(0u64, |n, &d| {
        d.is_ascii_digit().then(|| n * 10 + u64::from(d - b'0'))
    })?;
    let n = u32::try_from(n).ok().filter(|&n| n < 1 << 31)?;
    Some((1 << 31) + n)
}

/// Numbers for the prefixes of the positions that are taken through the moves: two prefixes
/// get the same number exactly when their tokens are the same, compared through the renames
/// ([`same_token`]) for `canonical` numbers and as spelled for the others. Whether a position
/// starts with a move's position is then one comparison, however deep both are.
///
/// Made for every report placed, most with no move: its tables are made at the first number.
/// Numbers are `u64`, one per table entry: they run out only after memory does (two prefixes
/// sharing a number would be taken for one another).
#[derive(Default)]
struct Prefixes {
    /// Tokens without a [`fixed_id`] (property names: they come from the input, and hostile
    /// names are ordinary input), hashed with SipHash.
    tokens: Option<HashMap<String, u64>>,
    prefixes: HashMap<(u64, u64, bool), u64, BuildHasherDefault<IdHasher>>,
    /// The buffers of the last [`Moving`] made, kept for the next (every one borrows the
    /// numbering): taking a report's entries through the moves then allocates nothing per
    /// token.
    scratch: Scratch,
}

/// A [`Moving`]'s buffers, their tokens' strings kept for reuse.
#[derive(Default)]
struct Scratch {
    path: Tokens,
    spare: Vec<String>,
    canonical: Vec<u64>,
    spelled: Vec<u64>,
    names: Vec<bool>,
}

/// The number of the empty prefix (the root), in both kinds.
const ROOT_PREFIX: u64 = 0;

impl Prefixes {
    /// Tables with room for the prefixes of `moves` moves (a few new tokens and prefixes each),
    /// made at once rather than grown from empty one doubling at a time.
    fn with_room(moves: usize) -> Self {
        if moves == 0 {
            return Prefixes::default();
        }
        Prefixes {
            tokens: Some(HashMap::with_capacity(moves * 2)),
            prefixes: HashMap::with_capacity_and_hasher(moves * 6, Default::default()),
            scratch: Scratch::default(),
        }
    }

    /// The canonical number of the prefix `parent` followed by `token` (a name when `name`),
    /// when some position numbered has it.
    fn find(&self, parent: u64, name: bool, token: &str) -> Option<u64> {
        let canonical = self::canonical(name, token);
        let t = match fixed_id(canonical) {
            Some(id) => u64::from(id),
            None => *self.tokens.as_ref()?.get(canonical)?,
        };
        self.prefixes.get(&(parent, t, true)).copied()
    }

    fn token(&mut self, token: &str) -> u64 {
        if let Some(id) = fixed_id(token) {
            return u64::from(id);
        }
        let tokens = self.tokens.get_or_insert_with(HashMap::new);
        if let Some(&id) = tokens.get(token) {
            return id;
        }
        // Below the fixed ids: they run out only after memory does.
        let id = tokens.len() as u64;
        assert!(id < u64::from(FIXED_IDS), "fewer tokens than memory");
        tokens.insert(token.to_owned(), id);
        id
    }

    /// The numbers of the prefix `parents` (through the renames, as spelled) followed by
    /// `token`, a name when `name`: the token is looked up once (twice when the renames spell it
    /// otherwise).
    fn both(&mut self, parents: (u64, u64), name: bool, token: &str) -> (u64, u64) {
        let spelled = self.token(token);
        let renamed = self::canonical(name, token);
        let canonical = if renamed == token {
            spelled
        } else {
            self.token(renamed)
        };
        let mut number = |parent: u64, t: u64, kind: bool| {
            let next = self.prefixes.len() as u64 + 1;
            *self.prefixes.entry((parent, t, kind)).or_insert(next)
        };
        (
            number(parents.0, canonical, true),
            number(parents.1, spelled, false),
        )
    }
}

/// What the numbering knows of a numbered link of a [`Pointer`]: the numbers of its position
/// through the renames and as spelled, whether its children are names, and its depth.
#[derive(Clone, Copy)]
struct Link {
    canonical: u64,
    spelled: u64,
    names: bool,
    depth: usize,
}

impl Link {
    const ROOT: Link = Link {
        canonical: ROOT_PREFIX,
        spelled: ROOT_PREFIX,
        names: false,
        depth: 0,
    };
}

/// The links of the moves' positions numbered so far, by [`Pointer::id`] (the moves keep them
/// alive, so no other position takes an id while it is here).
type Known = HashMap<usize, Link, BuildHasherDefault<IdHasher>>;

/// A move's position: the number of its whole self through the renames, whether its children
/// are names, and its depth. Its tokens, and the number of each prefix as spelled, are made only
/// when a position is taken through the move as text ([`Anchor::spelled`]): a move logged per
/// level of a nest would otherwise cost its depth each.
struct Anchor {
    canonical: u64,
    /// Whether its children are names ([`same_token`]'s `names`).
    names: bool,
    /// How many tokens it has.
    depth: usize,
    pointer: Pointer,
    spelled: std::cell::OnceCell<Spelled>,
}

/// An anchor's tokens and the numbers of each prefix as spelled (`numbers[k]`: the first `k`
/// tokens).
struct Spelled {
    tokens: Vec<String>,
    numbers: Vec<u64>,
}

impl Spelled {
    fn of(tokens: Vec<String>, prefixes: &mut Prefixes) -> (Self, Link) {
        let mut numbers = Vec::with_capacity(tokens.len() + 1);
        numbers.push(ROOT_PREFIX);
        let mut link = Link::ROOT;
        for t in &tokens {
            let (c, s) = prefixes.both((link.canonical, link.spelled), link.names, t);
            link = Link {
                canonical: c,
                spelled: s,
                names: names_below(link.names, t),
                depth: link.depth + 1,
            };
            numbers.push(s);
        }
        (Spelled { tokens, numbers }, link)
    }
}

impl Anchor {
    /// The anchor of a position given as text, its tokens made at once.
    #[cfg(test)]
    fn new(text: &str, prefixes: &mut Prefixes) -> Self {
        let (spelled, link) = Spelled::of(tokens(text), prefixes);
        Anchor {
            canonical: link.canonical,
            names: link.names,
            depth: link.depth,
            pointer: Pointer::parse(text),
            spelled: spelled.into(),
        }
    }

    fn len(&self) -> usize {
        self.depth
    }

    /// Its tokens and the numbers of its prefixes as spelled, made on first use.
    fn spelled(&self, prefixes: &mut Prefixes) -> &Spelled {
        self.spelled
            .get_or_init(|| Spelled::of(self.pointer.tokens(), prefixes).0)
    }

    /// The anchor of a position given as links, numbered from its parent's numbers (each link
    /// once, kept in `known`).
    fn of_links(at: &Pointer, prefixes: &mut Prefixes, known: &mut Known) -> Self {
        let link = number_links(at, prefixes, known);
        Anchor {
            canonical: link.canonical,
            names: link.names,
            depth: link.depth,
            pointer: at.clone(),
            spelled: std::cell::OnceCell::new(),
        }
    }
}

/// The numbers of the position `at`, each of its links numbered from its parent's once (kept
/// in `known`); a position given as text is numbered token by token.
fn number_links(at: &Pointer, prefixes: &mut Prefixes, known: &mut Known) -> Link {
    // The links below the nearest numbered one, deepest first: most on the stack.
    let mut near: [Option<&Pointer>; 8] = [None; 8];
    let mut count = 0;
    let mut far: Vec<&Pointer> = Vec::new();
    let mut p = at;
    let mut base = Link::ROOT;
    loop {
        if p.is_root() {
            break;
        }
        if let Some(&k) = known.get(&p.id()) {
            base = k;
            break;
        }
        match p.link() {
            Some((parent, _)) => {
                if count < near.len() {
                    near[count] = Some(p);
                    count += 1;
                } else {
                    far.push(p);
                }
                p = parent;
            }
            None => {
                base = Spelled::of(tokens(p.as_str()), prefixes).1;
                break;
            }
        }
    }
    let pending = near[..count].iter().map(|p| p.expect("filled"));
    for p in far.into_iter().rev().chain(pending.rev()) {
        let token = unescaped(p.link().expect("a link").1);
        let (c, s) = prefixes.both((base.canonical, base.spelled), base.names, &token);
        base = Link {
            canonical: c,
            spelled: s,
            names: names_below(base.names, &token),
            depth: base.depth + 1,
        };
        known.insert(p.id(), base);
    }
    base
}

/// How many leading tokens two positions share: as spelled, and through the renames. Found by
/// going up from both to their nearest common prefix ([`number_links`] numbered every link on
/// the way), which for a branch merged into its node is two links; positions given as text
/// (whose prefixes are not numbered) are compared token by token.
fn shared_prefix(a: &Anchor, b: &Anchor, known: &Known) -> Shared {
    let by_links = |spelled: bool| {
        let info = |p: &Pointer| -> Option<(u64, usize)> {
            if p.is_root() {
                return Some((ROOT_PREFIX, 0));
            }
            let k = known.get(&p.id())?;
            Some((if spelled { k.spelled } else { k.canonical }, k.depth))
        };
        let (mut pa, mut pb) = (&a.pointer, &b.pointer);
        let (mut ia, mut ib) = (info(pa)?, info(pb)?);
        while ia != ib {
            if ia.1 >= ib.1 {
                pa = pa.link()?.0;
                ia = info(pa)?;
            } else {
                pb = pb.link()?.0;
                ib = info(pb)?;
            }
        }
        Some(ia.1)
    };
    if let (Some(spelled), Some(canonical)) = (by_links(true), by_links(false)) {
        return Shared { spelled, canonical };
    }
    let (ta, tb) = (a.pointer.tokens(), b.pointer.tokens());
    let spelled = ta.iter().zip(&tb).take_while(|(x, y)| x == y).count();
    let mut names = false;
    let mut canonical = 0;
    for (x, y) in ta.iter().zip(&tb) {
        if !same_token(names, x, y) {
            break;
        }
        canonical += 1;
        names = names_below(names, x);
    }
    Shared { spelled, canonical }
}

/// How many leading tokens a move's destination and source share.
#[derive(Clone, Copy)]
struct Shared {
    /// As spelled.
    spelled: usize,
    /// Through the renames ([`same_token`]).
    canonical: usize,
}

/// A token as written in a JSON Pointer, unescaped.
fn unescaped(token: &str) -> std::borrow::Cow<'_, str> {
    if token.contains('~') {
        std::borrow::Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        std::borrow::Cow::Borrowed(token)
    }
}

/// A logged [`BranchMove`] with its positions numbered once, from their links ([`Anchor`]; split
/// into tokens only when a position is taken through the move as text): each entry of a report
/// is taken through the moves logged after it (and back through those before), and comparing a
/// position with every move token by token made placing a report of nested moves cubic in their
/// depth.
enum Move<'m> {
    Reordered {
        at: Anchor,
        keyword: &'static str,
        from: &'m [usize],
    },
    Spliced {
        at: Anchor,
        from: &'m [(usize, Option<usize>)],
    },
    Lifted {
        at: Anchor,
        from: Anchor,
        keys: &'m [String],
        /// How many leading tokens `at` and `from` share (a branch merged into its node: all of
        /// `at`, `from` being `at` and two more tokens).
        shared: Shared,
        gone: bool,
    },
    Inlined {
        at: Anchor,
        from: Anchor,
        kept: &'m [String],
        shared: Shared,
    },
    Folded {
        at: Anchor,
        from: Anchor,
        shared: Shared,
    },
    Wrapped {
        at: Anchor,
    },
    Split {
        at: Anchor,
        types: &'m [std::borrow::Cow<'static, str>],
    },
    Tuple {
        at: Anchor,
        to: &'m [usize],
        rest: Option<usize>,
        single: bool,
    },
}

/// The moves, ready to take positions through, and the numbering of their prefixes.
struct Moves<'m> {
    list: Vec<Move<'m>>,
    prefixes: Prefixes,
    anchors: Anchors,
}

/// What the moves' anchors say of one position: its canonical number (when a numbered prefix
/// has it), whether its children are names, the latest move taking positions below one of its
/// strict prefixes forward, and the earliest taking them back.
#[derive(Clone, Copy)]
struct Reached {
    number: Option<u64>,
    names: bool,
    forward_above: Option<usize>,
    back_above: Option<usize>,
}

impl Reached {
    const ROOT: Reached = Reached {
        number: Some(ROOT_PREFIX),
        names: false,
        forward_above: None,
        back_above: None,
    };
}

/// What the moves anchored at one position do (indices into the moves): the latest taking
/// positions below it forward, the same for its own `description` (which a wrap or a split
/// leaves on the node, where a spilled keyword is), the latest taking the position itself
/// forward, and the earliest taking positions below it back.
#[derive(Clone, Copy, Default)]
struct AnchoredHere {
    forward_below: Option<usize>,
    forward_description: Option<usize>,
    forward_at: Option<usize>,
    back_below: Option<usize>,
}

/// Where the moves are anchored, by the canonical number of the anchor, so that a position no
/// move can touch is told without taking it through them: most entries of a report, when moves
/// are many (a type array split at each property). One table, looked up once per position.
#[derive(Default)]
struct Anchors {
    here: HashMap<u64, AnchoredHere, BuildHasherDefault<IdHasher>>,
    /// Whether any move takes its anchor itself forward (else a position's own number is not
    /// needed to tell whether a move touches it).
    any_at: bool,
    /// Per move, the canonical numbers of its forward and back anchors.
    ends: Vec<(Option<u64>, Option<u64>)>,
    /// Per anchor, every move taking positions at or below it forward, and every move taking
    /// positions below it back, in order: made when a position is first taken through the
    /// moves this way (most reports never are).
    lists: std::cell::OnceCell<MoveLists>,
}

type MoveLists = [HashMap<u64, Vec<usize>, BuildHasherDefault<IdHasher>>; 2];

impl Anchors {
    fn note(&mut self, index: usize, m: &Move<'_>) {
        let (forward, at_too, back) = match m {
            Move::Reordered { at, .. }
            | Move::Spliced { at, .. }
            | Move::Tuple { at, .. }
            | Move::Wrapped { at }
            | Move::Split { at, .. } => (Some(at), false, Some(at)),
            Move::Lifted { at, from, gone, .. } => (Some(from), *gone, Some(at)),
            Move::Inlined { at, from, .. } => (Some(from), true, Some(at)),
            Move::Folded { from, .. } => (Some(from), true, None),
        };
        if let Some(a) = forward {
            let here = self.here.entry(a.canonical).or_default();
            here.forward_below = Some(index);
            if !matches!(m, Move::Wrapped { .. } | Move::Split { .. }) {
                here.forward_description = Some(index);
            }
            if at_too {
                here.forward_at = Some(index);
                self.any_at = true;
            }
        }
        if let Some(a) = back {
            let here = self.here.entry(a.canonical).or_default();
            here.back_below.get_or_insert(index);
        }
        self.ends
            .push((forward.map(|a| a.canonical), back.map(|a| a.canonical)));
    }

    fn lists(&self) -> &MoveLists {
        self.lists.get_or_init(|| {
            let mut lists: MoveLists = Default::default();
            for (index, &(forward, back)) in self.ends.iter().enumerate() {
                if let Some(n) = forward {
                    lists[0].entry(n).or_default().push(index);
                }
                if let Some(n) = back {
                    lists[1].entry(n).or_default().push(index);
                }
            }
            lists
        })
    }

    /// The first move from `cursor` on anchored at a prefix of `path` (forward), or the last
    /// before `cursor` (back): the only moves that can change it, found without trying each
    /// move in between (a report with a move per property made that quadratic in the
    /// properties).
    fn next(&self, path: &mut Moving<'_>, cursor: usize, back: bool) -> Option<usize> {
        let lists = &self.lists()[usize::from(back)];
        let len = path.path.len();
        path.numbers(len);
        let mut found: Option<usize> = None;
        for number in &path.canonical[..=len] {
            let Some(list) = lists.get(number) else {
                continue;
            };
            let k = list.partition_point(|&i| i < cursor);
            let candidate = if back {
                k.checked_sub(1).map(|k| list[k])
            } else {
                list.get(k).copied()
            };
            found = match (found, candidate) {
                (Some(f), Some(c)) => Some(if back { f.max(c) } else { f.min(c) }),
                (f, c) => f.or(c),
            };
        }
        found
    }

    /// What the moves' anchors say of the position one `token` below a position `above` says
    /// `reached` of.
    fn step(&self, prefixes: &Prefixes, above: &Reached, token: &str) -> Reached {
        self.step_to(prefixes, above, token, false)
    }

    /// As [`Anchors::step`], for a position nothing below will be asked about (an entry's
    /// own): its number is made only when a move may take a position itself forward.
    fn step_to(&self, prefixes: &Prefixes, above: &Reached, token: &str, leaf: bool) -> Reached {
        let here = above.number.and_then(|n| self.here.get(&n));
        let forward_here = here.and_then(|h| {
            if token == "description" && !above.names {
                h.forward_description
            } else {
                h.forward_below
            }
        });
        let back_here = here.and_then(|h| h.back_below);
        let number = if leaf && !self.any_at {
            None
        } else {
            above
                .number
                .and_then(|n| prefixes.find(n, above.names, token))
        };
        Reached {
            number,
            names: names_below(above.names, token),
            forward_above: above.forward_above.max(forward_here),
            back_above: match (above.back_above, back_here) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }

    /// Whether a move from `epoch` on may take the position `reached` tells of forward.
    fn forward_touches(&self, reached: &Reached, epoch: usize) -> bool {
        reached.forward_above.is_some_and(|i| i >= epoch)
            || reached
                .number
                .and_then(|n| self.here.get(&n)?.forward_at)
                .is_some_and(|i| i >= epoch)
    }

    /// Whether a move before `epoch` may take the position `reached` tells of back.
    fn back_touches(reached: &Reached, epoch: usize) -> bool {
        reached.back_above.is_some_and(|i| i < epoch)
    }

    /// What the anchors say of a position given as text.
    fn reached(&self, prefixes: &Prefixes, text: &str) -> Reached {
        text.split('/')
            .skip(1)
            .fold(Reached::ROOT, |r, t| self.step(prefixes, &r, &unescaped(t)))
    }
}

/// A move's destination and source as anchors, and how many leading tokens they share.
fn destination_and_source(
    at: &Pointer,
    from: &Pointer,
    prefixes: &mut Prefixes,
    known: &mut Known,
) -> (Anchor, Anchor, Shared) {
    let at = Anchor::of_links(at, prefixes, known);
    let from = Anchor::of_links(from, prefixes, known);
    let shared = shared_prefix(&at, &from, known);
    (at, from, shared)
}

fn prepare(moves: &[BranchMove]) -> Moves<'_> {
    let mut prefixes = Prefixes::with_room(moves.len());
    let mut known = HashMap::with_capacity_and_hasher(moves.len(), Default::default());
    let list: Vec<Move<'_>> = moves
        .iter()
        .map(|m| match m {
            BranchMove::Reordered { at, keyword, from } => Move::Reordered {
                at: Anchor::of_links(at, &mut prefixes, &mut known),
                keyword,
                from,
            },
            BranchMove::Spliced { at, from } => Move::Spliced {
                at: Anchor::of_links(at, &mut prefixes, &mut known),
                from,
            },
            BranchMove::Lifted {
                at,
                from,
                keys,
                gone,
            } => {
                let (at, from, shared) =
                    destination_and_source(at, from, &mut prefixes, &mut known);
                Move::Lifted {
                    at,
                    from,
                    keys,
                    shared,
                    gone: *gone,
                }
            }
            BranchMove::Split { at, types } => Move::Split {
                at: Anchor::of_links(at, &mut prefixes, &mut known),
                types,
            },
            BranchMove::Wrapped { at } => Move::Wrapped {
                at: Anchor::of_links(at, &mut prefixes, &mut known),
            },
            BranchMove::Folded { at, from } => {
                let (at, from, shared) =
                    destination_and_source(at, from, &mut prefixes, &mut known);
                Move::Folded { at, from, shared }
            }
            BranchMove::Tuple {
                at,
                to,
                rest,
                single,
            } => Move::Tuple {
                at: Anchor::of_links(at, &mut prefixes, &mut known),
                to,
                rest: *rest,
                single: *single,
            },
            BranchMove::Inlined { at, from, kept } => {
                let (at, from, shared) =
                    destination_and_source(at, from, &mut prefixes, &mut known);
                Move::Inlined {
                    at,
                    from,
                    kept,
                    shared,
                }
            }
        })
        .collect();
    let mut anchors = Anchors {
        here: HashMap::with_capacity_and_hasher(list.len(), Default::default()),
        ends: Vec::with_capacity(list.len()),
        ..Anchors::default()
    };
    for (i, m) in list.iter().enumerate() {
        anchors.note(i, m);
    }
    Moves {
        list,
        prefixes,
        anchors,
    }
}

/// A path's tokens, with a gap where tokens are put in and taken out: tokens
/// `0..front.len()` are `front`, the rest are `back`, last first. A position taken through a
/// move per level has tokens put in at a rising (or falling) index; shifting every token after
/// that index each time made it cubic in the depth, moving the gap costs the distance from the
/// last change.
#[derive(Default)]
struct Tokens {
    front: Vec<String>,
    back: Vec<String>,
}

impl Tokens {
    fn len(&self) -> usize {
        self.front.len() + self.back.len()
    }

    /// Moves the gap before the token at `index` (at most the length).
    fn gap_to(&mut self, index: usize) {
        while self.front.len() > index {
            let t = self.front.pop().expect("tokens before the gap");
            self.back.push(t);
        }
        while self.front.len() < index {
            let t = self.back.pop().expect("an index within the path");
            self.front.push(t);
        }
    }

    /// Replaces the tokens `range` with `tokens`.
    fn splice(&mut self, range: std::ops::Range<usize>, tokens: impl IntoIterator<Item = String>) {
        self.gap_to(range.end);
        self.front.truncate(range.start);
        self.front.extend(tokens);
    }

    /// Every token taken out, its string kept in `spare`.
    fn empty_into(&mut self, spare: &mut Vec<String>) {
        spare.append(&mut self.front);
        spare.append(&mut self.back);
    }
}

impl std::ops::Index<usize> for Tokens {
    type Output = String;

    fn index(&self, index: usize) -> &String {
        match index.checked_sub(self.front.len()) {
            None => &self.front[index],
            Some(k) => &self.back[self.back.len() - 1 - k],
        }
    }
}

impl std::ops::IndexMut<usize> for Tokens {
    fn index_mut(&mut self, index: usize) -> &mut String {
        match index.checked_sub(self.front.len()) {
            None => &mut self.front[index],
            Some(k) => {
                let last = self.back.len() - 1;
                &mut self.back[last - k]
            }
        }
    }
}

impl<'t> IntoIterator for &'t Tokens {
    type Item = &'t String;
    type IntoIter = std::iter::Chain<
        std::slice::Iter<'t, String>,
        std::iter::Rev<std::slice::Iter<'t, String>>,
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.front.iter().chain(self.back.iter().rev())
    }
}

/// A position being taken through moves: its tokens, and the numbers of its prefixes, made as
/// far as asked and again from where a move changed the tokens.
struct Moving<'p> {
    path: Tokens,
    canonical: Vec<u64>,
    spelled: Vec<u64>,
    /// Per prefix, whether the token after it is a name.
    names: Vec<bool>,
    /// The numbers are those of `path` for the prefixes of up to this many tokens.
    made: usize,
    prefixes: &'p mut Prefixes,
}

impl<'p> Moving<'p> {
    fn new(recorded: &str, prefixes: &'p mut Prefixes) -> Self {
        let Scratch {
            mut path,
            mut spare,
            mut canonical,
            mut spelled,
            mut names,
        } = std::mem::take(&mut prefixes.scratch);
        path.empty_into(&mut spare);
        if !recorded.is_empty() {
            for t in recorded.split('/').skip(1) {
                let mut token = spare.pop().unwrap_or_default();
                token.clear();
                token.push_str(&unescaped(t));
                path.front.push(token);
            }
        }
        canonical.clear();
        canonical.push(ROOT_PREFIX);
        spelled.clear();
        spelled.push(ROOT_PREFIX);
        names.clear();
        names.push(false);
        prefixes.scratch.spare = spare;
        Moving {
            path,
            canonical,
            spelled,
            names,
            made: 0,
            prefixes,
        }
    }

    /// The numbers of the prefix of `len` tokens (`len` at most the path's length).
    fn numbers(&mut self, len: usize) -> (u64, u64) {
        self.canonical.truncate(self.made + 1);
        self.spelled.truncate(self.made + 1);
        self.names.truncate(self.made + 1);
        while self.made < len {
            let i = self.made;
            let name = self.names[i];
            let (c, s) =
                self.prefixes
                    .both((self.canonical[i], self.spelled[i]), name, &self.path[i]);
            self.canonical.push(c);
            self.spelled.push(s);
            self.names.push(names_below(name, &self.path[i]));
            self.made += 1;
        }
        (self.canonical[len], self.spelled[len])
    }

    /// Whether the path starts with `anchor`, through the rules' renames.
    fn starts_with(&mut self, anchor: &Anchor) -> bool {
        self.path.len() >= anchor.len() && self.numbers(anchor.len()).0 == anchor.canonical
    }

    /// The tokens from `index` on changed: their numbers are made again when asked.
    fn changed_from(&mut self, index: usize) {
        self.made = self.made.min(index);
    }

    /// The index of the token that names a branch of the union `at/keyword`, when the path goes
    /// through that union.
    fn branch_token(&mut self, at: &Anchor, keyword: &str) -> Option<usize> {
        (self.path.len() > at.len() + 1
            && self.starts_with(at)
            && same_token(at.names, &self.path[at.len()], keyword))
        .then_some(at.len() + 1)
    }

    /// The path moved from below `from` to below `to`, when it goes through one of the moved
    /// `keys`; the two share their first `shared` tokens.
    fn relocate(&mut self, from: &Anchor, to: &Anchor, keys: &[String], shared: usize) {
        let moved = |path: &Tokens| {
            keys.iter()
                .any(|k| same_token(from.names, &path[from.len()], k))
        };
        self.relocate_when(from, to, shared, false, moved);
    }

    /// The path moved from below `from` (or from `from` itself, when `whole`) to `to`, when
    /// `moved` says so of a path that goes below `from`.
    fn relocate_when(
        &mut self,
        from: &Anchor,
        to: &Anchor,
        shared: usize,
        whole: bool,
        moved: impl Fn(&Tokens) -> bool,
    ) {
        let below = self.path.len() > from.len();
        if (below || (whole && self.path.len() == from.len()))
            && self.starts_with(from)
            && (!below || moved(&self.path))
        {
            // In place: the prefix both share is spelled as `to` spells it, and only the tokens
            // after it change.
            let to = to.spelled(self.prefixes);
            if self.numbers(shared).1 != to.numbers[shared] {
                for (i, spelled) in to.tokens[..shared].iter().enumerate() {
                    if self.path[i] != *spelled {
                        self.path[i].clone_from(spelled);
                    }
                }
                self.changed_from(0);
            }
            self.path
                .splice(shared..from.len(), to.tokens[shared..].iter().cloned());
            self.changed_from(shared);
        }
    }

    /// The token at `index` read as a branch index.
    fn branch_index(&self, index: usize) -> Option<usize> {
        self.path[index].parse().ok()
    }

    /// Inserts `tokens` before the token at `index`.
    fn insert(&mut self, index: usize, tokens: impl IntoIterator<Item = String>) {
        self.path.splice(index..index, tokens);
        self.changed_from(index);
    }

    /// Whether the last token is the keyword `description` (not a property of that name).
    fn ends_in_description(&mut self) -> bool {
        let last = self.path.len() - 1;
        self.numbers(last);
        self.path[last] == "description" && !self.names[last]
    }

    /// Replaces every token with `tokens`.
    fn replace_all(&mut self, tokens: &[String]) {
        self.path.splice(0..self.path.len(), tokens.iter().cloned());
        self.changed_from(0);
    }

    /// Replaces the tokens `start..end` with `tokens`.
    fn replace<const N: usize>(&mut self, start: usize, end: usize, tokens: [&str; N]) {
        self.path
            .splice(start..end, tokens.into_iter().map(str::to_owned));
        self.changed_from(start);
    }

    /// The index of the token after `at`, when the path goes below `at` through `keyword`.
    fn keyword_after(&mut self, at: &Anchor, keyword: &str) -> Option<usize> {
        (self.path.len() > at.len()
            && self.starts_with(at)
            && same_token(at.names, &self.path[at.len()], keyword))
        .then_some(at.len())
    }

    /// Removes the tokens `start..end`.
    fn remove(&mut self, start: usize, end: usize) {
        self.path.splice(start..end, []);
        self.changed_from(start);
    }

    /// Sets the token at `index`.
    fn set(&mut self, index: usize, token: String) {
        self.path[index] = token;
        self.changed_from(index);
    }
}

impl Drop for Moving<'_> {
    /// Its buffers go back to the numbering, for the next position taken through the moves.
    fn drop(&mut self) {
        let scratch = &mut self.prefixes.scratch;
        scratch.path = std::mem::take(&mut self.path);
        scratch.canonical = std::mem::take(&mut self.canonical);
        scratch.spelled = std::mem::take(&mut self.spelled);
        scratch.names = std::mem::take(&mut self.names);
    }
}

/// A position recorded after schemas moved (union branches removed or reordered, a branch merged
/// into its node), back through each move (the latest first): the position in the coordinates
/// of the rules' input.
fn unmove(
    recorded: &str,
    moves: &[Move<'_>],
    until: usize,
    anchors: &Anchors,
    prefixes: &mut Prefixes,
) -> String {
    if until == 0 {
        return recorded.to_owned();
    }
    let mut path = Moving::new(recorded, prefixes);
    let mut cursor = until;
    // Few moves for a long path (a deep nest): each tried in turn, which costs less than
    // asking every prefix at each move (cubic in the depth).
    let each = until <= 4 * path.path.len() + 16;
    while let Some(i) = if each {
        cursor.checked_sub(1)
    } else {
        anchors.next(&mut path, cursor, true)
    } {
        cursor = i;
        match &moves[i] {
            Move::Reordered { at, keyword, from } => {
                if let Some(i) = path.branch_token(at, keyword) {
                    if let Some(before) = path.branch_index(i).and_then(|k| from.get(k)) {
                        path.set(i, before.to_string());
                    }
                }
            }
            Move::Spliced { at, from } => {
                if let Some(i) = path.branch_token(at, "anyOf") {
                    if let Some(&(before, inner)) = path.branch_index(i).and_then(|k| from.get(k)) {
                        path.set(i, before.to_string());
                        if let Some(inner) = inner {
                            path.insert(i + 1, ["anyOf".to_owned(), inner.to_string()]);
                        }
                    }
                }
            }
            Move::Lifted {
                at,
                from,
                keys,
                shared,
                ..
            } => path.relocate(at, from, keys, shared.spelled),
            // Below the node where a definition was inlined: from the definition, unless under
            // a keyword the node had itself.
            Move::Inlined {
                at,
                from,
                kept,
                shared,
            } => path.relocate_when(at, from, shared.spelled, false, |p| {
                !kept.iter().any(|k| same_token(at.names, &p[at.len()], k))
            }),
            // Nothing after it came from a removed schema.
            Move::Folded { .. } => {}
            // A branch of the split: the node.
            Move::Split { at, .. } => {
                if let Some(n) = path.keyword_after(at, "anyOf") {
                    if path.path.len() > n + 1 && path.branch_index(n + 1).is_some() {
                        path.remove(n, n + 2);
                    }
                }
            }
            // The wrapped node's first branch: the node; the null branch made with it: the node.
            Move::Wrapped { at } => {
                if let Some(n) = path.keyword_after(at, "anyOf") {
                    if path.path.len() > n + 1 {
                        match path.path[n + 1].as_str() {
                            "0" => path.remove(n, n + 2),
                            "1" => path.remove(n, path.path.len()),
                            _ => {}
                        }
                    }
                }
            }
            // What was sent as `items`: the tuple node; the union of the positions: the tuple's
            // `prefixItems`; a branch: the first position it was; the one schema its positions
            // shared: the first position.
            Move::Tuple {
                at,
                to,
                rest,
                single,
            } => {
                if let Some(n) = path.keyword_after(at, "items") {
                    if *single {
                        if !to.is_empty() {
                            path.replace(n, n + 1, ["prefixItems", "0"]);
                        }
                    } else if path.path.len() == n + 1 {
                        path.remove(n, n + 1);
                    } else if path.path.len() == n + 2
                        && !to.is_empty()
                        && same_token(false, &path.path[n + 1], "anyOf")
                    {
                        path.replace(n, n + 2, ["prefixItems"]);
                    } else if path.path.len() > n + 2
                        && same_token(false, &path.path[n + 1], "anyOf")
                    {
                        if let Some(j) = path.branch_index(n + 2) {
                            if let Some(k) = to.iter().position(|t| *t == j) {
                                path.replace(n, n + 3, ["prefixItems", &k.to_string()]);
                            } else if *rest == Some(j) {
                                path.remove(n + 1, n + 3);
                            }
                        }
                    }
                }
            }
        }
    }
    join(&path.path)
}

/// A position recorded before schemas moved, through each later move (the earliest first): the
/// position in the coordinates of the output; `None` when it was in a branch that was removed.
fn forward(
    recorded: &str,
    moves: &[Move<'_>],
    from: usize,
    anchors: &Anchors,
    prefixes: &mut Prefixes,
) -> Option<String> {
    if from >= moves.len() {
        return Some(recorded.to_owned());
    }
    let mut path = Moving::new(recorded, prefixes);
    let mut cursor = from;
    // As in `unmove`: few moves for a long path are each tried in turn.
    let each = moves.len() - from <= 4 * path.path.len() + 16;
    while let Some(i) = if each {
        (cursor < moves.len()).then_some(cursor)
    } else {
        anchors.next(&mut path, cursor, false)
    } {
        cursor = i + 1;
        match &moves[i] {
            Move::Reordered { at, keyword, from } => {
                if let Some(i) = path.branch_token(at, keyword) {
                    if let Some(k) = path.branch_index(i) {
                        let now = from.iter().position(|f| *f == k)?;
                        path.set(i, now.to_string());
                    }
                }
            }
            Move::Spliced { at, from } => {
                if let Some(i) = path.branch_token(at, "anyOf") {
                    if let Some(k) = path.branch_index(i) {
                        // A branch of a spliced union: its place among the spliced branches.
                        let inner = (path.path.len() > i + 2
                            && same_token(false, &path.path[i + 1], "anyOf"))
                        .then(|| path.branch_index(i + 2))
                        .flatten();
                        if let Some(now) =
                            inner.and_then(|n| from.iter().position(|f| *f == (k, Some(n))))
                        {
                            path.set(i, now.to_string());
                            path.remove(i + 1, i + 3);
                        } else if let Some(now) = from.iter().position(|f| *f == (k, None)) {
                            // A branch kept as it was.
                            path.set(i, now.to_string());
                        } else if path.path.len() == i + 1 && from.iter().any(|f| f.0 == k) {
                            // A spliced union itself: its branches are the node's now.
                            path.remove(at.len(), i + 1);
                        } else {
                            return None;
                        }
                    }
                }
            }
            // A branch removed with its merge: all of it is at the node now.
            Move::Lifted {
                at,
                from,
                shared,
                gone: true,
                ..
            } => path.relocate_when(from, at, shared.spelled, true, |_| true),
            Move::Lifted {
                at,
                from,
                keys,
                shared,
                ..
            } => path.relocate(from, at, keys, shared.spelled),
            // The definition and all of it now stands where it was first used.
            Move::Inlined {
                at, from, shared, ..
            } => path.relocate_when(from, at, shared.spelled, true, |_| true),
            // A keyword of the split node: in the first branch whose type keeps it (gone when
            // none does); its description and type stay on the union.
            Move::Split { at, types } => {
                if path.path.len() > at.len() && path.starts_with(at) {
                    let key = path.path[at.len()].as_str();
                    if key != "description" && key != "type" {
                        let j = types
                            .iter()
                            .position(|t| !super::rules::types::of_another_type(t, key))?;
                        path.insert(at.len(), ["anyOf".to_owned(), j.to_string()]);
                    }
                }
            }
            // Below the wrapped node, but its description: in the first branch.
            Move::Wrapped { at } => {
                if path.path.len() > at.len()
                    && path.starts_with(at)
                    && !same_token(at.names, &path.path[at.len()], "description")
                {
                    path.insert(at.len(), ["anyOf".to_owned(), "0".to_owned()]);
                }
            }
            // Anything in the removed schema: the node whose description holds its words.
            Move::Folded { at, from, .. } => {
                if path.starts_with(from) {
                    // A description there: the node's (a spilled keyword's place).
                    let description = path.path.len() > from.len() && path.ends_in_description();
                    let tokens = &at.spelled(path.prefixes).tokens;
                    path.replace_all(tokens);
                    if description {
                        path.insert(at.len(), ["description".to_owned()]);
                    }
                }
            }
            // A position: its branch of the union at `items` (or `items` itself); the tuple:
            // that union; the schema past the positions: its branch.
            Move::Tuple {
                at,
                to,
                rest,
                single,
            } => {
                if let Some(n) = path.keyword_after(at, "prefixItems") {
                    if path.path.len() == n + 1 {
                        path.replace(n, n + 1, ["items"]);
                    } else if let Some(&j) = path.branch_index(n + 1).and_then(|k| to.get(k)) {
                        if *single {
                            path.replace(n, n + 2, ["items"]);
                        } else {
                            path.replace(n, n + 2, ["items", "anyOf", &j.to_string()]);
                        }
                    }
                } else if let Some(n) = path.keyword_after(at, "items") {
                    if let (Some(j), false) = (rest, single) {
                        path.insert(n + 1, ["anyOf".to_owned(), j.to_string()]);
                    }
                }
            }
        }
    }
    Some(join(&path.path))
}

/// A value for each position asked about, made from its parent's value once (or, for a position
/// given as text, from its text): answering for every position of a report is linear in its
/// entries, however deep they are. Positions are told apart by identity, so every position
/// answered is kept alive here while the answers are.
struct PerPosition<T> {
    memo: HashMap<usize, T, BuildHasherDefault<IdHasher>>,
    kept: Vec<Pointer>,
    /// How many answers to make room for at the first.
    room: usize,
    /// The parent of the last position [`resolve`] stepped down to, and its answer (kept, so
    /// that its id names no other position): a report's entries are mostly siblings (the
    /// properties of one object), each then one step from it.
    parent: Option<(Pointer, T)>,
}

/// Hashes a position's id (the address of its shared node) with one folded multiply: SipHash's
/// defence against chosen keys buys nothing for addresses this process allocated, and it was
/// most of the cost of placing a report's entries.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        // Not used for ids (they hash with `write_usize`) nor for numbers (`write_u64`); mixes
        // the bytes of any other key in eight at a time. Never for keys the input chooses.
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.write_u64(u64::from_le_bytes(chunk.try_into().expect("eight bytes")));
        }
        let mut last = [0u8; 8];
        let rest = chunks.remainder();
        last[..rest.len()].copy_from_slice(rest);
        self.write_u64(u64::from_le_bytes(last) ^ ((rest.len() as u64) << 56));
    }

    fn write_u8(&mut self, byte: u8) {
        self.write_u64(u64::from(byte));
    }

    fn write_u64(&mut self, word: u64) {
        let product = u128::from(self.0 ^ word) * 0x9E37_79B9_7F4A_7C15;
        self.0 = (product as u64) ^ ((product >> 64) as u64);
    }

    fn write_usize(&mut self, id: usize) {
        self.write_u64(id as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl<T: Clone> PerPosition<T> {
    fn new() -> Self {
        Self::with_capacity(1)
    }

    /// Room for `positions` answers, made when the first is (a report's entries each name a
    /// few positions; entries at the root name none): the table is not grown from empty one
    /// doubling at a time.
    fn with_capacity(positions: usize) -> Self {
        PerPosition {
            memo: HashMap::default(),
            kept: Vec::new(),
            room: positions,
            parent: None,
        }
    }

    fn keep(&mut self, at: &Pointer, value: T) {
        if self.kept.capacity() == 0 {
            self.memo.reserve(self.room);
            self.kept.reserve(self.room);
        }
        self.memo.insert(at.id(), value);
        self.kept.push(at.clone());
    }

    /// The value at `pointer`: `root` at the root, `from_parent(parent's value, position)` below
    /// a link, `from_text(text)` for a position given as text.
    fn get(
        &mut self,
        pointer: &Pointer,
        root: T,
        mut from_parent: impl FnMut(&T, &Pointer) -> T,
        from_text: impl FnOnce(&str) -> T,
    ) -> T {
        // The positions below the nearest known one, deepest first: the first few on the stack
        // (most positions are a few links below one already known), the rest on the heap.
        const NEAR: usize = 12;
        let mut near: [Option<&Pointer>; NEAR] = [None; NEAR];
        let mut count = 0;
        let mut far: Vec<&Pointer> = Vec::new();
        let mut at = pointer;
        let mut value = loop {
            if at.is_root() {
                break root;
            }
            if let Some(known) = self.memo.get(&at.id()) {
                break known.clone();
            }
            match at.link() {
                Some((parent, _)) => {
                    if count < NEAR {
                        near[count] = Some(at);
                        count += 1;
                    } else {
                        far.push(at);
                    }
                    at = parent;
                }
                None => {
                    let value = from_text(at.as_str());
                    self.keep(at, value.clone());
                    break value;
                }
            }
        };
        let pending = near[..count].iter().map(|p| p.expect("filled"));
        for p in far.into_iter().rev().chain(pending.rev()) {
            value = from_parent(&value, p);
            self.keep(p, value.clone());
        }
        value
    }
}

/// The node `pointer` names in `doc`, each position looked up from its parent's node once.
fn resolve<'a>(
    found: &mut PerPosition<Option<&'a Value>>,
    doc: &'a Value,
    pointer: &Pointer,
) -> Option<&'a Value> {
    let link = pointer.link();
    if let (Some((parent, token)), Some((known, node))) = (link, &found.parent) {
        if known.id() == parent.id() {
            return node.and_then(|n| step(n, token));
        }
    }
    // Most positions are a few links below the root: stepped down to directly, which costs a
    // bounded number of look-ups and no table.
    if let Some((node, parent_node)) = resolve_near(doc, pointer) {
        if let Some((parent, _)) = link {
            found.parent = Some((parent.clone(), parent_node));
        }
        return node;
    }
    found.get(
        pointer,
        Some(doc),
        |parent, p| parent.and_then(|n| step(n, p.last_escaped().expect("not the root"))),
        |text| text.split('/').skip(1).try_fold(doc, step),
    )
}

/// A position that `doc` has once the rules' renames are taken back (`anyOf` recorded where
/// `doc` has `oneOf`, `$defs` for `definitions`, `prefixItems` for a tuple's `items`): the
/// position as `doc` spells it, each link worked out from its parent's once. `None` where a
/// token is missing either way (`follow` then guesses). Where this finds the position, `follow`
/// finds the same: each token is the child as recorded, or else the renamed one.
fn through_renames<'a>(
    found: &mut PerPosition<Option<(&'a Value, Pointer)>>,
    doc: &'a Value,
    pointer: &Pointer,
) -> Option<Pointer> {
    let down = |(node, at): &(&'a Value, Pointer), token: &str| -> Option<(&'a Value, Pointer)> {
        if let Some(c) = child(node, token) {
            return Some((c, at.child(token)));
        }
        let m = node.as_object()?;
        let renamed = renamed_key(m, token)?;
        m.get(renamed).map(|c| (c, at.child(renamed)))
    };
    found
        .get(
            pointer,
            Some((doc, Pointer::root())),
            |parent, p| {
                let token = unescaped(p.last_escaped().expect("not the root"));
                parent.as_ref().and_then(|parent| down(parent, &token))
            },
            |text| {
                text.split('/')
                    .skip(1)
                    .try_fold((doc, Pointer::root()), |at, t| down(&at, &unescaped(t)))
            },
        )
        .map(|(_, at)| at)
}

/// The positions [`resolve_near`] steps down to directly: at most this many links deep.
const NEAR: usize = 6;

/// The node `pointer` names in `doc` (`Some(None)`: none) and its parent's, found by stepping
/// down from the root when the pointer is a chain of at most [`NEAR`] links; `None` for any
/// other pointer.
#[allow(clippy::type_complexity)]
fn resolve_near<'a>(
    doc: &'a Value,
    pointer: &Pointer,
) -> Option<(Option<&'a Value>, Option<&'a Value>)> {
    let mut tokens: [&str; NEAR] = [""; NEAR];
    let mut count = 0;
    let mut at = pointer;
    while !at.is_root() {
        let (parent, token) = at.link()?;
        if count == NEAR {
            return None;
        }
        tokens[count] = token;
        count += 1;
        at = parent;
    }
    let mut parent = None;
    let mut node = Some(doc);
    for token in tokens[..count].iter().rev() {
        parent = node;
        node = node.and_then(|n| step(n, token));
    }
    Some((node, parent))
}

/// The node a loss or change names in the output: the recorded position, or its parent when it
/// ends in the keyword itself.
fn node_of(recorded: &Pointer, keyword: Option<&str>) -> Pointer {
    match (keyword, recorded.last_escaped()) {
        (Some(k), Some(last)) if escaped(k) == last => recorded.parent().expect("not the root"),
        _ => recorded.clone(),
    }
}

/// Positions deeper than [`NEAR`] the quick placing ([`all_where_recorded`]) steps down to,
/// each from the root: a few deep entries (a loss at the bottom of a deep nesting) are found
/// that way, in time linear in the depth; past these the general placing, whose tables keep a
/// report of many deep entries linear (an entry at every level), takes over, having spent at
/// most this many walks from the root.
const DEEP_WALKS: usize = 8;

/// Whether, with no branch move logged, every entry names a node the input has where it was
/// recorded and one the output has there (a loss's node, without the keyword it names): then
/// each is placed where it was recorded. Answered by stepping down from the root (siblings from
/// their shared parent), for at most [`DEEP_WALKS`] positions deeper than [`NEAR`]; `false` for
/// any other position (given as text), which the general placing handles.
fn all_where_recorded(input: &Value, output: &Value, losses: &[Loss], changes: &[Change]) -> bool {
    let mut budget = DEEP_WALKS;
    let mut found = |doc, parent: &mut _, p: &Pointer| {
        near_with_parent(doc, parent, p, &mut budget).is_some_and(|node| node.is_some())
    };
    let (mut in_parent, mut out_parent) = (None, None);
    losses.iter().all(|l| {
        let node = node_of(&l.pointer, Some(&l.keyword));
        found(input, &mut in_parent, &l.pointer) && found(output, &mut out_parent, &node)
    }) && changes.iter().all(|c| {
        found(input, &mut in_parent, &c.pointer) && found(output, &mut out_parent, &c.pointer)
    })
}

/// The parent of the last position [`near_with_parent`] found: its identity, its node, and,
/// in a map of many entries, where in its entries the last child found stands.
struct NearParent<'a> {
    id: usize,
    node: Option<&'a Value>,
    /// The entries after the last child found (from the first entry, before any is), when known.
    after: Option<serde_json::map::Iter<'a>>,
}

/// Entries of a map the quick placing looks at past the last child found before it hashes the
/// key: a report's entries for a wide map's children mostly come in the map's order, so each is
/// found next, reading the entries in order instead of a table slot at random (at 20,000
/// properties those look-ups missed the cache: a fifth of gemini's time).
const PEEK: usize = 2;

/// Maps of more entries than this are looked through in order ([`child_in_order`]); smaller ones
/// are scanned by [`Keys`] anyway.
const WIDE: usize = 8;

/// `token`'s child of the map in `parent`: looked for just past the last child found, then at the
/// first entry (a rule's next run over the children), then by its hash.
fn child_in_order<'a>(parent: &mut NearParent<'a>, token: &str) -> Option<Option<&'a Value>> {
    let Some(Value::Object(map)) = parent.node else {
        return None;
    };
    if map.len() <= WIDE || token.contains('~') {
        return None;
    }
    if let Some(after) = &parent.after {
        let mut ahead = after.clone();
        for _ in 0..PEEK {
            match ahead.next() {
                Some((k, v)) if k == token => {
                    parent.after = Some(ahead);
                    return Some(Some(v));
                }
                Some(_) => {}
                None => break,
            }
        }
    }
    let mut from_first = map.iter();
    if let Some((k, v)) = from_first.next() {
        if k == token {
            parent.after = Some(from_first);
            return Some(Some(v));
        }
    }
    None
}

/// [`resolve_near`] that steps once from the node of the last position's parent when this one
/// shares it (in a map of many entries, looking just past the last child found first). The
/// identities stay valid while the pointers asked about are alive.
fn near_with_parent<'a>(
    doc: &'a Value,
    parent: &mut Option<NearParent<'a>>,
    pointer: &Pointer,
    budget: &mut usize,
) -> Option<Option<&'a Value>> {
    let link = pointer.link();
    if let (Some((above, token)), Some(known)) = (link, parent.as_mut()) {
        if above.id() == known.id {
            return Some(match child_in_order(known, token) {
                Some(found) => found,
                None => known.node.and_then(|n| step(n, token)),
            });
        }
    }
    let (node, parent_node) = match resolve_near(doc, pointer) {
        Some(found) => found,
        None => resolve_deep(doc, pointer, budget)?,
    };
    if let Some((above, token)) = link {
        // In a wide map, the siblings after this child are looked for from the first entry on
        // (this child is most often that entry).
        let after = match parent_node {
            Some(Value::Object(map)) if map.len() > WIDE && !token.contains('~') => {
                Some(map.iter())
            }
            _ => None,
        };
        *parent = Some(NearParent {
            id: above.id(),
            node: parent_node,
            after,
        });
    }
    Some(node)
}

/// [`resolve_near`] for a chain of links of any length, one of the `budget` walks left: `None`
/// for a position given as text, or when no walk is left.
#[allow(clippy::type_complexity)]
fn resolve_deep<'a>(
    doc: &'a Value,
    pointer: &Pointer,
    budget: &mut usize,
) -> Option<(Option<&'a Value>, Option<&'a Value>)> {
    *budget = budget.checked_sub(1)?;
    let mut tokens: Vec<&str> = Vec::new();
    let mut at = pointer;
    while !at.is_root() {
        let (parent, token) = at.link()?;
        tokens.push(token);
        at = parent;
    }
    let mut parent = None;
    let mut node = Some(doc);
    for token in tokens.iter().rev() {
        parent = node;
        node = node.and_then(|n| step(n, token));
    }
    Some((node, parent))
}

/// Maps every pointer of a report to the input, and sets each `at` in the output.
///
/// A position no branch move touches and that the input (or output) has as recorded is kept as
/// it is, found through its parent's lookup (no text is made); any other is rendered and taken
/// through the moves and rewrites.
pub(crate) fn locate(
    input: &Value,
    output: &Value,
    losses: &mut [Loss],
    changes: &mut [Change],
    moves: &[BranchMove],
) {
    if losses.is_empty() && changes.is_empty() {
        return;
    }
    if moves.is_empty() && all_where_recorded(input, output, losses, changes) {
        #[cfg(test)]
        let (mut general_losses, mut general_changes) = (losses.to_vec(), changes.to_vec());
        // What the general placing finds for these entries, without its tables.
        for loss in &mut *losses {
            loss.at = Some(node_of(&loss.pointer, Some(&loss.keyword)));
        }
        for change in &mut *changes {
            change.at = Some(change.pointer.clone());
        }
        name_sources(input, losses);
        went_with_dropped(losses);
        #[cfg(test)]
        {
            locate_through_moves(
                input,
                output,
                &mut general_losses,
                &mut general_changes,
                moves,
            );
            assert_eq!(general_losses, losses, "losses placed without the tables");
            assert_eq!(
                general_changes, changes,
                "changes placed without the tables"
            );
        }
        return;
    }
    locate_through_moves(input, output, losses, changes, moves);
}

/// [`locate`] for any report: each position taken through the branch moves logged after and
/// before it, and found in the output and the input.
fn locate_through_moves(
    input: &Value,
    output: &Value,
    losses: &mut [Loss],
    changes: &mut [Change],
    moves: &[BranchMove],
) {
    let mut inlined = Inlined::new();
    let (mut in_cursor, mut out_cursor) = (Cursor::new(input), Cursor::new(output));
    // Most entries are a few positions below the root, most of those shared with others.
    let positions = (losses.len() + changes.len())
        .saturating_mul(3)
        .min(1 << 12);
    let (mut in_doc, mut out_doc) = (
        PerPosition::with_capacity(positions),
        PerPosition::with_capacity(positions),
    );
    let Moves {
        list: moves,
        mut prefixes,
        anchors,
    } = prepare(moves);
    let mut reached: PerPosition<Reached> = PerPosition::with_capacity(positions);
    let (mut in_renamed, mut out_renamed) = (PerPosition::new(), PerPosition::new());
    // Whether no node of the input (output) has both spellings of a renamed keyword.
    let (mut in_once, mut out_once) = (None, None);
    // Entries whose place in the output the moves after them may change: taken through them
    // together once every entry has been seen.
    let mut later: Vec<Later> = Vec::new();
    let mut earlier: Vec<Later> = Vec::new();
    let mut place =
        |recorded: &Pointer, keyword: Option<&str>, epoch: usize, spilled: bool, entry: Entry| {
            let epoch = epoch.min(moves.len());
            let before = &moves[..epoch];
            let after = &moves[epoch..];
            let node = node_of(recorded, keyword);
            // What the anchors say of it, each position worked out from its parent's once; the
            // entry's own position (`leaf`) from its parent's, without keeping it: another entry
            // rarely shares it, and keeping each made the table as large as the report.
            let mut reach = |p: &Pointer, prefixes: &Prefixes, leaf: bool| {
                let mut get = |p: &Pointer| {
                    reached.get(
                        p,
                        Reached::ROOT,
                        |above, p| {
                            let token = p.last_escaped().expect("not the root");
                            anchors.step(prefixes, above, &unescaped(token))
                        },
                        |text| anchors.reached(prefixes, text),
                    )
                };
                match p.link() {
                    Some((parent, token)) if leaf => {
                        anchors.step_to(prefixes, &get(parent), &unescaped(token), true)
                    }
                    _ => get(p),
                }
            };
            let mut recorded_reached = None;
            // No move after it is anchored above it (a spilled keyword: above its node's
            // description): it stays where it was recorded.
            let stays = after.is_empty() || {
                let r = if spilled {
                    let node = reach(&node, &prefixes, false);
                    anchors.step_to(&prefixes, &node, "description", true)
                } else {
                    *recorded_reached.insert(reach(recorded, &prefixes, true))
                };
                !anchors.forward_touches(&r, epoch)
            };
            let at = if stays && resolve(&mut out_doc, output, &node).is_some() {
                Some(node)
            } else {
                // A spilled keyword is gone from its node: its place is the node's description,
                // which a node wrapped in a union keeps while its keywords move into a branch.
                let (position, keyword) = if spilled {
                    (node.child("description"), Some("description"))
                } else {
                    (recorded.clone(), keyword)
                };
                later.push(Later {
                    entry,
                    position,
                    keyword: keyword.map(str::to_owned),
                    epoch,
                });
                None
            };
            let unmoved = before.is_empty() || {
                let r = match recorded_reached {
                    Some(r) => r,
                    None => reach(recorded, &prefixes, true),
                };
                !Anchors::back_touches(&r, epoch)
            };
            let pointer = if unmoved && resolve(&mut in_doc, input, recorded).is_some() {
                None
            } else if let Some(found) = unmoved
                .then(|| through_renames(&mut in_renamed, input, recorded))
                .flatten()
            {
                // Recorded after a rename (`oneOf` read as `anyOf`): named as the input spells it.
                #[cfg(test)]
                assert_eq!(
                    found.as_str(),
                    in_input(input, recorded, &mut in_cursor),
                    "{recorded} found through the renames and as text"
                );
                Some(found)
            } else {
                // Taken back through the moves before it with the others, once all are seen.
                earlier.push(Later {
                    entry,
                    position: recorded.clone(),
                    keyword: None,
                    epoch,
                });
                None
            };
            (at, pointer)
        };
    for (i, loss) in losses.iter_mut().enumerate() {
        let spilled = loss.kind == LossKind::Spilled;
        let (at, pointer) = place(
            &loss.pointer,
            Some(&loss.keyword),
            loss.epoch,
            spilled,
            Entry::Loss(i),
        );
        loss.at = at;
        if let Some(pointer) = pointer {
            loss.pointer = pointer;
        }
    }
    for (i, change) in changes.iter_mut().enumerate() {
        let (at, pointer) = place(&change.pointer, None, change.epoch, false, Entry::Change(i));
        change.at = at;
        if let Some(pointer) = pointer {
            change.pointer = pointer;
        }
    }
    if !earlier.is_empty() {
        let placed = places::back_all(&moves, &anchors, &prefixes, &waiting(&earlier));
        for (l, placed) in earlier.into_iter().zip(placed) {
            let by_text = |prefixes: &mut Prefixes, in_cursor: &mut Cursor<'_>| {
                let recorded = unmove(l.position.as_str(), &moves, l.epoch, &anchors, prefixes);
                Pointer::from(in_input(input, &recorded, in_cursor))
            };
            let pointer = match placed {
                places::Placed::At(before) => {
                    if resolve(&mut in_doc, input, &before).is_some() {
                        before
                    } else if let Some(found) = through_renames(&mut in_renamed, input, &before) {
                        found
                    } else {
                        Pointer::from(in_input(input, &before, &mut in_cursor))
                    }
                }
                places::Placed::Respelled(before)
                    if !renamed_pair(before.last_escaped())
                        && *in_once.get_or_insert_with(|| spelled_once(input)) =>
                {
                    match through_renames(&mut in_renamed, input, &before) {
                        Some(found) => found,
                        None => by_text(&mut prefixes, &mut in_cursor),
                    }
                }
                places::Placed::Respelled(_) | places::Placed::Gone | places::Placed::Unsure => {
                    by_text(&mut prefixes, &mut in_cursor)
                }
            };
            #[cfg(test)]
            assert_eq!(
                pointer.as_str(),
                by_text(&mut prefixes, &mut in_cursor).as_str(),
                "{} (epoch {}) taken back by the tree and as text",
                l.position,
                l.epoch
            );
            match l.entry {
                Entry::Loss(i) => losses[i].pointer = pointer,
                Entry::Change(i) => changes[i].pointer = pointer,
            }
        }
    }
    name_sources(input, losses);
    if !later.is_empty() {
        let placed = places::forward_all(&moves, &anchors, &prefixes, &waiting(&later));
        for (l, placed) in later.into_iter().zip(placed) {
            let keyword = l.keyword.as_deref();
            // The entry taken through the moves as text, and found in the output.
            let by_text = |prefixes: &mut Prefixes,
                           inlined: &mut Inlined,
                           out_cursor: &mut Cursor<'_>| {
                forward(l.position.as_str(), &moves, l.epoch, &anchors, prefixes)
                    .and_then(|now| in_output(input, output, &now, keyword, inlined, out_cursor))
            };
            let at = match placed {
                places::Placed::Gone => None,
                places::Placed::At(now) => {
                    let node = strip(&now, keyword);
                    if resolve(&mut out_doc, output, &node).is_some() {
                        Some(node)
                    } else if let Some(found) = through_renames(&mut out_renamed, output, &node) {
                        Some(found)
                    } else {
                        in_output(input, output, &now, keyword, &mut inlined, &mut out_cursor)
                            .map(Pointer::from)
                    }
                }
                places::Placed::Respelled(now)
                    if !renamed_pair(now.last_escaped())
                        && *out_once.get_or_insert_with(|| spelled_once(output)) =>
                {
                    match through_renames(&mut out_renamed, output, &strip(&now, keyword)) {
                        Some(found) => Some(found),
                        None => {
                            by_text(&mut prefixes, &mut inlined, &mut out_cursor).map(Pointer::from)
                        }
                    }
                }
                places::Placed::Respelled(_) | places::Placed::Unsure => {
                    by_text(&mut prefixes, &mut inlined, &mut out_cursor).map(Pointer::from)
                }
            };
            #[cfg(test)]
            {
                let text = by_text(&mut prefixes, &mut inlined, &mut out_cursor);
                assert_eq!(
                    at.as_ref().map(|p| p.as_str().to_owned()),
                    text,
                    "{} (epoch {}) placed by the tree and as text",
                    l.position,
                    l.epoch
                );
            }
            match l.entry {
                Entry::Loss(i) => losses[i].at = at,
                Entry::Change(i) => changes[i].at = at,
            }
        }
    }
    went_with_dropped(losses);
}

/// Names each loss where the input spells it: a keyword a rule derived from another (`const`
/// read as a one-value `enum`) where its source stands, a keyword the rules renamed as the input
/// spells it.
fn name_sources(input: &Value, losses: &mut [Loss]) {
    for loss in &mut *losses {
        // A keyword a rule derived from another (`const` read as a one-value `enum`) is named
        // where its source stands.
        if loss.keyword == "enum" && loss.pointer.last_escaped() != Some("enum") {
            if let Some(source) = input
                .pointer(&loss.pointer)
                .and_then(|node| const_source(node, 0))
            {
                let moved = Pointer::parse(&format!("{}{source}", loss.pointer));
                loss.pointer = moved;
                loss.keyword = "const".into();
            }
        }
        // A keyword the rules renamed is named as the input spells it.
        let partner = match &*loss.keyword {
            "$defs" => "definitions",
            "definitions" => "$defs",
            "anyOf" => "oneOf",
            "oneOf" => "anyOf",
            "prefixItems" => "items",
            _ => continue,
        };
        let last = loss.pointer.last_escaped();
        let parent = loss.pointer.parent();
        if last == Some(partner) || parent.as_ref().and_then(Pointer::last_escaped) == Some(partner)
        {
            loss.keyword = partner.into();
        }
    }
}

/// The node a position taken to the output names: the position, or its parent when it ends in
/// the entry's keyword.
fn strip(now: &Pointer, keyword: Option<&str>) -> Pointer {
    match (keyword, now.last_escaped()) {
        (Some(k), Some(last)) if escaped(k) == last => now.parent().expect("not the root"),
        _ => now.clone(),
    }
}

/// Whether a token is one of a renamed pair (`anyOf`/`oneOf`, `$defs`/`definitions`).
fn renamed_pair(token: Option<&str>) -> bool {
    token.is_some_and(|t| matches!(canonical(false, t), "anyOf" | "$defs"))
}

/// Whether no object of `doc` has both spellings of a renamed keyword (`anyOf` and `oneOf`,
/// `$defs` and `definitions`): then a position spelled either way names one node, found
/// through the renames.
fn spelled_once(doc: &Value) -> bool {
    let mut stack = vec![doc];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                let both = |a: &str, b: &str| m.contains_key(a) && m.contains_key(b);
                if both("anyOf", "oneOf") || both("$defs", "definitions") {
                    return false;
                }
                stack.extend(m.values());
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
    true
}

/// A report entry.
#[derive(Clone, Copy)]
enum Entry {
    Loss(usize),
    Change(usize),
}

/// An entry whose place in the output waits for every entry to be seen (see [`places`]).
struct Later {
    entry: Entry,
    /// The position to take forward: the recorded one, or a spilled keyword's description.
    position: Pointer,
    keyword: Option<String>,
    epoch: usize,
}

/// Each waiting entry's position and epoch, as the trees of positions take them.
fn waiting(entries: &[Later]) -> Vec<(Pointer, usize)> {
    entries
        .iter()
        .map(|l| (l.position.clone(), l.epoch))
        .collect()
}

/// A keyword spilled into a description inside a subtree that a later rule dropped whole (a
/// `patternProperties` schema the legacy `Schema` message has no field for) is not in any
/// description the provider gets: its loss says it was dropped with that subtree (the outermost
/// such subtree).
///
/// Positions are compared by a hash of their tokens, each pointer's hash made from its parent's
/// once, so that this stays linear in the report however deep its positions are.
fn went_with_dropped(losses: &mut [Loss]) {
    // Only spilled keywords are looked at: without one there is nothing to find.
    if !losses.iter().any(|l| l.kind == LossKind::Spilled) {
        return;
    }
    let mut hashes = PerPosition::new();
    let mut dropped: HashMap<u128, Pointer> = HashMap::new();
    for l in losses.iter().filter(|l| l.kind == LossKind::Dropped) {
        // Rules record spills at schema positions alone, found by the walkers' table: only a
        // keyword whose value holds schemas by that table (never `title`, `format`, ...) can
        // hold one. Such keywords need no escaping.
        let holds_schemas = crate::walk::holds(&l.keyword).is_some()
            && l.pointer.last_escaped() == Some(&*l.keyword);
        // A definition removed whole (referenced nowhere).
        if holds_schemas || matches!(&*l.keyword, "$defs" | "definitions") {
            dropped.insert(token_hash(&mut hashes, &l.pointer), l.pointer.clone());
        }
    }
    if dropped.is_empty() {
        return;
    }
    // The outermost dropped position at or above each parent of a spilled keyword's position.
    let mut outermost = PerPosition::new();
    for loss in losses.iter_mut().filter(|l| l.kind == LossKind::Spilled) {
        let Some(parent) = loss.pointer.parent() else {
            continue;
        };
        let gone = outermost.get(
            &parent,
            None,
            |above: &Option<Pointer>, p| {
                above.clone().or_else(|| {
                    let hash = token_hash(&mut hashes, p);
                    dropped
                        .get(&hash)
                        .filter(|d| d.as_str() == p.as_str())
                        .cloned()
                })
            },
            |text| {
                // Each prefix ending at a token, the whole included, outermost first.
                let (mut hash, mut end) = (ROOT_HASH, 0);
                text.split('/').skip(1).find_map(|token| {
                    hash = mix(hash, token);
                    end += 1 + token.len();
                    let prefix = &text[..end];
                    dropped.get(&hash).filter(|d| d.as_str() == prefix).cloned()
                })
            },
        );
        let Some(gone) = gone else {
            continue;
        };
        let container = gone.last_escaped().unwrap_or_default();
        let definition = gone.parent().is_some_and(|defs| {
            matches!(defs.last_escaped(), Some("$defs" | "definitions"))
                && defs.parent().is_some_and(|p| p.is_root())
        });
        let container = if definition {
            format!("the unreferenced definition {container}")
        } else {
            format!("`{container}`")
        };
        loss.kind = LossKind::Dropped;
        loss.at = None;
        loss.detail = format!(
            "{}, but that description was dropped with {}",
            loss.detail,
            container.replace("~1", "/").replace("~0", "~")
        );
    }
}

/// The hash of the root's tokens (none).
const ROOT_HASH: u128 = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834;

/// A hash of a position's escaped tokens, made from its parent's.
fn token_hash(hashes: &mut PerPosition<u128>, pointer: &Pointer) -> u128 {
    hashes.get(
        pointer,
        ROOT_HASH,
        |parent, p| mix(*parent, p.last_escaped().expect("not the root")),
        |text| text.split('/').skip(1).fold(ROOT_HASH, mix),
    )
}

/// Extends a hash with one token (FNV-1a per lane, then a multiply to spread the lanes).
fn mix(hash: u128, token: &str) -> u128 {
    let (mut a, mut b) = ((hash >> 64) as u64, hash as u64);
    for byte in token.bytes().chain(std::iter::once(b'/')) {
        a = (a ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        b = (b ^ u64::from(byte)).wrapping_mul(0xff51_afd7_ed55_8ccd) ^ (b >> 29);
    }
    (u128::from(a) << 64) | u128::from(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// How many steps [`Reach`] took on this thread.
        pub(super) static STEPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// Tokens that get an id without hashing (keywords, indices as RFC 6901 writes them) each
    /// get their own, above every id a map gives; other spellings of a number, names, and
    /// indices too large get none (they go through the map, by their text).
    #[test]
    fn fixed_ids_are_distinct_and_only_for_keywords_and_plain_indices() {
        let fixed = [
            "0",
            "7",
            "10",
            "2147483647",
            "anyOf",
            "oneOf",
            "properties",
            "items",
            "$ref",
            "maxLength",
            "$defs",
            "definitions",
            "prefixItems",
        ];
        let ids: Vec<u32> = fixed
            .iter()
            .map(|t| fixed_id(t).unwrap_or_else(|| panic!("{t} has no fixed id")))
            .collect();
        assert!(ids.iter().all(|&id| id >= FIXED_IDS));
        let distinct: std::collections::HashSet<u32> = ids.iter().copied().collect();
        assert_eq!(distinct.len(), ids.len(), "{ids:?}");
        for (t, id) in fixed.iter().zip(&ids) {
            assert_eq!(fixed_id(t), Some(*id), "{t}: the same text, the same id");
        }
        for t in [
            "",
            "01",
            "00",
            "+1",
            "-1",
            "1e3",
            "1.0",
            " 1",
            "2147483648",
            "99999999999",
            "x",
            "anyof",
            "Properties",
            "my_field",
            "a~1b",
            "\u{0}",
        ] {
            assert_eq!(fixed_id(t), None, "{t:?}");
        }
    }

    /// A position that names the wrong branch of a union (as a rule's record does after the
    /// branches were reordered without a logged move) is found through the branch that has the
    /// rest of the path, and the search costs steps linear in the depth: asking how far each
    /// branch reaches, again at every level, made one follow quadratic in the depth and a report
    /// with an entry per level cubic (an 800-level schema took 9 s for OpenAI Responses).
    #[test]
    fn follow_through_reordered_branches_is_linear_in_the_depth() {
        let run = |levels: usize| {
            let mut node = serde_json::json!({"type": "string"});
            for _ in 0..levels {
                let mut object = serde_json::Map::new();
                object.insert("type".into(), "object".into());
                object.insert("properties".into(), serde_json::json!({}));
                object["properties"]
                    .as_object_mut()
                    .expect("an object")
                    .insert("x".into(), node);
                node = serde_json::json!({"anyOf": [{"type": "string"}]});
                node["anyOf"]
                    .as_array_mut()
                    .expect("an array")
                    .push(Value::Object(object));
            }
            // The outermost union's index is wrong, the others right: every union is asked how
            // far each branch reaches.
            let wanted = format!(
                "/anyOf/0/properties/x{}",
                "/anyOf/1/properties/x".repeat(levels - 1)
            );
            let wanted = tokens(&wanted);
            STEPS.with(|s| s.set(0));
            let (path, complete) = follow(&node, &wanted);
            assert!(complete);
            assert_eq!(join(&path), "/anyOf/1/properties/x".repeat(levels));
            // Dropped level by level: serde_json drops recursively.
            std::mem::forget(node);
            STEPS.with(std::cell::Cell::get)
        };
        let (small, large) = (run(200), run(400));
        assert!(
            large as f64 <= 2.3 * small as f64,
            "{small} steps at 200 levels, {large} at 400"
        );
    }

    /// [`unmove`] through all of `moves`.
    fn unmoved(recorded: &str, moves: &[BranchMove]) -> String {
        let mut moves = prepare(moves);
        let until = moves.list.len();
        unmove(
            recorded,
            &moves.list,
            until,
            &moves.anchors,
            &mut moves.prefixes,
        )
    }

    /// [`forward`] through all of `moves`.
    fn forwarded(recorded: &str, moves: &[BranchMove]) -> Option<String> {
        let mut moves = prepare(moves);
        forward(
            recorded,
            &moves.list,
            0,
            &moves.anchors,
            &mut moves.prefixes,
        )
    }

    /// The gap buffer reads, indexes and splices as a `Vec` does, wherever the gap was left:
    /// edits rising, falling and at random places, each followed by reads of every token.
    #[test]
    fn tokens_splice_as_a_vec_does() {
        let mut tokens = Tokens::default();
        let mut vec: Vec<String> = Vec::new();
        // A small linear congruential sequence: the same edits every run.
        let mut state = 7u64;
        let mut next = |below: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize % below.max(1)
        };
        for round in 0..400 {
            let len = vec.len();
            let start = match round % 3 {
                0 => (round / 3) % (len + 1),
                1 => len - (round / 3) % (len + 1),
                _ => next(len + 1),
            };
            let end = (start + next(3)).min(len);
            let new: Vec<String> = (0..next(4)).map(|k| format!("t{round}.{k}")).collect();
            vec.splice(start..end, new.iter().cloned());
            tokens.splice(start..end, new);
            if round % 5 == 0 && !vec.is_empty() {
                let i = next(vec.len());
                vec[i] = format!("set{round}");
                tokens[i] = format!("set{round}");
            }
            assert_eq!(tokens.len(), vec.len());
            assert!((0..vec.len()).all(|i| tokens[i] == vec[i]), "round {round}");
            assert_eq!(join(&tokens), join(&vec));
        }
    }

    /// Every path of up to three tokens over `words` (the empty one included).
    fn paths_over(words: &[&str]) -> Vec<Vec<String>> {
        let mut paths: Vec<Vec<String>> = vec![Vec::new()];
        for len in 1..=3 {
            let mut more = Vec::new();
            for p in paths.iter().filter(|p| p.len() == len - 1) {
                for w in words {
                    let mut q = p.clone();
                    q.push((*w).to_owned());
                    more.push(q);
                }
            }
            paths.extend(more);
        }
        paths
    }

    /// How many tokens a move's destination and source share, found by going up their links,
    /// is what comparing their tokens gives: as spelled, and through the renames (where the
    /// parent is not a map of names), for positions made as links (sharing links or not) and
    /// given as text.
    #[test]
    fn shared_prefixes_from_links_are_those_of_the_tokens() {
        let words = ["anyOf", "oneOf", "properties", "x", "0"];
        let paths = paths_over(&words);
        let by_tokens = |a: &[String], b: &[String]| {
            let spelled = a.iter().zip(b).take_while(|(x, y)| x == y).count();
            let canonical = (0..a.len().min(b.len()))
                .take_while(|&i| same_token(names_after(&a[..i]), &a[i], &b[i]))
                .count();
            (spelled, canonical)
        };
        let linked = |tokens: &[String]| tokens.iter().fold(Pointer::root(), |p, t| p.child(t));
        let mut prefixes = Prefixes::default();
        for a in &paths {
            for b in &paths {
                let cases = [
                    (linked(a), linked(b)),
                    (Pointer::parse(&join(a)), linked(b)),
                    (linked(a), Pointer::parse(&join(b))),
                ];
                for (pa, pb) in cases {
                    // Links are known by their address: only while they live (as the moves'
                    // links do while they are prepared).
                    let mut known = Known::default();
                    let (_, _, shared) =
                        destination_and_source(&pa, &pb, &mut prefixes, &mut known);
                    assert_eq!(
                        (shared.spelled, shared.canonical),
                        by_tokens(a, b),
                        "{pa} and {pb}"
                    );
                }
            }
        }
        // Links shared by both: found where they meet.
        let base = linked(&["properties".to_owned(), "x".to_owned()]);
        let (at, from) = (base.clone(), base.child("oneOf").index(1));
        let mut known = Known::default();
        let (_, _, shared) = destination_and_source(&at, &from, &mut prefixes, &mut known);
        assert_eq!((shared.spelled, shared.canonical), (2, 2));
    }

    /// Numbered prefixes answer as comparing the tokens one by one through [`same_token`] does
    /// (each token with the path's own token above it), for every pair of paths of up to three
    /// tokens over keywords that are renamed, keywords whose children are names, and names.
    #[test]
    fn numbered_prefixes_compare_as_tokens_do() {
        let by_tokens = |path: &[String], prefix: &[String]| {
            path.len() >= prefix.len()
                && (0..prefix.len())
                    .all(|i| same_token(names_after(&path[..i]), &path[i], &prefix[i]))
        };
        let words = [
            "anyOf",
            "oneOf",
            "$defs",
            "definitions",
            "properties",
            "x",
            "0",
        ];
        let paths = paths_over(&words);
        let mut prefixes = Prefixes::default();
        for prefix in &paths {
            let anchor = Anchor::new(&join(prefix), &mut prefixes);
            for path in &paths {
                let mut moving = Moving::new(&join(path), &mut prefixes);
                assert_eq!(
                    moving.starts_with(&anchor),
                    by_tokens(path, prefix),
                    "{path:?} starts with {prefix:?}"
                );
                let numbers = &anchor.spelled.get().expect("made with the anchor").numbers;
                let spelled = moving.path.len() >= prefix.len()
                    && moving.numbers(prefix.len()).1 == numbers[prefix.len()];
                assert_eq!(
                    spelled,
                    path.starts_with(prefix),
                    "{path:?} spelled as {prefix:?}"
                );
            }
        }
    }

    /// A union's branches spliced into its parent: a position in a spliced branch goes back
    /// into the union it was in, and forward to its place among the parent's branches; a kept
    /// branch moves by its new index; the spliced union itself is gone.
    #[test]
    fn spliced_branches_are_placed_both_ways() {
        let moves = [BranchMove::Spliced {
            at: "/p".into(),
            from: vec![(0, None), (1, Some(0)), (1, Some(1)), (2, None)],
        }];
        assert_eq!(
            unmoved("/p/anyOf/2/minLength", &moves),
            "/p/anyOf/1/anyOf/1/minLength"
        );
        assert_eq!(unmoved("/p/anyOf/3", &moves), "/p/anyOf/2");
        assert_eq!(unmoved("/p/anyOf/0/type", &moves), "/p/anyOf/0/type");
        assert_eq!(
            forwarded("/p/anyOf/1/anyOf/1/minLength", &moves).as_deref(),
            Some("/p/anyOf/2/minLength")
        );
        assert_eq!(
            forwarded("/p/anyOf/2", &moves).as_deref(),
            Some("/p/anyOf/3")
        );
        assert_eq!(forwarded("/p/anyOf/1/description", &moves), None);
        // `oneOf` read as `anyOf` since: the same union.
        assert_eq!(
            forwarded("/p/oneOf/1/anyOf/0", &moves).as_deref(),
            Some("/p/oneOf/1")
        );
    }

    /// The moves logged for rewrites that used to be guessed: each taken both ways.
    #[test]
    fn inlined_tuples_wraps_splits_and_folds_are_placed_both_ways() {
        // A definition inlined at its use, keeping the referring node's own `description`.
        let inlined = vec![BranchMove::Inlined {
            at: "/properties/a".into(),
            from: "/$defs/D".into(),
            kept: vec!["description".into()],
        }];
        // A tuple of three positions, the first and last equal, sent as `items.anyOf`.
        let tuple = vec![BranchMove::Tuple {
            at: "/t".into(),
            to: vec![0, 1, 0],
            rest: Some(2),
            single: false,
        }];
        // An optional property wrapped with null: its keywords in the first branch.
        let wrapped = vec![BranchMove::Wrapped {
            at: Pointer::parse("/properties/p"),
        }];
        // A property named `properties` is a name, not the keyword: `oneOf` below it is the
        // keyword, read as `anyOf`.
        let under_a_name = vec![BranchMove::Wrapped {
            at: Pointer::parse("/properties/properties/oneOf/0"),
        }];
        // A type list split: a keyword goes to the first branch whose type keeps it.
        let split = vec![BranchMove::Split {
            at: Pointer::parse("/n"),
            types: vec!["string".into(), "object".into(), "null".into()],
        }];
        // A dropped branch whose words the node keeps: its descriptions are the node's.
        let folded = vec![BranchMove::Folded {
            at: "/f".into(),
            from: "/f/anyOf/1".into(),
        }];
        // A branch merged into its node and removed: all of it is at the node.
        let gone = vec![BranchMove::Lifted {
            at: "/g".into(),
            from: "/g/anyOf/0".into(),
            keys: vec!["type".into()],
            gone: true,
        }];
        let forward_cases: [(&[BranchMove], &str, Option<&str>); 16] = [
            (
                &inlined,
                "/$defs/D/anyOf/1/format",
                Some("/properties/a/anyOf/1/format"),
            ),
            (&inlined, "/$defs/D", Some("/properties/a")),
            (
                &tuple,
                "/t/prefixItems/2/format",
                Some("/t/items/anyOf/0/format"),
            ),
            (&tuple, "/t/items/format", Some("/t/items/anyOf/2/format")),
            (
                &wrapped,
                "/properties/p/items/format",
                Some("/properties/p/anyOf/0/items/format"),
            ),
            (
                &wrapped,
                "/properties/p/description",
                Some("/properties/p/description"),
            ),
            (
                &under_a_name,
                "/properties/properties/anyOf/0/minimum",
                Some("/properties/properties/anyOf/0/anyOf/0/minimum"),
            ),
            (&split, "/n/properties/x", Some("/n/anyOf/1/properties/x")),
            (&split, "/n/maxLength", Some("/n/anyOf/0/maxLength")),
            (&split, "/n/items", None),
            (
                &folded,
                "/f/anyOf/1/items/description",
                Some("/f/description"),
            ),
            (&folded, "/f/anyOf/1/items/format", Some("/f")),
            (&folded, "/f/anyOf/1/properties/description", Some("/f")),
            (&gone, "/g/anyOf/0/format", Some("/g/format")),
            (&gone, "/g/anyOf/0", Some("/g")),
            (&gone, "/g/anyOf/1", Some("/g/anyOf/1")),
        ];
        for (moves, recorded, now) in forward_cases {
            assert_eq!(forwarded(recorded, moves).as_deref(), now, "{recorded}");
        }
        let back_cases: [(&[BranchMove], &str, &str); 10] = [
            (&inlined, "/properties/a/anyOf/1", "/$defs/D/anyOf/1"),
            (
                &inlined,
                "/properties/a/description",
                "/properties/a/description",
            ),
            (&tuple, "/t/items/anyOf/1/type", "/t/prefixItems/1/type"),
            (&tuple, "/t/items/anyOf/2", "/t/items"),
            (&tuple, "/t/items", "/t"),
            // The union of the positions (where a collapse of it is reported): the positions.
            (&tuple, "/t/items/anyOf", "/t/prefixItems"),
            (
                &wrapped,
                "/properties/p/anyOf/0/items",
                "/properties/p/items",
            ),
            (&wrapped, "/properties/p/anyOf/1", "/properties/p"),
            (&split, "/n/anyOf/1/properties/x", "/n/properties/x"),
            (&gone, "/g/format", "/g/format"),
        ];
        for (moves, recorded, before) in back_cases {
            assert_eq!(unmoved(recorded, moves), before, "{recorded}");
        }
    }

    /// A deep chain of moves (400 levels, each union reordered and then its branch merged into
    /// the node): the deepest position goes back through all 800 moves to the input's
    /// coordinates, and forward again to where it was, with the prefixes renumbered after each
    /// move that changed it.
    #[test]
    fn nested_moves_are_placed_through_numbers() {
        let mut moves = Vec::new();
        let mut at = String::new();
        for _ in 0..400 {
            moves.push(BranchMove::Reordered {
                at: Pointer::from(&at),
                keyword: "anyOf",
                from: vec![1, 0],
            });
            moves.push(BranchMove::Lifted {
                at: at.clone().into(),
                from: format!("{at}/anyOf/0").into(),
                keys: vec!["properties".into()],
                gone: false,
            });
            at.push_str("/properties/x");
        }
        let mut prepared = prepare(&moves);
        // The deepest position, recorded after every move, back to before the first.
        let deepest = at.clone();
        let until = prepared.list.len();
        let back = unmove(
            &deepest,
            &prepared.list,
            until,
            &prepared.anchors,
            &mut prepared.prefixes,
        );
        assert_eq!(back, "/anyOf/1/properties/x".repeat(400));
        // And forward again from there, through every move.
        assert_eq!(
            forward(
                &back,
                &prepared.list,
                0,
                &prepared.anchors,
                &mut prepared.prefixes
            )
            .as_deref(),
            Some(deepest.as_str())
        );
    }

    /// A position resolved by stepping down from the root is the one the memo finds: for
    /// chains of every length around the limit, escaped names, indices, missing positions and
    /// positions given as text (which only the memo takes).
    #[test]
    fn near_positions_resolve_as_the_memo_does() {
        let doc = serde_json::json!({"properties": {"a/b": {"anyOf": [{"properties": {"c~d": {"items": {"properties": {"e": {"properties": {"f": {"type": "string"}}}}}}}}]}}});
        let tokens = [
            "properties",
            "a/b",
            "anyOf",
            "0",
            "properties",
            "c~d",
            "items",
            "properties",
            "e",
            "properties",
            "f",
        ];
        let mut memo = PerPosition::new();
        for len in 0..=tokens.len() {
            let chain = tokens[..len]
                .iter()
                .fold(Pointer::root(), |p, t| p.child(t));
            let missing = chain.child("nowhere");
            for p in [&chain, &missing, &Pointer::parse(chain.as_str())] {
                let mut fresh = PerPosition::new();
                let by_memo = fresh.get(
                    p,
                    Some(&doc),
                    |parent, q| {
                        parent.and_then(|n| step(n, q.last_escaped().expect("not the root")))
                    },
                    |text| text.split('/').skip(1).try_fold(&doc, step),
                );
                assert_eq!(resolve(&mut memo, &doc, p), by_memo, "{p}");
                if let Some((near, parent)) = resolve_near(&doc, p) {
                    assert_eq!(near, by_memo, "{p}");
                    let above = p.parent().and_then(|q| doc.pointer(q.as_str()));
                    assert_eq!(parent, above, "{p}");
                }
            }
            // Siblings, one after the other (each one step from the parent the last left),
            // and a position elsewhere between them.
            for (i, name) in ["properties", "nowhere", "items", "0", "c~d", "properties"]
                .iter()
                .enumerate()
            {
                let sibling = if i == 3 {
                    Pointer::root().child("a")
                } else {
                    chain.child(name)
                };
                let expected = doc.pointer(sibling.as_str());
                assert_eq!(resolve(&mut memo, &doc, &sibling), expected, "{sibling}");
            }
            assert_eq!(resolve_near(&doc, &chain).is_some(), len <= NEAR, "{len}");
        }
    }

    /// Ids spread over the hash (nearby and aligned addresses differ), and any other key mixes in
    /// every byte in order.
    #[test]
    fn id_hasher_spreads_ids_and_mixes_bytes() {
        let hash = |f: &dyn Fn(&mut IdHasher)| {
            let mut h = IdHasher::default();
            f(&mut h);
            h.finish()
        };
        let ids: std::collections::HashSet<u64> = (0..1000usize)
            .map(|i| hash(&|h| h.write_usize(0x1000 + 16 * i)))
            .collect();
        assert_eq!(ids.len(), 1000);
        let low_bits: std::collections::HashSet<u64> = (0..64usize)
            .map(|i| hash(&|h| h.write_usize(0x1000 + 16 * i)) & 63)
            .collect();
        assert!(low_bits.len() > 32, "{} of 64 buckets", low_bits.len());
        assert_ne!(hash(&|h| h.write(b"ab")), hash(&|h| h.write(b"ba")));
        assert_ne!(hash(&|h| h.write(b"ab")), hash(&|h| h.write(b"b")));
    }
    use serde_json::json;

    #[test]
    fn rewritten_positions_map_back_to_the_input() {
        let input = json!({
            "type": "object",
            "properties": {
                "port": {"$ref": "#/definitions/Port", "description": "field doc"},
                "pick": {"oneOf": [{"type": "string"}, {"type": "integer", "maximum": 3}]},
                "name": {"type": ["string", "null"], "maxLength": 5},
                "pair": {"type": "array", "prefixItems": [{"type": "string", "format": "x"}, {"type": "integer"}]},
                "one": {"allOf": [{"type": "integer", "minimum": 1}]}
            },
            "definitions": {"Port": {"type": "integer", "maximum": 65535}}
        });
        let cases = [
            ("/$defs/Port/maximum", "/definitions/Port/maximum"),
            ("/properties/port/maximum", "/definitions/Port/maximum"),
            (
                "/properties/pick/anyOf/1/maximum",
                "/properties/pick/oneOf/1/maximum",
            ),
            (
                "/properties/name/anyOf/0/maxLength",
                "/properties/name/maxLength",
            ),
            (
                "/properties/pair/items/format",
                "/properties/pair/prefixItems/0/format",
            ),
            (
                "/properties/pair/items/anyOf/1",
                "/properties/pair/prefixItems/1",
            ),
            (
                "/properties/pair/items/anyOf",
                "/properties/pair/prefixItems",
            ),
            ("/properties/one/minimum", "/properties/one/allOf/0/minimum"),
            ("/properties/gone/x", "/properties"),
        ];
        for (recorded, want) in cases {
            assert_eq!(
                in_input(&input, recorded, &mut Cursor::new(&input)),
                want,
                "{recorded}"
            );
            assert!(input.pointer(want).is_some(), "{want}");
        }
    }

    #[test]
    fn positions_go_back_through_logged_branch_moves() {
        let moves = vec![
            // Null branches 0 and 2 of a five-branch union removed: 1, 3, 4 remain.
            BranchMove::Reordered {
                at: "/properties/a".into(),
                keyword: "anyOf",
                from: vec![1, 3, 4],
            },
            // Then the two last of those swapped.
            BranchMove::Reordered {
                at: "/properties/a".into(),
                keyword: "anyOf",
                from: vec![0, 2, 1],
            },
        ];
        assert_eq!(
            unmoved("/properties/a/anyOf/1/x", &moves),
            "/properties/a/anyOf/4/x"
        );
        assert_eq!(
            unmoved("/properties/a/anyOf/0", &moves),
            "/properties/a/anyOf/1"
        );
        // Elsewhere, or before the moves: unchanged.
        assert_eq!(
            unmoved("/properties/b/anyOf/1", &moves),
            "/properties/b/anyOf/1"
        );
        assert_eq!(
            unmoved("/properties/a/anyOf/1", &[]),
            "/properties/a/anyOf/1"
        );
    }

    #[test]
    fn positions_go_back_through_merged_branches() {
        let moves = vec![
            // The null branch 1 of `anyOf: [{anyOf: [A, B]}, null]` removed...
            BranchMove::Reordered {
                at: "/properties/id".into(),
                keyword: "anyOf",
                from: vec![0],
            },
            // ...and the one branch left merged into the node: its `anyOf` is the node's.
            BranchMove::Lifted {
                at: "/properties/id".into(),
                from: "/properties/id/anyOf/0".into(),
                keys: vec!["anyOf".into()],
                gone: false,
            },
        ];
        assert_eq!(
            unmoved("/properties/id/anyOf/1/patternProperties", &moves),
            "/properties/id/anyOf/0/anyOf/1/patternProperties"
        );
        assert_eq!(
            forwarded("/properties/id/anyOf/0/anyOf/1", &moves).as_deref(),
            Some("/properties/id/anyOf/1")
        );
        // Recorded after `oneOf` was read as `anyOf`: the same union.
        let renamed = [BranchMove::Lifted {
            at: "/properties/id/oneOf/0/items".into(),
            from: "/properties/id/oneOf/0/items/anyOf/0".into(),
            keys: vec!["additionalProperties".into()],
            gone: false,
        }];
        assert_eq!(
            unmoved(
                "/properties/id/anyOf/0/items/additionalProperties",
                &renamed
            ),
            "/properties/id/oneOf/0/items/anyOf/0/additionalProperties"
        );
        // A property called `oneOf` is not the keyword.
        assert_eq!(
            unmoved(
                "/properties/anyOf/items/additionalProperties",
                &[BranchMove::Lifted {
                    at: "/properties/oneOf/items".into(),
                    from: "/properties/oneOf/items/anyOf/0".into(),
                    keys: vec!["additionalProperties".into()],
                    gone: false,
                }]
            ),
            "/properties/anyOf/items/additionalProperties"
        );
        // A keyword the node kept as its own is not taken back into the branch.
        assert_eq!(
            unmoved("/properties/id/description", &moves),
            "/properties/id/description"
        );
        // The removed null branch is nowhere in the output.
        assert_eq!(forwarded("/properties/id/anyOf/1", &moves), None);
    }

    #[test]
    fn output_positions_follow_inlining() {
        let input = json!({"type": "object", "properties": {"port": {"$ref": "#/$defs/Port"}},
            "$defs": {"Port": {"type": "integer", "maximum": 9}}});
        let output = json!({"type": "object", "properties": {"port": {"type": "integer", "description": "{maximum: 9}"}}});
        assert_eq!(
            in_output(
                &input,
                &output,
                "/$defs/Port/maximum",
                Some("maximum"),
                &mut Inlined::new(),
                &mut Cursor::new(&output)
            )
            .as_deref(),
            Some("/properties/port")
        );
        assert_eq!(
            in_output(
                &input,
                &output,
                "/properties/nope",
                None,
                &mut Inlined::new(),
                &mut Cursor::new(&output)
            ),
            None
        );
    }

    #[test]
    fn spills_inside_a_dropped_subtree_are_dropped_with_the_outermost_one() {
        let loss = |pointer: Pointer, keyword: &str, kind: LossKind| Loss {
            pointer,
            at: Some(Pointer::root()),
            keyword: keyword.to_owned().into(),
            kind,
            detail: "d".to_owned(),
            rule: "test",
            epoch: 0,
        };
        let p = Pointer::root().child("properties").child("p");
        let pattern = p.child("patternProperties");
        let mut losses = vec![
            loss(pattern.clone(), "patternProperties", LossKind::Dropped),
            // Nested inside the first: the outermost names the container.
            loss(pattern.child("^x-").child("not"), "not", LossKind::Dropped),
            // Linked positions, one below both dropped subtrees.
            loss(
                pattern.child("^x-").child("not").child("enum"),
                "enum",
                LossKind::Spilled,
            ),
            // The same place given as text.
            loss(
                Pointer::parse("/properties/p/patternProperties/^x-/minimum"),
                "minimum",
                LossKind::Spilled,
            ),
            // A definition removed whole.
            loss(Pointer::parse("/$defs/Unused"), "$defs", LossKind::Dropped),
            loss(
                Pointer::parse("/$defs/Unused/properties/a/format"),
                "format",
                LossKind::Spilled,
            ),
            // Beside the dropped subtrees, and the dropped keyword's own node: untouched.
            loss(p.child("maxLength"), "maxLength", LossKind::Spilled),
            loss(
                Pointer::parse("/properties/p/patternPropertiesX/a/format"),
                "format",
                LossKind::Spilled,
            ),
        ];
        went_with_dropped(&mut losses);
        let said = |i: usize| {
            (
                losses[i].kind,
                losses[i].at.is_some(),
                losses[i].detail.clone(),
            )
        };
        let gone = |what: &str| {
            (
                LossKind::Dropped,
                false,
                format!("d, but that description was dropped with {what}"),
            )
        };
        assert_eq!(said(2), gone("`patternProperties`"));
        assert_eq!(said(3), gone("`patternProperties`"));
        assert_eq!(said(5), gone("the unreferenced definition Unused"));
        assert_eq!(said(6), (LossKind::Spilled, true, "d".to_owned()));
        assert_eq!(said(7), (LossKind::Spilled, true, "d".to_owned()));
    }

    /// Nestings that log a move at every level (a union reordered, a null branch removed, a
    /// branch merged into its node, a tuple sent as `items`, a type list split, an optional
    /// property wrapped), spelled with `oneOf` and `definitions` as well: every entry the tree of
    /// positions places (`places`) is where taking it through the moves as text puts it (in a
    /// test build `locate` checks each against the text), for every target.
    #[test]
    fn the_tree_of_positions_places_entries_as_the_text_does() {
        use crate::adapt::Target;
        use serde_json::json;
        fn object(x: Value) -> Value {
            json!({"type": "object", "properties": {"x": x, "s": {"type": "string", "format": "email"}}, "required": ["x"]})
        }
        let shapes: [fn(Value) -> Value; 10] = [
            |x| json!({"anyOf": [{"type": "string"}, object(x)]}),
            |x| json!({"oneOf": [{"type": "integer"}, object(x)]}),
            |x| json!({"oneOf": [{"type": "null"}, {"type": ["object", "null"], "properties": {"x": x}}]}),
            |x| json!({"anyOf": [object(x), {"type": "null"}]}),
            |x| json!({"anyOf": [object(x)]}),
            |x| json!({"allOf": [object(x)]}),
            |x| json!({"type": "array", "prefixItems": [x, {"type": "string", "minLength": 2}]}),
            |x| json!({"type": ["object", "null"], "properties": {"x": x}, "minProperties": 1}),
            |x| json!({"type": "object", "properties": {"x": x, "o": {"type": "string", "pattern": "^a"}}}),
            |x| json!({"anyOf": [{"anyOf": [object(x), {"type": "boolean"}]}, {"type": "string"}]}),
        ];
        for (i, wrap) in shapes.iter().enumerate() {
            let mut node = json!({"type": "string", "maxLength": 8});
            for _ in 0..12 {
                node = wrap(node);
            }
            let doc = json!({
                "type": "object",
                "properties": {"root": node, "d": {"$ref": "#/definitions/D"}},
                "required": ["root"],
                "definitions": {"D": {"oneOf": [{"type": "string"}, object(json!({"type": "integer", "minimum": 1}))]}}
            });
            for &target in Target::ALL {
                let adapted = target.adapt(&doc);
                // Every entry is placed, in the output where it says it is.
                for at in adapted
                    .losses
                    .iter()
                    .filter_map(|l| l.at.as_ref())
                    .chain(adapted.changes.iter().filter_map(|c| c.at.as_ref()))
                {
                    assert!(
                        adapted.schema.pointer(at).is_some(),
                        "shape {i}, {target}: {at} is not in the output"
                    );
                }
            }
        }
    }

    /// The entries for a wide object's properties, found in the object's order past the last
    /// one found (then by hash where one is skipped), are placed where they were recorded:
    /// checked against the general placing in this test build, for every target.
    #[test]
    fn entries_for_a_wide_object_are_placed_in_its_order() {
        let mut props = serde_json::Map::new();
        for i in 0..40 {
            // Every fifth property has nothing to report: the next is found past a gap.
            let schema = if i % 5 == 4 {
                json!({"type": "string"})
            } else {
                json!({"type": ["string", "null"], "maxLength": 3, "format": "email"})
            };
            props.insert(format!("p{i}"), schema);
        }
        let doc = json!({"type": "object", "properties": props});
        for &target in crate::Target::ALL {
            let a = target.adapt(&doc);
            for loss in &a.losses {
                assert!(
                    doc.pointer(&loss.pointer).is_some(),
                    "{target}: {}",
                    loss.pointer
                );
            }
            for change in &a.changes {
                assert!(
                    doc.pointer(&change.pointer).is_some(),
                    "{target}: {}",
                    change.pointer
                );
                if let Some(at) = &change.at {
                    assert!(a.schema.pointer(at).is_some(), "{target}: {at}");
                }
            }
        }
    }

    /// A report with no branch move whose entries lie deeper than the near positions is placed
    /// where it was recorded: by stepping down for a few deep entries (checked against the
    /// general placing in this test build), by the general placing past them (an entry at
    /// every level). Either way every pointer names the keyword in the input and every `at` a
    /// node of the output.
    #[test]
    fn deep_entries_without_moves_are_placed_where_recorded() {
        let bottoms = [
            json!({"type": "string", "maxLength": 8}),
            // Renamed to `anyOf`: positions recorded below it are not the input's.
            json!({"oneOf": [{"type": "string", "maxLength": 8}, {"type": "integer", "minimum": 1}]}),
        ];
        for (levels, bottom) in [8, 60, 400]
            .into_iter()
            .flat_map(|l| bottoms.iter().map(move |b| (l, b)))
        {
            let mut node = bottom.clone();
            for _ in 0..levels {
                node = json!({
                    "type": "object",
                    "properties": {"x": node, "y": {"type": "integer", "minimum": 1}},
                    "required": ["x", "y"]
                });
            }
            let a = crate::Target::AnthropicStrict.adapt(&node);
            assert!(a.losses.len() > levels, "{levels}");
            for loss in &a.losses {
                let named = node.pointer(&loss.pointer).expect("in the input");
                assert!(
                    named.is_number() || loss.keyword == "oneOf",
                    "{levels}: {}",
                    loss.pointer
                );
                let at = loss.at.as_ref().expect("placed in the output");
                assert!(a.schema.pointer(at).is_some_and(Value::is_object), "{at}");
            }
            std::mem::forget(node);
        }
        // Recorded where the rules renamed a keyword (`definitions` read as `$defs`): not the
        // input's position, so not kept as recorded.
        let mut deep = json!({"type": "string", "maxLength": 8});
        for _ in 0..8 {
            deep = json!({"type": "object", "properties": {"x": deep}, "required": ["x"]});
        }
        let doc = json!({
            "type": "object",
            "properties": {"a": {"$ref": "#/definitions/D"}},
            "required": ["a"],
            "definitions": {"D": deep}
        });
        for &target in crate::Target::ALL {
            let a = target.adapt(&doc);
            for loss in a.losses.iter().filter(|l| l.keyword == "maxLength") {
                assert!(
                    doc.pointer(&loss.pointer).is_some(),
                    "{target}: {}",
                    loss.pointer
                );
            }
        }
    }
}
