//! A provider's limits on one request, beside its schema rules: how many tools it takes, how
//! long a tool's description may be (names follow each target's [`super::NameRule`]). Each value
//! is given in its provider's file with its source; a limit known only from the errors users
//! report says so. [`check_request`] checks a whole catalog before anything is sent; `convert`
//! shortens a description over the limit (reported) and the CLI refuses a catalog with more
//! tools than the provider takes.

use serde::Serialize;

use super::{AdaptSettings, Target};
use crate::catalog::Catalog;

/// One limit and where it comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Limit {
    /// The largest value the provider takes.
    pub max: usize,
    /// Where the value comes from: the provider's documentation, or the error users report
    /// (then the text says so).
    pub source: &'static str,
}

/// A provider's limits on one request (not on one schema: those are its rules').
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RequestLimits {
    /// Tools in one request.
    pub tools: Option<Limit>,
    /// Characters of one tool's description.
    pub description: Option<Limit>,
}

impl RequestLimits {
    /// No limit known.
    pub const NONE: RequestLimits = RequestLimits {
        tools: None,
        description: None,
    };
}

impl Target {
    /// This target's request limits (see each provider's file for the sources).
    pub fn request_limits(self) -> RequestLimits {
        use super::providers::{google, openai, xai};
        match self {
            Target::OpenAi | Target::OpenAiStrict => openai::CHAT_LIMITS,
            Target::Gemini | Target::GeminiCompat | Target::GeminiOpenApi => google::LIMITS,
            Target::Xai => xai::LIMITS,
            _ => RequestLimits::NONE,
        }
    }
}

/// A catalog over a request limit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum RequestProblem {
    /// More tools than the provider takes in one request: nothing is sent until some are left
    /// out (`--tools`, `--exclude`, or a smaller catalog).
    TooManyTools {
        /// The tools in the catalog.
        count: usize,
        /// The provider's limit.
        limit: Limit,
    },
    /// A description longer than the provider takes: `convert` shortens it, reported.
    DescriptionTooLong {
        /// The tool.
        tool: String,
        /// Its description's length, in characters.
        chars: usize,
        /// The provider's limit.
        limit: Limit,
    },
}

impl std::fmt::Display for RequestProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestProblem::TooManyTools { count, limit } => write!(
                f,
                "{count} tools; the provider takes at most {} in one request ({}). Choose the tools to send: `--tools GLOB,...` and `--exclude GLOB,...` on the CLI, or a catalog of fewer tools",
                limit.max, limit.source
            ),
            RequestProblem::DescriptionTooLong { tool, chars, limit } => write!(
                f,
                "tool `{tool}`: a description of {chars} characters; the provider takes at most {} ({}); it is shortened when converted, reported",
                limit.max, limit.source
            ),
        }
    }
}

/// What [`check_request`] found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RequestCheck {
    /// The target checked for.
    pub target: Target,
    /// The target's limits.
    pub limits: RequestLimits,
    /// Every limit the catalog is over, in catalog order (the tool count first).
    pub problems: Vec<RequestProblem>,
}

impl RequestCheck {
    /// Whether the request can be sent: nothing is over a limit that converting does not
    /// resolve (a long description is shortened; too many tools is not).
    pub fn can_send(&self) -> bool {
        !self
            .problems
            .iter()
            .any(|p| matches!(p, RequestProblem::TooManyTools { .. }))
    }
}

/// Checks a whole catalog against the target's request limits, before anything is sent.
///
/// ```
/// use serde_json::json;
/// use toolschema::adapt::{RequestProblem, check_request};
/// use toolschema::catalog::Catalog;
/// use toolschema::Target;
///
/// let tools: Vec<_> = (0..130)
///     .map(|i| json!({"name": format!("tool_{i}"), "inputSchema": {"type": "object"}}))
///     .collect();
/// let catalog = Catalog::from_value(json!({"tools": tools})).unwrap();
/// let check = check_request(&catalog, &Target::OpenAiStrict.settings());
/// assert!(!check.can_send());
/// assert!(matches!(
///     check.problems[0],
///     RequestProblem::TooManyTools { count: 130, limit, .. } if limit.max == 128
/// ));
/// ```
pub fn check_request(catalog: &Catalog, settings: &AdaptSettings) -> RequestCheck {
    let limits = settings.target.request_limits();
    let mut problems = Vec::new();
    if let Some(limit) = limits.tools {
        if catalog.tools.len() > limit.max {
            problems.push(RequestProblem::TooManyTools {
                count: catalog.tools.len(),
                limit,
            });
        }
    }
    if let Some(limit) = limits.description {
        for tool in &catalog.tools {
            let chars = tool.description.as_deref().map_or(0, |d| d.chars().count());
            if chars > limit.max {
                problems.push(RequestProblem::DescriptionTooLong {
                    tool: tool.name.clone().unwrap_or_default(),
                    chars,
                    limit,
                });
            }
        }
    }
    RequestCheck {
        target: settings.target,
        limits,
        problems,
    }
}

/// `text` shortened to at most `max` characters: at the end of the last sentence or line that
/// fits when that keeps at least half of `max`, else at the last word boundary; never inside a
/// word unless the text has no boundary before `max` at all. `None` when it fits. The kept text
/// and what was cut.
pub(crate) fn shorten(text: &str, max: usize) -> Option<(String, String)> {
    let chars = text.chars().count();
    if chars <= max {
        return None;
    }
    let end = text.char_indices().nth(max).map_or(text.len(), |(i, _)| i);
    let head = &text[..end];
    // A sentence ends at `.`, `!` or `?` followed by whitespace; a line at a line break.
    let sentence = head
        .char_indices()
        .filter(|(i, c)| {
            *c == '\n'
                || (matches!(c, '.' | '!' | '?')
                    && text[i + c.len_utf8()..]
                        .chars()
                        .next()
                        .is_none_or(char::is_whitespace))
        })
        .map(|(i, c)| if c == '\n' { i } else { i + c.len_utf8() })
        .rfind(|&i| head[..i].chars().count() >= max / 2);
    let word = head
        .char_indices()
        .rfind(|(_, c)| c.is_whitespace())
        .map(|(i, _)| i);
    let cut = sentence.or(word).filter(|&i| i > 0).unwrap_or(end);
    let kept = text[..cut].trim_end().to_owned();
    let rest = text[cut..].trim_start().to_owned();
    Some((kept, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_description_is_cut_after_a_sentence_else_a_word() {
        let text = "Reads a file. Returns its text. Large files are refused.";
        assert_eq!(
            shorten(text, 40),
            Some((
                "Reads a file. Returns its text.".to_owned(),
                "Large files are refused.".to_owned()
            ))
        );
        let words = "one two three four";
        assert_eq!(
            shorten(words, 10),
            Some(("one two".to_owned(), "three four".to_owned()))
        );
        // Never inside a word, but for one without any boundary; never inside a character.
        assert_eq!(
            shorten("ééééé", 3),
            Some(("ééé".to_owned(), "éé".to_owned()))
        );
        assert_eq!(shorten("short", 10), None);
        // A sentence that keeps less than half of what fits gives way to a word boundary.
        assert_eq!(
            shorten("Short. then many more words here", 24),
            Some(("Short. then many more".to_owned(), "words here".to_owned()))
        );
        // A line break is a boundary as a sentence's end is.
        assert_eq!(
            shorten("Use it for:\n- reading files\n- writing them", 32),
            Some((
                "Use it for:\n- reading files".to_owned(),
                "- writing them".to_owned()
            ))
        );
        // A version number is not a sentence's end.
        assert_eq!(
            shorten("Use v1.2 of the API now please", 12),
            Some(("Use v1.2 of".to_owned(), "the API now please".to_owned()))
        );
    }
}
