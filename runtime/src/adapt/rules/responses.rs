//! The OpenAI Responses pre-pass (omp-rules section 6), before strict enforcement.

use serde_json::Value;

use crate::adapt::report::LossKind;
use crate::adapt::tree::{Body, Entry, Key, Keyword, Report, Rule, Slot, Tree};

/// Objects get a `properties` map; a `pattern` with a lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`)
/// is removed (the Responses API rejects it), and `patternProperties` keys with one are folded
/// into `".*"`. Each removal is reported.
#[derive(Clone, Copy, Debug, Default)]
pub struct ResponsesPrepass;

impl Rule for ResponsesPrepass {
    fn name(&self) -> &'static str {
        "responses-prepass"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let root = tree.root;
        tree.walk(|tree, id| {
            let origin = tree.node(id).origin;
            if super::has_type(tree, id, "object") && !tree.has(id, Keyword::Properties) {
                let properties = Entry {
                    key: Key::Kw(Keyword::Properties),
                    value: Slot::Map(Vec::new()),
                    origin,
                };
                tree.set(id, properties);
                // Below the root, an object that declares nothing takes any object: said
                // outright, so that strict mode refuses it rather than close it to `{}` (the
                // root of a tool without parameters is closed as it is).
                const DECIDES: [Keyword; 7] = [
                    Keyword::AdditionalProperties,
                    Keyword::PatternProperties,
                    Keyword::AnyOf,
                    Keyword::OneOf,
                    Keyword::AllOf,
                    Keyword::Ref,
                    Keyword::Not,
                ];
                let any = id != root && !DECIDES.iter().any(|k| tree.has(id, *k));
                if any {
                    let open = tree.add(origin, Body::Bool(true));
                    tree.set(
                        id,
                        Entry {
                            key: Key::Kw(Keyword::AdditionalProperties),
                            value: Slot::Schema(open),
                            origin,
                        },
                    );
                    let detail = "`properties: {}` and `additionalProperties: true` added to an object that declares nothing (it takes the same values)";
                    report.change(origin, Some(id), detail);
                } else {
                    report.change(origin, Some(id), "`properties: {}` added to an object");
                }
            }
            if let Some(Value::String(p)) = tree.value(id, Keyword::Pattern) {
                if has_lookaround(p) {
                    let detail = format!(
                        "`pattern: {p:?}` uses a lookaround, which the Responses API rejects"
                    );
                    let entry = tree.take(id, Keyword::Pattern).expect("there");
                    report.loss(entry.origin, Some(id), "pattern", LossKind::Dropped, detail);
                }
            }
            let Some(entry) = tree.get(id, Keyword::PatternProperties) else {
                return;
            };
            let pp_origin = entry.origin;
            let Slot::Map(members) = &entry.value else {
                return;
            };
            if !members.iter().any(|(k, _)| has_lookaround(k)) {
                return;
            }
            let members = members.clone();
            let (bad, mut kept): (Vec<_>, Vec<_>) =
                members.into_iter().partition(|(k, _)| has_lookaround(k));
            let mut star = (kept.iter().position(|(k, _)| k == ".*")).map(|i| kept.remove(i).1);
            for (key, moved) in bad {
                star = Some(match star {
                    None => moved,
                    Some(existing)
                        if tree.entries(existing).len() == 1
                            && matches!(tree.get(existing, Keyword::AnyOf).map(|e| &e.value), Some(Slot::Schemas(_))) =>
                    {
                        if let Some(Slot::Schemas(branches)) = tree.slot_mut(existing, Keyword::AnyOf) {
                            branches.push(moved);
                        }
                        existing
                    }
                    Some(existing) => {
                        let at = tree.node(existing).origin;
                        let union = Entry {
                            key: Key::Kw(Keyword::AnyOf),
                            value: Slot::Schemas(vec![existing, moved]),
                            origin: at,
                        };
                        tree.add(at, Body::Object(vec![union]))
                    }
                });
                let detail = format!("the key pattern {key:?} uses a lookaround; its schema now applies to every name (`.*`)");
                report.loss(pp_origin, Some(id), "patternProperties", LossKind::Widened, detail);
            }
            kept.extend(star.map(|s| (".*".to_owned(), s)));
            if let Some(Slot::Map(members)) = tree.slot_mut(id, Keyword::PatternProperties) {
                *members = kept;
            }
        });
    }
}

/// A lookaround group not preceded by an odd number of backslashes.
pub(crate) fn has_lookaround(pattern: &str) -> bool {
    let bytes = pattern.as_bytes();
    for (i, window) in bytes.windows(3).enumerate() {
        if window[0] != b'(' || window[1] != b'?' {
            continue;
        }
        let rest = &pattern[i + 2..];
        if !(rest.starts_with('=')
            || rest.starts_with('!')
            || rest.starts_with("<=")
            || rest.starts_with("<!"))
        {
            continue;
        }
        let backslashes = bytes[..i].iter().rev().take_while(|b| **b == b'\\').count();
        if backslashes % 2 == 0 {
            return true;
        }
    }
    false
}
