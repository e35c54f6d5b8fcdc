//! Rust types covering every serde representation and the std types schemars supports; their
//! schemars output (computed here, never stored by hand) is a fixture catalog for the adapters.
//! Some are structural unions on purpose: adapters must handle any schema, not only safe ones.

use std::collections::{BTreeMap, HashMap, HashSet};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use toolschema::catalog::{Catalog, Layout, Tool};

#[derive(Deserialize, JsonSchema)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// Externally tagged, unit and data variants.
#[derive(Deserialize, JsonSchema)]
pub enum External {
    /// Nothing.
    Empty,
    Circle {
        radius: f64,
    },
    At(Point),
    Pair(i32, i32),
}

/// Internally tagged.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Internal {
    Start,
    Move { to: Point },
    Wrapped(Point),
}

/// Adjacently tagged.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "t", content = "c")]
pub enum Adjacent {
    Text(String),
    Count(u32),
}

/// Untagged, scalars and one structure.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Untagged {
    Name(String),
    Id(u64),
    Point(Point),
}

/// A documented unit enum.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Quick and shallow.
    Fast,
    /// Slow and thorough.
    Deep,
}

#[derive(Deserialize, JsonSchema)]
pub struct Node {
    pub name: String,
    pub children: Vec<Node>,
}

#[derive(Deserialize, JsonSchema)]
pub struct Common {
    pub dry_run: bool,
}

fn default_limit() -> u32 {
    20
}

/// Every std type and field attribute in one tool.
#[derive(Deserialize, JsonSchema)]
pub struct Everything {
    /// A documented string with a pattern.
    #[schemars(regex(pattern = r"^[a-z]+$"), length(min = 1, max = 40))]
    pub name: String,
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = 100))]
    pub limit: u32,
    pub ratio: Option<f32>,
    pub flags: HashSet<String>,
    pub labels: HashMap<String, String>,
    pub scores: BTreeMap<String, Vec<i64>>,
    pub pair: (String, u8),
    pub fixed: [u16; 3],
    pub any: Value,
    pub mode: Mode,
    pub maybe_mode: Option<Mode>,
    pub external: External,
    pub internal: Internal,
    pub adjacent: Adjacent,
    pub untagged: Untagged,
    pub tree: Node,
    pub when: chrono::DateTime<chrono::Utc>,
    pub id: uuid::Uuid,
    #[serde(flatten)]
    pub common: Common,
    #[serde(skip)]
    pub internal_only: u8,
}

/// `deny_unknown_fields` with `flatten`: schemars emits `unevaluatedProperties: false`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Strictish {
    pub id: String,
    #[serde(flatten)]
    pub common: Common,
}

/// Optional and defaulted fields only.
#[derive(Deserialize, JsonSchema)]
pub struct Optionals {
    pub a: Option<String>,
    #[serde(default)]
    pub b: bool,
    pub c: Option<Vec<Point>>,
    pub d: Option<Untagged>,
}

/// Tuples (schemars: `prefixItems` with `minItems`/`maxItems`) and a documented reference to a
/// constrained type, in a tool every strict mode can represent: the shapes of issue 10 (1, 2).
#[derive(Deserialize, JsonSchema)]
pub struct Route {
    /// Where the route starts.
    pub start: (f32, f32),
    /// A label and its rank: positions of different types.
    pub label: (String, u32),
    /// The port to use.
    pub port: Port,
}

/// A port number.
#[derive(Deserialize, JsonSchema)]
pub struct Port {
    /// The number.
    #[schemars(range(min = 1, max = 65535))]
    pub number: u32,
}

fn tool<T: JsonSchema>(name: &str) -> Tool {
    Tool {
        name: Some(name.to_owned()),
        description: Some(format!("fixture {name}")),
        schema: schemars::schema_for!(T).to_value(),
        allowed_unions: Vec::new(),
    }
}

/// The fixture types as a catalog, in a fixed order.
pub fn catalog() -> Catalog {
    Catalog {
        layout: Layout::ToolArray,
        tools: vec![
            tool::<Everything>("everything"),
            tool::<Strictish>("strictish"),
            tool::<Optionals>("optionals"),
            tool::<Node>("tree"),
            tool::<External>("external_enum_root"),
            tool::<Point>("point"),
            tool::<Route>("route"),
        ],
    }
}
