//! Arguments back from the model, for every target: values generated from the *adapted* schema
//! (as a model would send them) go through `from_args`, which must return the value the
//! original schema means or an `ArgsError`, never a value the original schema rejects.

mod support;

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolschema::{ProviderSafe, Target, ToolParams};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, ProviderSafe)]
#[serde(rename_all = "snake_case")]
enum Mode {
    Fast,
    Deep,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, ProviderSafe)]
struct Filter {
    field: String,
    value: Option<i64>,
}

/// Optional and defaulted fields, a unit enum, a nested optional struct, a length limit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, ToolParams)]
struct Search {
    #[schemars(length(max = 8))]
    query: String,
    #[serde(default)]
    limit: u32,
    tags: Option<Vec<String>>,
    mode: Mode,
    filter: Option<Filter>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, ProviderSafe)]
struct Item {
    id: u32,
    label: Option<String>,
}

/// A pattern, a numeric range, an array of structs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, ToolParams)]
struct Configure {
    #[schemars(regex(pattern = r"^[a-z]+$"))]
    name: String,
    #[schemars(range(min = 1, max = 5))]
    retries: u8,
    items: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Id {
    Name(String),
    Num(i64),
}

/// Scalars and a scalar union.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, ToolParams)]
struct Lookup {
    id: Id,
    exact: bool,
    #[serde(default)]
    ratio: Option<f64>,
}

fn original_accepts<T: ToolParams + Serialize>(value: &T) -> bool {
    let schema = T::published_schema();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    validator.is_valid(&serde_json::to_value(value).unwrap())
}

/// Runs the property for one type and target; returns (accepted, rejected).
fn property<T>(target: Target, cases: u32) -> (u32, u32)
where
    T: ToolParams + Serialize + std::fmt::Debug + 'static,
{
    let adapted = T::schema_for(target);
    let strategy = support::generate::strategy(&adapted.schema, &adapted.schema, 4);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let counts = std::cell::Cell::new((0u32, 0u32));
    runner
        .run(&strategy, |args| {
            match T::from_args(target, args.clone()) {
                Ok(value) => {
                    prop_assert!(
                        original_accepts(&value),
                        "{target}: {args} became {value:?}, which the original schema rejects"
                    );
                    counts.set((counts.get().0 + 1, counts.get().1));
                }
                Err(e) => {
                    prop_assert!(
                        !e.problems.is_empty(),
                        "{target}: an error without problems"
                    );
                    counts.set((counts.get().0, counts.get().1 + 1));
                }
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    counts.get()
}

#[test]
fn model_shaped_arguments_never_become_wrong_values() {
    let mut table: BTreeMap<(&str, &str), (u32, u32)> = BTreeMap::new();
    for &target in Target::ALL {
        table.insert((target.as_str(), "Search"), property::<Search>(target, 64));
        table.insert(
            (target.as_str(), "Configure"),
            property::<Configure>(target, 64),
        );
        table.insert((target.as_str(), "Lookup"), property::<Lookup>(target, 64));
    }
    for ((target, ty), (ok, rejected)) in &table {
        println!("{target:18} {ty:10} accepted {ok:3} rejected {rejected:3}");
    }
    // Where the provider still enforces every constraint, what a model sends is always usable:
    // nothing may be rejected. (Elsewhere rejections are the lossy cases: constraints the
    // provider no longer enforces, caught here instead of being stored.)
    for target in ["mcp", "openai", "anthropic"] {
        for ty in ["Search", "Configure", "Lookup"] {
            assert_eq!(
                table[&(target, ty)].1,
                0,
                "{target}/{ty}: a model-shaped value was rejected"
            );
        }
    }
    for ((target, ty), (ok, rejected)) in &table {
        assert_eq!(ok + rejected, 64, "{target}/{ty}");
    }
}

#[test]
fn serde_default_field_sent_as_null_gets_its_default() {
    for &target in Target::ALL {
        let args =
            json!({"query": "rust", "limit": null, "tags": null, "mode": "fast", "filter": null});
        let s = Search::from_args(target, args).unwrap_or_else(|e| panic!("{target}: {e}"));
        assert_eq!(s.limit, 0, "{target}");
        assert_eq!(s.tags, None, "{target}");
    }
}

#[test]
fn option_field_absent_or_null_is_none() {
    for &target in Target::ALL {
        let absent = Search::from_args(target, json!({"query": "a", "mode": "deep"}))
            .unwrap_or_else(|e| panic!("{target}: {e}"));
        assert_eq!(absent.filter, None);
        let nested = Search::from_args(
            target,
            json!({"query": "a", "mode": "deep", "filter": {"field": "x", "value": null}}),
        )
        .unwrap();
        assert_eq!(
            nested.filter,
            Some(Filter {
                field: "x".into(),
                value: None
            }),
            "{target}"
        );
    }
}

#[test]
fn constraints_the_provider_dropped_are_reimposed() {
    // Anthropic strict spills `maxLength`; Gemini spills `pattern`: the provider enforces
    // neither, so the restore step must.
    let too_long = json!({"query": "far too long", "mode": "fast"});
    let err = Search::from_args(Target::AnthropicStrict, too_long).unwrap_err();
    assert_eq!(err.problems[0].pointer, "/query");
    assert!(err.to_string().contains("far too long"), "{err}");
    let bad_name = json!({"name": "Not-Lowercase", "retries": 3, "items": []});
    let err = Configure::from_args(Target::Gemini, bad_name).unwrap_err();
    assert_eq!(err.problems[0].pointer, "/name");
    let out_of_range = json!({"name": "ok", "retries": 9, "items": []});
    for &target in Target::ALL {
        assert!(
            Configure::from_args(target, out_of_range.clone()).is_err(),
            "{target}"
        );
    }
}

#[test]
fn cca_optional_nullable_comes_back() {
    // Cloud Code Assist made `value` optional (it was nullable and required).
    let f: Value = json!({"query": "q", "mode": "fast", "filter": {"field": "f"}});
    let s = Search::from_args(Target::CcaClaude, f).unwrap();
    assert_eq!(s.filter.unwrap().value, None);
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, ProviderSafe)]
#[serde(rename_all = "snake_case")]
enum Status {
    Open,
    InProgress,
    Done,
}

/// An optional enum, as the newcomer's task tracker has it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, ToolParams)]
struct SetStatus {
    id: u32,
    status: Option<Status>,
}

/// A value outside an optional enum is refused with the values named, as a plain enum's is, on
/// every target (issue 49: "must match one of the allowed forms" named nothing).
#[test]
fn an_optional_enum_names_its_values_when_it_refuses_one() {
    for &target in Target::ALL {
        let error = SetStatus::from_args(target, json!({"id": 1, "status": "closed"}))
            .expect_err("closed is not a status");
        let text = error.to_string();
        assert!(
            text.contains(
                "/status must be one of \"open\", \"in_progress\", \"done\", or null; got the string \"closed\""
            ),
            "{target}: {text}"
        );
    }
}
