//! The derives check a field whose type is named like one toolschema supports behind a feature
//! (`Uuid`, `DateTime`, `Url`, `IndexMap`, ...) through one of these traits instead of
//! [`ProviderSafe`] directly: each is implemented for every `ProviderSafe` type, so nothing
//! changes when the type has an impl (the feature is on, or it is the user's own type of that
//! name), and without one the error names the feature that gives it one. Not public API.

use crate::traits::{AllowedUnions, ProviderSafe};

macro_rules! hint {
    ($(#[$attr:meta])* $name:ident) => {
        $(#[$attr])*
        pub trait $name {
            /// [`ProviderSafe::__FIELD_OK`].
            const FIELD_OK: bool;
            /// [`ProviderSafe::NESTED_OK`].
            const NESTED_OK: bool;
            /// [`ProviderSafe::visit_allowed_unions`].
            fn visit_allowed_unions(visitor: &mut AllowedUnions);
        }

        impl<T: ProviderSafe> $name for T {
            const FIELD_OK: bool = T::__FIELD_OK;
            const NESTED_OK: bool = T::NESTED_OK;
            fn visit_allowed_unions(visitor: &mut AllowedUnions) {
                T::visit_allowed_unions(visitor)
            }
        }
    };
}

hint!(
    /// A `ProviderSafe` type, checked through this trait for its error's words (see the module).
    #[diagnostic::on_unimplemented(
        message = "`{Self}` has no provider-safe schema unless toolschema's feature `uuid1` is on",
        label = "`{Self}` does not implement `ProviderSafe`",
        note = "toolschema implements `ProviderSafe` for `uuid::Uuid` with its feature `uuid1`: `toolschema = {{ version = \"0.1\", features = [\"uuid1\"] }}`",
        note = "if `{Self}` is a type of your own, add `#[derive(ProviderSafe)]` next to `#[derive(Deserialize, JsonSchema)]` on it; for another foreign type, put `#[schemars(with = \"T\")]` on the field, with a type `T` that implements `ProviderSafe` and has the same schema"
    )]
    Uuid1
);

hint!(
    /// A `ProviderSafe` type, checked through this trait for its error's words (see the module).
    #[diagnostic::on_unimplemented(
        message = "`{Self}` has no provider-safe schema unless toolschema's feature `chrono04` is on",
        label = "`{Self}` does not implement `ProviderSafe`",
        note = "toolschema implements `ProviderSafe` for `chrono::DateTime<Tz>`, `NaiveDate`, `NaiveDateTime`, `NaiveTime`, `Weekday` and `TimeDelta` with its feature `chrono04`: `toolschema = {{ version = \"0.1\", features = [\"chrono04\"] }}`",
        note = "if `{Self}` is a type of your own, add `#[derive(ProviderSafe)]` next to `#[derive(Deserialize, JsonSchema)]` on it; for another foreign type, put `#[schemars(with = \"T\")]` on the field, with a type `T` that implements `ProviderSafe` and has the same schema"
    )]
    Chrono04
);

hint!(
    /// A `ProviderSafe` type, checked through this trait for its error's words (see the module).
    #[diagnostic::on_unimplemented(
        message = "`{Self}` has no provider-safe schema unless toolschema's feature `url2` is on",
        label = "`{Self}` does not implement `ProviderSafe`",
        note = "toolschema implements `ProviderSafe` for `url::Url` with its feature `url2`: `toolschema = {{ version = \"0.1\", features = [\"url2\"] }}`",
        note = "if `{Self}` is a type of your own, add `#[derive(ProviderSafe)]` next to `#[derive(Deserialize, JsonSchema)]` on it; for another foreign type, put `#[schemars(with = \"T\")]` on the field, with a type `T` that implements `ProviderSafe` and has the same schema"
    )]
    Url2
);

hint!(
    /// A `ProviderSafe` type, checked through this trait for its error's words (see the module).
    #[diagnostic::on_unimplemented(
        message = "`{Self}` has no provider-safe schema unless toolschema's feature `indexmap2` is on",
        label = "`{Self}` does not implement `ProviderSafe`",
        note = "toolschema implements `ProviderSafe` for `indexmap::IndexMap` and `IndexSet` with its feature `indexmap2`: `toolschema = {{ version = \"0.1\", features = [\"indexmap2\"] }}`",
        note = "if `{Self}` is a type of your own, add `#[derive(ProviderSafe)]` next to `#[derive(Deserialize, JsonSchema)]` on it; for another foreign type, put `#[schemars(with = \"T\")]` on the field, with a type `T` that implements `ProviderSafe` and has the same schema"
    )]
    Indexmap2
);

/// A field type's [`ProviderSafe::visit_allowed_unions`] for the derive's list of children, that
/// never fails to compile: `Visit::<T>::VISIT` is `T`'s visit when `T: ProviderSafe`, and a
/// no-op otherwise (an inherent constant with a bound beats a trait's, which applies to every
/// type). The derive uses it only where the field's own check names the same type, so a missing
/// impl is still an error, and one error: rustc counts an identical error at one span twice
/// although it prints it once ("due to 2 previous errors" for one field).
pub struct Visit<T: ?Sized>(core::marker::PhantomData<T>);

impl<T: ?Sized + ProviderSafe> Visit<T> {
    /// `T`'s visit.
    pub const VISIT: fn(&mut AllowedUnions) = T::visit_allowed_unions;
}

/// The fallback of [`Visit`] for a type without `ProviderSafe` (its field check fails instead).
pub trait NoVisit {
    /// Nothing to visit.
    const VISIT: fn(&mut AllowedUnions) = |_| {};
}

impl<T: ?Sized> NoVisit for Visit<T> {}
