//! The direct-API toolset (`toolschema::toolset`) and honest composition of custom settings:
//! `strict: true` only for a written schema the provider's strict mode accepts, unknown rule
//! names refused, every call restored through the adaptation its request used.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolschema::adapt::rules::{Keyword, Report, Rule, Tree};
use toolschema::adapt::{AdaptSettings, LossKind};
use toolschema::toolset::{CallError, Toolset};
use toolschema::{Target, ToolParams};

/// Book a room.
#[derive(Debug, Deserialize, JsonSchema, ToolParams, PartialEq)]
struct Book {
    /// The room.
    #[schemars(length(max = 8))]
    room: String,
    /// How many people.
    #[schemars(range(max = 12))]
    people: u32,
    /// A note for the front desk.
    note: Option<String>,
}

#[derive(Debug, PartialEq)]
enum Action {
    Book(Book),
}

fn tools() -> Toolset<Action> {
    Toolset::new().tool("book_room", "Book a room.", Action::Book)
}

/// Takes `maxLength` out everywhere, as a caller's rule would (a provider that refuses it).
#[derive(Clone)]
struct NoMaxLength;

impl Rule for NoMaxLength {
    fn name(&self) -> &'static str {
        "no-max-length"
    }
    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        tree.walk(|tree, id| {
            if let Some(entry) = tree.take(id, Keyword::MaxLength) {
                let why = "the test's provider refuses it";
                report.loss(entry.origin, Some(id), "maxLength", LossKind::Dropped, why);
            }
        });
    }
}

#[test]
fn a_composition_that_leaves_a_refused_keyword_fails_open_with_the_reason() {
    let schema = Book::published_schema();
    // The keyword strip taken out: `format: "uint32"` (schemars') stays, which OpenAI strict
    // refuses, so the tool is sent non-strict and says why.
    let settings = AdaptSettings::openai_strict()
        .without_rule("strip-non-structural")
        .unwrap();
    let adapted = settings.adapt(&schema);
    assert_eq!(adapted.strict, Some(false), "{:#?}", adapted.losses);
    let reason = &adapted.losses[0];
    assert_eq!(
        (reason.keyword.as_ref(), reason.kind),
        ("strict", LossKind::Fallback)
    );
    // The first refused keyword in the written schema, named with its place.
    assert!(
        reason
            .detail
            .contains("`maxLength: 8` at `/properties/room`")
            && reason.detail.contains("not accepted by OpenAI strict mode"),
        "{}",
        reason.detail
    );
    assert_eq!(adapted.schema["properties"]["people"]["format"], "uint32");
    // A kept keyword the provider refuses does the same; one it takes keeps strict.
    let kept = AdaptSettings::openai_strict().keep_keyword("maxLength");
    let adapted = kept.adapt(&schema);
    assert_eq!(adapted.strict, Some(false));
    assert!(
        adapted.losses[0].detail.contains("`maxLength: 8`"),
        "{:#?}",
        adapted.losses
    );
    let kept = AdaptSettings::openai_strict().keep_keyword("maximum");
    assert_eq!(kept.adapt(&schema).strict, Some(true));
    // Anthropic strict: the same promise.
    let anthropic = AdaptSettings::anthropic_strict().keep_keyword("maximum");
    let adapted = anthropic.adapt(&schema);
    assert_eq!(adapted.strict, Some(false));
    assert!(
        adapted.losses[0]
            .detail
            .contains("not accepted by Anthropic strict mode"),
        "{}",
        adapted.losses[0].detail
    );
    // The defaults pass their own check.
    for target in [
        Target::OpenAiStrict,
        Target::OpenAiResponses,
        Target::DeepSeekStrict,
        Target::AnthropicStrict,
    ] {
        assert_eq!(target.adapt(&schema).strict, Some(true), "{target}");
    }
}

#[test]
fn removing_a_rule_that_is_not_there_is_an_error() {
    let err = AdaptSettings::openai_strict()
        .without_rule("strip-non-structral")
        .unwrap_err();
    assert_eq!(err.name, "strip-non-structral");
    assert!(err.known.contains(&"strip-non-structural"));
    assert!(
        err.to_string()
            .contains("no rule named `strip-non-structral` in openai-strict")
    );
    // A rule the target has only with encoding on, or the caller's own, can be removed.
    assert!(
        AdaptSettings::openai_strict()
            .without_rule("encode-maps")
            .is_ok()
    );
    let custom = AdaptSettings::openai().with_rule(NoMaxLength);
    assert!(custom.without_rule("no-max-length").is_ok());
}

#[test]
fn a_call_is_restored_through_the_adaptation_its_request_used() {
    let tools = tools();
    // The caller's rule drops `maxLength`: the provider no longer enforces it, the call does.
    let settings = AdaptSettings::openai().with_rule(NoMaxLength);
    let request = tools.request_with(&settings);
    let sent = &request.declarations()[0]["function"]["parameters"]["properties"]["room"];
    assert!(sent.get("maxLength").is_none(), "{sent}");
    let err = request
        .call("book_room", json!({"room": "Boardroom 7", "people": 3}))
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("/room must be at most 8 characters"),
        "{err}"
    );
    let ok = request
        .call("book_room", json!({"room": "B7", "people": 3}))
        .unwrap();
    assert_eq!(
        ok,
        Action::Book(Book {
            room: "B7".into(),
            people: 3,
            note: None
        })
    );
    // Strict: the optional note came back as null, which means "not given".
    let strict = tools.request(Target::OpenAiStrict);
    let ok = strict
        .call("book_room", r#"{"room": "B7", "people": 3, "note": null}"#)
        .unwrap();
    assert!(matches!(ok, Action::Book(Book { note: None, .. })));
}

#[test]
fn arguments_as_text_get_the_same_answer_as_the_value() {
    let tools = tools();
    let request = tools.request(Target::OpenAiStrict);
    let value = json!({"room": "B7", "people": "three", "note": null});
    let from_value = request.call("book_room", value.clone()).unwrap_err();
    let from_text = request.call("book_room", value.to_string()).unwrap_err();
    assert_eq!(from_value.to_string(), from_text.to_string());
    assert!(
        from_text.to_string().contains("/people must be"),
        "{from_text}"
    );
    // Text that is not JSON, and a tool that is not there: words the model can act on.
    let broken = request.call("book_room", r#"{"room": "B7""#).unwrap_err();
    assert!(
        broken
            .to_string()
            .contains("must be a JSON object written as JSON text"),
        "{broken}"
    );
    let unknown = request.call("book", json!({})).unwrap_err();
    assert!(matches!(unknown, CallError::UnknownTool { .. }));
    assert_eq!(
        unknown.to_string(),
        "There is no tool named `book`. Call one of: book_room."
    );
}

#[test]
fn each_provider_gets_its_tools_where_its_request_takes_them() {
    let tools = tools();
    let body = |target: Target| tools.request(target).body();
    assert_eq!(
        body(Target::OpenAiStrict)["tools"][0]["function"]["name"],
        "book_room"
    );
    assert_eq!(
        body(Target::OpenAiResponses)["tools"][0]["name"],
        "book_room"
    );
    assert_eq!(
        body(Target::Anthropic)["tools"][0]["input_schema"]["type"],
        "object"
    );
    assert_eq!(
        body(Target::Gemini)["tools"][0]["functionDeclarations"][0]["name"],
        "book_room"
    );
    assert_eq!(
        body(Target::Bedrock)["toolConfig"]["tools"][0]["toolSpec"]["name"],
        "book_room"
    );
    assert_eq!(
        body(Target::Mcp)["tools"][0]["inputSchema"]["type"],
        "object"
    );
    // No target sends the type's name; the doc comment that repeats the description is sent once.
    for &target in Target::ALL {
        let request = tools.request(target);
        let text = request.declarations().to_string();
        assert!(!text.contains("\"Book\""), "{target}: {text}");
        assert_eq!(text.matches("Book a room.").count(), 1, "{target}: {text}");
        // Named in the report: the title as an annotation; the repeated description as one,
        // or as a loss where the target sends no root description at all (Ollama).
        let report = &request.report().tools[0];
        let notes = &report.annotations;
        let description_lost = (report.losses.iter()).any(|l| l.pointer.as_str() == "/description");
        assert!(
            notes.iter().any(|c| c.rule == "remove-root-title")
                && (description_lost || notes.iter().any(|c| c.rule == "repeated-description")),
            "{target}: {notes:#?}"
        );
    }
}

/// A direct-API request checks the provider's request limits too: 130 tools are more than OpenAI
/// takes, within Anthropic's (none documented).
#[test]
fn a_request_says_when_it_is_over_the_provider_tool_limit() {
    #[derive(Deserialize, JsonSchema, ToolParams)]
    struct Q {
        q: String,
    }
    let mut set = Toolset::new();
    for i in 0..130 {
        set = set.tool(&format!("tool_{i}"), "A tool.", |q: Q| q.q);
    }
    let openai = set.request(Target::OpenAiStrict).limits();
    assert!(!openai.can_send());
    assert!(openai.problems[0].to_string().contains("130 tools"));
    assert!(set.request(Target::Anthropic).limits().can_send());
}
