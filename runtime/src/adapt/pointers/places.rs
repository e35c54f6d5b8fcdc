//! Report positions that the logged moves change, taken through the moves all at once on a tree
//! of positions (`Places`), instead of one position at a time as text: forward to the output
//! (`forward_all`, the moves in order) and back to the input (`back_all`, the moves undone latest
//! first).
//!
//! Taking each entry's position through the moves as text costs its depth per entry: a report
//! with an entry per level of a nesting that logs a move per level (a union reordered at every
//! level, a tuple at every level) was quadratic in the depth. Here each position asked about is a
//! node of a tree whose edges are tokens (compared through the renames, as [`super::same_token`]
//! does); a move rewires the edges just below its anchor, which moves every position below them
//! at once, and a position's place at the end is made from its parent's place once. An entry's
//! position is found in the tree from its parent's (the links of a [`Pointer`]), each link once
//! for as long as no move anchored above it runs; so the whole report costs time linear in its
//! entries and the nodes they name.
//!
//! What it gives is what [`super::forward`] and [`super::unmove`] give each position. Where one
//! place was spelled two ways (`oneOf` here, `anyOf` there, which the text keeps each as spelled)
//! it says so ([`Placed::Respelled`]), and the caller finds the document's own spelling or takes
//! the position through the moves as text.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use smallvec::SmallVec;

use super::super::pointer::{Pointer, Token};
use super::{
    Anchor, Anchors, FIXED_IDS, IdHasher, Move, Prefixes, ROOT_PREFIX, Shared, canonical, fixed_id,
    names_below, unescaped,
};

/// No node.
const NONE: u32 = u32::MAX;

/// The root's node.
const ROOT: u32 = 0;

/// One position of the tree: the token from its parent (as spelled by the first position that
/// named it), its children as a list, and what became of it.
struct Node {
    parent: u32,
    first: u32,
    next: u32,
    prev: u32,
    token: Token,
    /// Whether its children are names (compared as spelled).
    names: bool,
    /// Whether it hangs in the tree (a node moved away or merged is not, until put back).
    attached: bool,
    /// The canonical id of its token, under its parent.
    key: u32,
    /// The node it became one with (a branch merged into its node, two positions moved to one).
    alias: u32,
    /// Removed with a branch: nothing below it is in the output.
    gone: bool,
    /// Positions spelled it in two ways: those through it are taken through the moves as text.
    mixed: bool,
}

impl Node {
    /// A node not yet in the tree.
    fn new(token: Token) -> Self {
        Node {
            parent: NONE,
            first: NONE,
            next: NONE,
            prev: NONE,
            token,
            names: false,
            attached: false,
            key: 0,
            alias: NONE,
            gone: false,
            mixed: false,
        }
    }
}

/// Where a link of a [`Pointer`] was found, and until when that holds: no move anchored above it
/// (or, when a move takes its anchor itself, at it) runs before `until` (taking positions
/// forward); none at or after `until` is taken back (taking them back, the moves latest first).
struct Mapped {
    node: u32,
    until: usize,
    /// Its canonical number, when a move's anchor has it as a prefix.
    number: Option<u64>,
}

/// Where a position taken through the moves is in the output.
pub(super) enum Placed {
    /// In a branch that was removed.
    Gone,
    At(Pointer),
    /// The place, but positions spelled one place in two ways (`oneOf` here, `anyOf` there),
    /// which the text keeps each as spelled: the same place once the document's own spelling
    /// is found through the renames, where no node has both spellings.
    Respelled(Pointer),
    /// A place this tree cannot tell: to be taken through the moves as text.
    Unsure,
}

pub(super) struct Places<'a> {
    nodes: Vec<Node>,
    /// The child of a node by the canonical id of its token.
    index: HashMap<u64, u32, BuildHasherDefault<IdHasher>>,
    /// Canonical tokens' ids, for tokens without a [`fixed_id`] (property names come from the
    /// input): hashed with SipHash.
    keys: HashMap<String, u32>,
    links: HashMap<usize, Mapped, BuildHasherDefault<IdHasher>>,
    /// The links mapped, kept alive so that no other position takes an id while it is mapped.
    kept: Vec<Pointer>,
    anchors: &'a Anchors,
    prefixes: &'a Prefixes,
    /// Whether positions are taken back through the moves (to the input), not forward.
    back: bool,
}

impl<'a> Places<'a> {
    fn new(anchors: &'a Anchors, prefixes: &'a Prefixes, room: usize, back: bool) -> Self {
        let mut nodes = Vec::with_capacity(room + 1);
        nodes.push(Node {
            attached: true,
            ..Node::new(Token::default())
        });
        Places {
            nodes,
            index: HashMap::with_capacity_and_hasher(room, Default::default()),
            keys: HashMap::new(),
            links: HashMap::with_capacity_and_hasher(room, Default::default()),
            kept: Vec::with_capacity(room),
            anchors,
            prefixes,
            back,
        }
    }

    /// The id of a token, through the renames: fixed for keywords and indices, else numbered
    /// by the map (below [`FIXED_IDS`]).
    fn key(&mut self, names: bool, token: &str) -> u32 {
        let c = canonical(names, token);
        if let Some(id) = fixed_id(c) {
            return id;
        }
        if let Some(&k) = self.keys.get(c) {
            return k;
        }
        let k = u32::try_from(self.keys.len())
            .ok()
            .filter(|&k| k < FIXED_IDS)
            .expect("fewer tokens than memory");
        self.keys.insert(c.to_owned(), k);
        k
    }

    fn slot(parent: u32, key: u32) -> u64 {
        (u64::from(parent) << 32) | u64::from(key)
    }

    /// The child of `parent` that `token` names, through the renames.
    fn child(&mut self, parent: u32, token: &str) -> Option<u32> {
        let key = self.key(self.nodes[parent as usize].names, token);
        self.index.get(&Self::slot(parent, key)).copied()
    }

    fn children(&self, node: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut c = self.nodes[node as usize].first;
        while c != NONE {
            out.push(c);
            c = self.nodes[c as usize].next;
        }
        out
    }

    /// The children of `node` whose token `keep` says yes to.
    fn children_where(&self, node: u32, keep: impl Fn(&str) -> bool) -> Vec<u32> {
        let mut out = self.children(node);
        out.retain(|&c| keep(&self.nodes[c as usize].token));
        out
    }

    /// A new node, not yet in the tree (its token is set when it is attached).
    fn make(&mut self) -> u32 {
        let id = u32::try_from(self.nodes.len()).expect("fewer nodes than memory");
        self.nodes.push(Node::new(Token::default()));
        id
    }

    /// Takes `node` out of the tree (its subtree goes with it). The root stays.
    fn detach(&mut self, node: u32) {
        let n = &self.nodes[node as usize];
        if !n.attached || node == ROOT {
            return;
        }
        let (parent, prev, next) = (n.parent, n.prev, n.next);
        let slot = Self::slot(parent, n.key);
        if self.index.get(&slot) == Some(&node) {
            self.index.remove(&slot);
        }
        if prev == NONE {
            self.nodes[parent as usize].first = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next != NONE {
            self.nodes[next as usize].prev = prev;
        }
        let n = &mut self.nodes[node as usize];
        n.attached = false;
        n.parent = NONE;
        n.prev = NONE;
        n.next = NONE;
    }

    /// Puts the detached `node` below `parent` as `token`. Where `parent` has a child of that
    /// name already, the two are one position from now on: `node` becomes that child, and its
    /// children go below it (merged the same way).
    fn attach(&mut self, parent: u32, node: u32, token: Token) {
        // Most attaches are one node: the list is made only when children are put again.
        let mut next = Some((parent, node, token));
        let mut work = Vec::new();
        while let Some((parent, node, token)) = next.take().or_else(|| work.pop()) {
            let names = self.nodes[parent as usize].names;
            let key = self.key(names, &token);
            let slot = Self::slot(parent, key);
            if let Some(&existing) = self.index.get(&slot) {
                let mixed = self.nodes[node as usize].mixed;
                let e = &mut self.nodes[existing as usize];
                if mixed || *e.token != *token {
                    e.mixed = true;
                }
                self.nodes[node as usize].alias = existing;
                for c in self.children(node) {
                    self.detach(c);
                    let t = std::mem::take(&mut self.nodes[c as usize].token);
                    work.push((existing, c, t));
                }
                continue;
            }
            let below = names_below(names, &token);
            let first = self.nodes[parent as usize].first;
            {
                let n = &mut self.nodes[node as usize];
                n.parent = parent;
                n.token = token;
                n.key = key;
                n.attached = true;
                n.prev = NONE;
                n.next = first;
            }
            if first != NONE {
                self.nodes[first as usize].prev = node;
            }
            self.nodes[parent as usize].first = node;
            self.index.insert(slot, node);
            if self.nodes[node as usize].names != below {
                // Its children are compared otherwise now: put again, under their new keys.
                self.nodes[node as usize].names = below;
                for c in self.children(node) {
                    self.detach(c);
                    let t = std::mem::take(&mut self.nodes[c as usize].token);
                    work.push((node, c, t));
                }
            }
        }
    }

    /// The child of `parent` that `token` names, made when there is none. A child spelled
    /// otherwise is marked: positions through it are each spelled as recorded.
    fn ensure(&mut self, parent: u32, token: &str) -> u32 {
        if let Some(c) = self.child(parent, token) {
            let n = &mut self.nodes[c as usize];
            if &*n.token != token {
                n.mixed = true;
            }
            return c;
        }
        let n = self.make();
        self.attach(parent, n, Token::from(token));
        n
    }

    /// Removes `node` and everything below it.
    fn remove(&mut self, node: u32) {
        self.detach(node);
        self.nodes[node as usize].gone = true;
    }

    /// `node` is now at `into`; what was below it is removed.
    fn merge_alone(&mut self, node: u32, into: u32) {
        self.detach(node);
        self.nodes[node as usize].alias = into;
        for c in self.children(node) {
            self.remove(c);
        }
    }

    /// The first move from `t` on anchored at the position numbered `number`.
    fn first_from(&self, number: Option<u64>, t: usize) -> usize {
        number
            .and_then(|n| self.anchors.lists()[0].get(&n))
            .and_then(|list| list.get(list.partition_point(|&i| i < t)).copied())
            .unwrap_or(usize::MAX)
    }

    /// One past the last move before `t` that takes positions below the position numbered
    /// `number` back (0: none).
    fn past_last_before(&self, number: Option<u64>, t: usize) -> usize {
        let Some(list) = number.and_then(|n| self.anchors.lists()[1].get(&n)) else {
            return 0;
        };
        match list.partition_point(|&i| i < t) {
            0 => 0,
            k => list[k - 1] + 1,
        }
    }

    /// The bound of a position no move touches.
    fn unbounded(&self) -> usize {
        if self.back { 0 } else { usize::MAX }
    }

    /// Whether a link found with `until` still names its node at time `t`.
    fn holds(&self, until: usize, t: usize) -> bool {
        if self.back { until <= t } else { t <= until }
    }

    /// The node of the position `p` at the time of move `t` (in the coordinates of the
    /// document before it): a link is found from its parent's node once, and again only after
    /// a move anchored above it ran.
    fn node(&mut self, p: &Pointer, t: usize) -> u32 {
        // The links not found yet, deepest first.
        let mut chain: SmallVec<[&Pointer; 8]> = SmallVec::new();
        let mut at = p;
        let (mut node, mut until, mut number) = loop {
            if at.is_root() {
                break (ROOT, self.unbounded(), Some(ROOT_PREFIX));
            }
            if let Some(m) = self.links.get(&at.id()) {
                let n = &self.nodes[m.node as usize];
                if self.holds(m.until, t) && n.attached && n.alias == NONE && !n.gone {
                    break (m.node, m.until, m.number);
                }
            }
            match at.link() {
                Some((parent, _)) => {
                    chain.push(at);
                    at = parent;
                }
                None => {
                    let text = at.as_str().to_owned();
                    let found = self.walk(&text, t);
                    self.links.insert(
                        at.id(),
                        Mapped {
                            node: found.0,
                            until: found.1,
                            number: found.2,
                        },
                    );
                    self.kept.push(at.clone());
                    break found;
                }
            }
        };
        for &link in chain.iter().rev() {
            let token = unescaped(link.last_escaped().expect("a link"));
            (node, until, number) = self.step((node, until, number), &token, t);
            self.links.insert(
                link.id(),
                Mapped {
                    node,
                    until,
                    number,
                },
            );
            self.kept.push(link.clone());
        }
        node
    }

    /// One token down from a node found at time `t`.
    fn step(
        &mut self,
        (node, until, number): (u32, usize, Option<u64>),
        token: &str,
        t: usize,
    ) -> (u32, usize, Option<u64>) {
        let names = self.nodes[node as usize].names;
        let child = number.and_then(|n| self.prefixes.find(n, names, token));
        // Moves anchored at the parent move what is below it.
        let until = if self.back {
            // None takes a position itself back.
            until.max(self.past_last_before(number, t))
        } else if self.anchors.any_at {
            // A move may take a position itself (a merged branch, an inlined definition).
            until
                .min(self.first_from(number, t))
                .min(self.first_from(child, t))
        } else {
            until.min(self.first_from(number, t))
        };
        (self.ensure(node, token), until, child)
    }

    /// The node of a position given as text, token by token from the root.
    fn walk(&mut self, text: &str, t: usize) -> (u32, usize, Option<u64>) {
        let mut found = (ROOT, self.unbounded(), Some(ROOT_PREFIX));
        if !text.is_empty() {
            for token in text.split('/').skip(1) {
                found = self.step(found, &unescaped(token), t);
            }
        }
        found
    }

    /// The node of a move's anchor given as tokens.
    fn node_of_tokens(&mut self, tokens: &[String]) -> u32 {
        let mut node = ROOT;
        for token in tokens {
            node = self.ensure(node, token);
        }
        node
    }

    /// The node a logged move is anchored at (forward), at its time `t`.
    fn anchor(&mut self, m: &Move<'_>, t: usize) -> u32 {
        let at = match m {
            Move::Reordered { at, .. }
            | Move::Spliced { at, .. }
            | Move::Split { at, .. }
            | Move::Wrapped { at }
            | Move::Tuple { at, .. } => at,
            Move::Lifted { from, .. } | Move::Inlined { from, .. } | Move::Folded { from, .. } => {
                from
            }
        };
        self.node(&at.pointer, t)
    }

    /// Takes the tree through move `t`, as [`super::forward`] takes each position.
    fn apply(&mut self, m: &Move<'_>, t: usize) {
        let na = self.anchor(m, t);
        match m {
            Move::Reordered { keyword, from, .. } => {
                let Some(k) = self.child(na, keyword) else {
                    return;
                };
                let mut renamed = Vec::new();
                for c in self.children(k) {
                    let Ok(index) = self.nodes[c as usize].token.parse::<usize>() else {
                        continue;
                    };
                    match from.iter().position(|f| *f == index) {
                        Some(now) => renamed.push((c, now)),
                        None => self.remove(c),
                    }
                }
                for &(c, _) in &renamed {
                    self.detach(c);
                }
                for (c, now) in renamed {
                    self.attach(k, c, Token::index(now));
                }
            }
            Move::Spliced { from, .. } => {
                let Some(k) = self.child(na, "anyOf") else {
                    return;
                };
                let mut placed = Vec::new();
                for c in self.children(k) {
                    let Ok(index) = self.nodes[c as usize].token.parse::<usize>() else {
                        continue;
                    };
                    // Branches of the union that was branch `index`: their place among the
                    // spliced branches.
                    if let Some(inner) = self.child(c, "anyOf") {
                        for h in self.children(inner) {
                            let n = self.nodes[h as usize].token.parse::<usize>().ok();
                            if let Some(now) =
                                n.and_then(|n| from.iter().position(|f| *f == (index, Some(n))))
                            {
                                self.detach(h);
                                placed.push((h, now));
                            }
                        }
                    }
                    if let Some(now) = from.iter().position(|f| *f == (index, None)) {
                        // A branch kept as it was.
                        self.detach(c);
                        placed.push((c, now));
                    } else if from.iter().any(|f| f.0 == index) {
                        // A spliced union itself: its branches are the node's now; nothing
                        // else below it is kept.
                        self.merge_alone(c, na);
                    } else {
                        self.remove(c);
                    }
                }
                for (c, now) in placed {
                    self.attach(k, c, Token::index(now));
                }
            }
            Move::Split { types, .. } => {
                let mut moved = Vec::new();
                for c in self.children(na) {
                    let key = &*self.nodes[c as usize].token;
                    if key == "description" || key == "type" {
                        continue;
                    }
                    match types
                        .iter()
                        .position(|t| !crate::adapt::rules::types::of_another_type(t, key))
                    {
                        Some(j) => moved.push((c, j)),
                        None => self.remove(c),
                    }
                }
                for &(c, _) in &moved {
                    self.detach(c);
                }
                if !moved.is_empty() {
                    let union = self.ensure(na, "anyOf");
                    for (c, j) in moved {
                        let branch = self.ensure(union, &j.to_string());
                        self.reattach(branch, c);
                    }
                }
            }
            Move::Wrapped { .. } => {
                // Its description stays on the node (no rename reads another word as it).
                let moved = self.children_where(na, |t| t != "description");
                for &c in &moved {
                    self.detach(c);
                }
                if !moved.is_empty() {
                    let union = self.ensure(na, "anyOf");
                    let branch = self.ensure(union, "0");
                    for c in moved {
                        self.reattach(branch, c);
                    }
                }
            }
            Move::Tuple {
                to, rest, single, ..
            } => {
                let positions = self.child(na, "prefixItems");
                let items = self.child(na, "items");
                // What stood at `items` past the positions: branch `rest` of the union there.
                let rest_moves = match (items, rest, single) {
                    (Some(i), Some(j), false) => Some((i, *j)),
                    _ => None,
                };
                if positions.is_none() && rest_moves.is_none() {
                    return;
                }
                if let Some(p) = positions {
                    self.detach(p);
                }
                if let Some((i, _)) = rest_moves {
                    self.detach(i);
                }
                let sent = self.ensure(na, "items");
                if let Some((i, j)) = rest_moves {
                    let union = self.ensure(sent, "anyOf");
                    self.attach(union, i, Token::index(j));
                }
                if let Some(p) = positions {
                    let mut stay = Vec::new();
                    for c in self.children(p) {
                        let index = self.nodes[c as usize].token.parse::<usize>().ok();
                        match index.and_then(|k| to.get(k)) {
                            Some(&j) => {
                                self.detach(c);
                                if *single {
                                    // The position is `items` itself.
                                    self.attach_into(sent, c);
                                } else {
                                    let union = self.ensure(sent, "anyOf");
                                    self.attach(union, c, Token::index(j));
                                }
                            }
                            None => stay.push(c),
                        }
                    }
                    if !stay.is_empty() {
                        // Not a position: still below `prefixItems`.
                        let kept = self.ensure(na, "prefixItems");
                        for c in stay {
                            self.reattach(kept, c);
                        }
                    }
                    self.merge_alone(p, sent);
                }
            }
            Move::Lifted {
                at,
                keys,
                gone,
                from,
                shared,
            } => {
                if *gone {
                    let target = self.destination(na, from, at, *shared, t, |p| p.detach(na));
                    if na != target {
                        self.detach(na);
                        self.attach_into(target, na);
                    }
                } else {
                    let names = from.names;
                    let moved = self.children_where(na, |t| {
                        keys.iter().any(|k| super::same_token(names, t, k))
                    });
                    if moved.is_empty() {
                        return;
                    }
                    let target = self.destination(na, from, at, *shared, t, |p| {
                        for &c in &moved {
                            p.detach(c);
                        }
                    });
                    for c in moved {
                        self.reattach(target, c);
                    }
                }
            }
            Move::Inlined {
                at, from, shared, ..
            } => {
                let target = self.destination(na, from, at, *shared, t, |p| p.detach(na));
                self.attach_into(target, na);
            }
            Move::Folded { at, from, shared } => {
                let target = self.destination(na, from, at, *shared, t, |p| p.detach(na));
                let description = self.ensure(target, "description");
                // Everything in the removed schema: the node, or its description.
                let mut work = vec![(na, false)];
                while let Some((n, below)) = work.pop() {
                    let node = &self.nodes[n as usize];
                    let is_description = below && &*node.token == "description" && {
                        let parent_names = if node.parent == NONE {
                            false
                        } else {
                            self.nodes[node.parent as usize].names
                        };
                        !parent_names
                    };
                    for c in self.children(n) {
                        work.push((c, true));
                    }
                    self.nodes[n as usize].alias =
                        if is_description { description } else { target };
                }
            }
        }
    }

    /// Every node of the subtree at `node` (itself included) stands at `into` now.
    fn alias_all(&mut self, node: u32, into: u32) {
        let mut work = vec![node];
        while let Some(n) = work.pop() {
            work.extend(self.children(n));
            self.nodes[n as usize].alias = into;
        }
    }

    /// Takes the tree back through move `t`, as [`super::unmove`] takes each position.
    fn undo(&mut self, m: &Move<'_>, t: usize) {
        // Where the move put what it moved: its destination.
        let na = match m {
            Move::Folded { .. } => return,
            Move::Lifted { at, .. }
            | Move::Inlined { at, .. }
            | Move::Reordered { at, .. }
            | Move::Spliced { at, .. }
            | Move::Split { at, .. }
            | Move::Wrapped { at }
            | Move::Tuple { at, .. } => self.node(&at.pointer, t),
        };
        match m {
            Move::Reordered { keyword, from, .. } => {
                let Some(k) = self.child(na, keyword) else {
                    return;
                };
                let mut renamed = Vec::new();
                for c in self.children(k) {
                    let index = self.nodes[c as usize].token.parse::<usize>().ok();
                    if let Some(&before) = index.and_then(|i| from.get(i)) {
                        self.detach(c);
                        renamed.push((c, before));
                    }
                }
                for (c, before) in renamed {
                    self.attach(k, c, Token::index(before));
                }
            }
            Move::Spliced { from, .. } => {
                let Some(k) = self.child(na, "anyOf") else {
                    return;
                };
                let mut renamed = Vec::new();
                for c in self.children(k) {
                    let index = self.nodes[c as usize].token.parse::<usize>().ok();
                    if let Some(&(before, inner)) = index.and_then(|i| from.get(i)) {
                        self.detach(c);
                        renamed.push((c, before, inner));
                    }
                }
                for (c, before, inner) in renamed {
                    match inner {
                        None => self.attach(k, c, Token::index(before)),
                        Some(n) => {
                            // A branch of a union that was a branch: back in that union.
                            let branch = self.ensure(k, &before.to_string());
                            let union = self.ensure(branch, "anyOf");
                            self.attach(union, c, Token::index(n));
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
            } => {
                let names = self.nodes[na as usize].names;
                let moved = self
                    .children_where(na, |t| keys.iter().any(|k| super::same_token(names, t, k)));
                self.relocate_back(na, moved, at, from, *shared, t);
            }
            Move::Inlined {
                at,
                from,
                kept,
                shared,
            } => {
                let names = self.nodes[na as usize].names;
                let moved = self
                    .children_where(na, |t| !kept.iter().any(|k| super::same_token(names, t, k)));
                self.relocate_back(na, moved, at, from, *shared, t);
            }
            Move::Folded { .. } => {}
            // A branch of the split: the node.
            Move::Split { .. } => {
                let Some(union) = self.child(na, "anyOf") else {
                    return;
                };
                let branches: Vec<u32> = self
                    .children(union)
                    .into_iter()
                    .filter(|&c| self.nodes[c as usize].token.parse::<usize>().is_ok())
                    .collect();
                for &c in &branches {
                    self.detach(c);
                }
                for c in branches {
                    self.attach_into(na, c);
                }
            }
            // The wrapped node's first branch: the node; the null branch made with it (and
            // anything below it): the node.
            Move::Wrapped { .. } => {
                let Some(union) = self.child(na, "anyOf") else {
                    return;
                };
                let first = self.child(union, "0");
                let null = self.child(union, "1");
                for c in [first, null].into_iter().flatten() {
                    self.detach(c);
                }
                if let Some(c) = first {
                    self.attach_into(na, c);
                }
                if let Some(c) = null {
                    self.alias_all(c, na);
                }
            }
            // What was sent as `items`: the tuple node; the union of the positions: the tuple's
            // `prefixItems`; a branch: the first position it was; the one schema its positions
            // shared: the first position.
            Move::Tuple {
                to, rest, single, ..
            } => {
                let Some(items) = self.child(na, "items") else {
                    return;
                };
                if *single {
                    if !to.is_empty() {
                        self.detach(items);
                        let positions = self.ensure(na, "prefixItems");
                        self.attach(positions, items, Token::index(0));
                    }
                    return;
                }
                // `items` itself: the tuple node; what is below it stays below an `items`.
                self.detach(items);
                let kept = self.ensure(na, "items");
                let union = self.child(items, "anyOf");
                let mut to_positions = Vec::new();
                let mut to_rest = Vec::new();
                if let Some(u) = union {
                    // The first position sent as each branch, looked up (searching `to` for
                    // each branch was quadratic in a long tuple).
                    let mut first_sent_as: HashMap<usize, usize> = HashMap::with_capacity(to.len());
                    for (k, &j) in to.iter().enumerate() {
                        first_sent_as.entry(j).or_insert(k);
                    }
                    for c in self.children(u) {
                        let Ok(j) = self.nodes[c as usize].token.parse::<usize>() else {
                            continue;
                        };
                        if let Some(&k) = first_sent_as.get(&j) {
                            self.detach(c);
                            to_positions.push((c, k));
                        } else if *rest == Some(j) {
                            self.detach(c);
                            to_rest.push(c);
                        }
                    }
                }
                if let (Some(u), false) = (union, to.is_empty()) {
                    // The union itself: `prefixItems`; its other branches stay below it.
                    self.detach(u);
                    let others = self.children(u);
                    if !others.is_empty() {
                        let token = self.nodes[u as usize].token.clone();
                        let kept_union = self.ensure(kept, &token);
                        for c in others {
                            self.reattach(kept_union, c);
                        }
                    }
                    self.nodes[u as usize].alias = self.ensure(na, "prefixItems");
                }
                for c in self.children(items) {
                    self.reattach(kept, c);
                }
                self.nodes[items as usize].alias = na;
                for (c, k) in to_positions {
                    let positions = self.ensure(na, "prefixItems");
                    self.attach(positions, c, Token::index(k));
                }
                for c in to_rest {
                    self.attach_into(kept, c);
                }
            }
        }
    }

    /// The children `moved` of the node `na` at `at` go below `from` (a merge or an inlining
    /// taken back), at the time of move `t`.
    fn relocate_back(
        &mut self,
        na: u32,
        moved: Vec<u32>,
        at: &Anchor,
        from: &Anchor,
        shared: Shared,
        t: usize,
    ) {
        if moved.is_empty() {
            return;
        }
        for &c in &moved {
            self.detach(c);
        }
        // Found after the moved children left: a `from` below `at` is then made anew, never
        // below a child being moved.
        let target = if shared.canonical < at.depth {
            self.node(&from.pointer, t)
        } else if shared.spelled >= at.depth {
            self.below(na, &from.pointer, from.depth - at.depth)
        } else {
            self.node_of_tokens(&from.pointer.tokens())
        };
        for c in moved {
            self.reattach(target, c);
        }
    }

    /// The node of `at`, where a move at time `t` takes what is at `from` (the node `na`), found
    /// once `leave` has taken what moves out of the tree: a destination inside it is made anew,
    /// from the node above `from` (whose link a later lookup no longer finds), never inside what
    /// moves.
    fn destination(
        &mut self,
        na: u32,
        from: &Anchor,
        at: &Anchor,
        shared: Shared,
        t: usize,
        leave: impl FnOnce(&mut Self),
    ) -> u32 {
        if shared.canonical < from.depth {
            // Not inside: its links lead to no node that moves.
            leave(self);
            return self.node(&at.pointer, t);
        }
        if shared.spelled + 1 >= from.depth && from.depth > 0 {
            let above = self.nodes[na as usize].parent;
            leave(self);
            return self.below(above, &at.pointer, at.depth + 1 - from.depth);
        }
        leave(self);
        self.node_of_tokens(&at.pointer.tokens())
    }

    /// The node of the last `count` tokens of `p` below `node` (made where missing).
    fn below(&mut self, node: u32, p: &Pointer, count: usize) -> u32 {
        last_tokens(p, count)
            .iter()
            .fold(node, |node, token| self.ensure(node, token))
    }

    /// `node` moved below `parent`, under its own token.
    fn reattach(&mut self, parent: u32, node: u32) {
        self.detach(node);
        let token = std::mem::take(&mut self.nodes[node as usize].token);
        self.attach(parent, node, token);
    }

    /// `node` (detached) becomes `into`: its children go below `into`.
    fn attach_into(&mut self, into: u32, node: u32) {
        if self.nodes[node as usize].mixed {
            self.nodes[into as usize].mixed = true;
        }
        self.nodes[node as usize].alias = into;
        for c in self.children(node) {
            self.reattach(into, c);
        }
    }

    /// Where each of `nodes` stands at the end.
    fn placed(&self, nodes: &[u32]) -> Vec<Placed> {
        let mut placed = vec![None; self.nodes.len()];
        nodes
            .iter()
            .map(|&n| match self.place(n, &mut placed) {
                // Taking positions back removes none.
                None if self.back => Placed::Unsure,
                None => Placed::Gone,
                Some((p, SURE)) => Placed::At(p),
                Some((p, RESPELLED)) => Placed::Respelled(p),
                Some(_) => Placed::Unsure,
            })
            .collect()
    }

    /// Where a node stands at the end, and how sure that is ([`SURE`], [`RESPELLED`],
    /// [`UNSURE`]), each node worked out from its parent's once; `None`: removed.
    fn place(
        &self,
        node: u32,
        placed: &mut [Option<Option<(Pointer, u8)>>],
    ) -> Option<(Pointer, u8)> {
        let mut pending = Vec::new();
        let mut n = node;
        let mut value = loop {
            if let Some(v) = &placed[n as usize] {
                break v.clone();
            }
            let node = &self.nodes[n as usize];
            if n == ROOT {
                break Some((Pointer::root(), SURE));
            }
            if node.gone {
                break None;
            }
            pending.push(n);
            if node.alias != NONE {
                n = node.alias;
            } else if node.attached {
                n = node.parent;
            } else {
                // Detached and never put back: not a place this tree can tell.
                break Some((Pointer::root(), UNSURE));
            }
        };
        placed[n as usize] = Some(value.clone());
        for p in pending.into_iter().rev() {
            let node = &self.nodes[p as usize];
            let here = if node.mixed { RESPELLED } else { SURE };
            value = if node.alias != NONE {
                value.map(|(ptr, how)| (ptr, how.max(here)))
            } else {
                value.map(|(ptr, how)| (ptr.child(&node.token), how.max(here)))
            };
            placed[p as usize] = Some(value.clone());
        }
        value
    }
}

/// A place the tree is sure of.
const SURE: u8 = 0;
/// A place up to the spelling of renamed keywords (`oneOf` for `anyOf`).
const RESPELLED: u8 = 1;
/// A place the tree cannot tell.
const UNSURE: u8 = 2;

/// Each position of `entries` (with the number of moves logged before it was recorded), taken
/// back through the moves logged before it, the latest first: its position in the rules' input.
pub(super) fn back_all(
    moves: &[Move<'_>],
    anchors: &Anchors,
    prefixes: &Prefixes,
    entries: &[(Pointer, usize)],
) -> Vec<Placed> {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(entries[i].1));
    let mut places = Places::new(anchors, prefixes, entries.len() * 4 + moves.len() * 2, true);
    let mut nodes = vec![ROOT; entries.len()];
    let mut next = 0;
    for t in (1..=moves.len()).rev() {
        while next < order.len() && entries[order[next]].1 >= t {
            let i = order[next];
            nodes[i] = places.node(&entries[i].0, t);
            next += 1;
        }
        if next > 0 {
            places.undo(&moves[t - 1], t - 1);
        }
    }
    for &i in &order[next..] {
        nodes[i] = places.node(&entries[i].0, 0);
    }
    places.placed(&nodes)
}

/// Each position of `entries` (with the number of moves logged before it was recorded), taken
/// forward through the moves logged after it.
pub(super) fn forward_all(
    moves: &[Move<'_>],
    anchors: &Anchors,
    prefixes: &Prefixes,
    entries: &[(Pointer, usize)],
) -> Vec<Placed> {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&i| entries[i].1);
    let mut places = Places::new(
        anchors,
        prefixes,
        entries.len() * 4 + moves.len() * 2,
        false,
    );
    let mut nodes = vec![ROOT; entries.len()];
    let mut next = 0;
    for (t, m) in moves.iter().enumerate() {
        while next < order.len() && entries[order[next]].1 <= t {
            let i = order[next];
            nodes[i] = places.node(&entries[i].0, t);
            next += 1;
        }
        if next > 0 {
            places.apply(m, t);
        }
    }
    // Positions no move after them is anchored above, which the output does not have as recorded.
    for &i in &order[next..] {
        nodes[i] = places.node(&entries[i].0, moves.len());
    }
    places.placed(&nodes)
}

/// The last `count` tokens of `p`, unescaped, found from its links (its text read only when it
/// was given as text).
fn last_tokens(p: &Pointer, count: usize) -> Vec<String> {
    let mut out = Vec::with_capacity(count);
    let mut at = p;
    while out.len() < count {
        match at.link() {
            Some((parent, token)) => {
                out.push(unescaped(token).into_owned());
                at = parent;
            }
            None => {
                let mut tokens = at.tokens();
                let missing = count - out.len();
                out.extend(tokens.drain(tokens.len().saturating_sub(missing)..).rev());
                break;
            }
        }
    }
    out.reverse();
    out
}
