//! The two traits the derives implement, and the record of deliberately allowed unions.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::Shape;

/// A type whose JSON Schema is known to respect the published-schema contract: no `anyOf`/`oneOf`
/// with more than one object- or array-typed branch, at any depth (or a union allowed with a
/// reason, see `#[tool_schema(allow_union = "...")]`).
///
/// Derive it with `#[derive(ProviderSafe)]` on every type nested in a tool's parameters; it is
/// implemented here for the standard types schemars supports.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not known to have a provider-safe schema",
    label = "`{Self}` does not implement `ProviderSafe`",
    note = "add `#[derive(ProviderSafe)]` next to `#[derive(Deserialize, JsonSchema)]` on `{Self}`",
    note = "for a foreign type, put `#[schemars(with = \"T\")]` on the field, with a type `T` that implements `ProviderSafe` and has the same schema",
    note = "toolschema implements it behind features for `uuid::Uuid` (`uuid1`), chrono's date and time types (`chrono04`), `url::Url` (`url2`) and `indexmap`'s maps and sets (`indexmap2`)"
)]
pub trait ProviderSafe: JsonSchema {
    /// The branches this type's schema offers at its top level.
    const SHAPE: Shape;

    /// No disallowed structural union below the top level (in items, properties, or the values
    /// of maps). Non-generic derived types prove this at their definition and keep `true`;
    /// containers and generic types compute it from their parameters.
    const NESTED_OK: bool = true;

    /// What the derives check for a field of this type: its own top level is contract-safe and so
    /// is everything below it (`SHAPE.is_contract_safe() && NESTED_OK`). One projection per field
    /// keeps the generated code small; not meant to be overridden.
    #[doc(hidden)]
    const __FIELD_OK: bool = Self::SHAPE.is_contract_safe() && Self::NESTED_OK;

    /// The reason of `#[tool_schema(allow_union = "...")]` on this type (set by the derive).
    #[doc(hidden)]
    const __ALLOWED: Option<&'static str> = None;

    /// The types below this one that may hold an allowed union, as their visitors (set by the
    /// derive: data, not a function body per type, which costs less to compile).
    #[doc(hidden)]
    const __CHILDREN: &'static [fn(&mut AllowedUnions)] = &[];

    /// Lists the allowed unions reachable from this type, once each (recursion-safe).
    fn visit_allowed_unions(visitor: &mut AllowedUnions) {
        if Self::__ALLOWED.is_none() && Self::__CHILDREN.is_empty() {
            return;
        }
        if visitor.enter(std::any::type_name::<Self>()) {
            if let Some(reason) = Self::__ALLOWED {
                visitor.push(AllowedUnion {
                    rust_type: std::any::type_name::<Self>(),
                    schema_name: <Self as JsonSchema>::schema_name().into_owned(),
                    reason,
                });
            }
            for child in Self::__CHILDREN {
                child(visitor);
            }
        }
    }
}

/// A type that can be a tool's parameters: its schema is an object (the root every provider
/// requires) and it respects the published-schema contract.
///
/// Derive it with `#[derive(ToolParams)]` on a struct with named fields.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's parameters",
    label = "`{Self}` does not implement `ToolParams`",
    note = "a tool's parameters must be an object: use a struct with named fields and `#[derive(Deserialize, JsonSchema, ToolParams)]`"
)]
pub trait ToolParams: ProviderSafe + DeserializeOwned {
    /// The schema a server publishes for these parameters (JSON Schema 2020-12, as schemars and
    /// rmcp generate it).
    fn published_schema() -> serde_json::Value {
        let schema = schemars::SchemaGenerator::default().into_root_schema_for::<Self>();
        schema.to_value()
    }

    /// The published schema adapted for `target`, computed once per type and target and cached.
    fn schema_for(target: crate::Target) -> crate::Adapted<'static>
    where
        Self: 'static,
    {
        use std::any::TypeId;
        use std::collections::HashMap;
        use std::sync::{Arc, Mutex, OnceLock};
        type Cache = Mutex<HashMap<(TypeId, crate::Target), Arc<crate::Adapted<'static>>>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        let key = (TypeId::of::<Self>(), target);
        if let Some(hit) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return (**hit).clone();
        }
        let adapted = Arc::new(target.adapt_owned(Self::published_schema()));
        cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(key)
            .or_insert_with(|| Arc::clone(&adapted));
        (*adapted).clone()
    }

    #[cfg(feature = "validate")]
    /// Arguments a model sent for this tool under `target`, restored (nulls the adaptation
    /// introduced removed, nullables it made optional put back), validated against the published
    /// schema (re-imposing every constraint the provider did not enforce) and deserialized.
    /// The error is worded for the model: send it back as the tool result so it can retry.
    ///
    /// This reads the arguments through the target's *default* settings. A request built with
    /// other settings (`with_rule`, `without_rule`, `keep_keyword`, `with_encoding`) must be
    /// read back through the same adaptation: [`crate::toolset::Request::call`] does it for a
    /// toolset, and [`crate::restore`] with the [`crate::Adapted`] that was sent does it for one
    /// schema (then `serde_json::from_value`).
    fn from_args(target: crate::Target, args: serde_json::Value) -> Result<Self, crate::ArgsError>
    where
        Self: 'static,
    {
        let adapted = Self::schema_for(target);
        crate::args::restore_into(&adapted, args)
    }

    /// The unions allowed in this type's schema with `#[tool_schema(allow_union = "...")]`.
    fn allowed_unions() -> Vec<AllowedUnion> {
        let mut visitor = AllowedUnions::default();
        <Self as ProviderSafe>::visit_allowed_unions(&mut visitor);
        visitor.into_vec()
    }

    /// Checks the published schema against the contract, with this type's allowed unions as the
    /// allow-list: fails on any other structural union, and on an allowed union that no longer
    /// violates. One line per tool in a test: `MyParams::check_contract().unwrap()`.
    fn check_contract() -> Result<(), crate::contract::ContractError> {
        let schema = Self::published_schema();
        let violations = crate::contract::check(&schema);
        let allow =
            crate::contract::AllowList::from_allowed_unions(&Self::allowed_unions(), &violations);
        allow.apply(violations).into_result()
    }
}

/// A union allowed with `#[tool_schema(allow_union = "...")]`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct AllowedUnion {
    /// The Rust type, as `std::any::type_name` spells it.
    pub rust_type: &'static str,
    /// The name schemars gives its definition (`$defs.<name>`).
    pub schema_name: String,
    /// Why it is allowed (with an issue reference).
    pub reason: &'static str,
}

/// Collects [`AllowedUnion`]s while walking a type graph that may be recursive.
#[derive(Debug, Default)]
pub struct AllowedUnions {
    seen: BTreeSet<&'static str>,
    found: Vec<AllowedUnion>,
}

impl AllowedUnions {
    /// Marks a type as visited; `false` if it was already (stop there: recursion).
    pub fn enter(&mut self, rust_type: &'static str) -> bool {
        self.seen.insert(rust_type)
    }

    /// Records an allowed union.
    pub fn push(&mut self, union: AllowedUnion) {
        self.found.push(union);
    }

    /// The unions found, sorted by Rust type.
    pub fn into_vec(mut self) -> Vec<AllowedUnion> {
        self.found.sort();
        self.found.dedup();
        self.found
    }
}

/// The key type of a map whose schema is an object: JSON object keys are strings.
#[diagnostic::on_unimplemented(
    message = "a map keyed by `{Self}` cannot be a tool parameter",
    label = "map keys must be strings",
    note = "JSON object keys are strings: use `String` keys, or a `Vec` of key/value structs"
)]
pub trait StringKey {}
