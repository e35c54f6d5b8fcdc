//! `ProviderSafe` for the standard types schemars supports, each with the shape schemars gives it.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use schemars::JsonSchema;

use crate::{AllowedUnions, ProviderSafe, Shape, StringKey};

/// Whether a value of type `T` may sit in a property, an item or a map value: its own top level
/// is contract-safe and so is everything below it.
pub const fn field_ok<T: ProviderSafe + ?Sized>() -> bool {
    T::SHAPE.is_contract_safe() && T::NESTED_OK
}

/// The derives' compile-time checks: `const _: () = require(<T as ProviderSafe>::__FIELD_OK,
/// "...")` at the span of the field or variant. The panic and its formatting live here, compiled
/// once, instead of an `assert!` (and its `format_args!`) in every generated item; with
/// `#[track_caller]` the compiler reports a failure at the generated item, in the same words.
#[track_caller]
pub const fn require(ok: bool, message: &'static str) {
    if !ok {
        panic!("{}", message)
    }
}

macro_rules! leaf {
    ($shape:expr => $($ty:ty),+ $(,)?) => {
        $(impl ProviderSafe for $ty {
            const SHAPE: Shape = $shape;
        })+
    };
}

leaf!(Shape::SCALAR =>
    bool, char, String, str,
    i8, i16, i32, i64, i128, isize,
    u8, u16, u32, u64, u128, usize,
    f32, f64,
    std::num::NonZeroI8, std::num::NonZeroI16, std::num::NonZeroI32, std::num::NonZeroI64,
    std::num::NonZeroU8, std::num::NonZeroU16, std::num::NonZeroU32, std::num::NonZeroU64,
    std::num::NonZeroUsize, std::num::NonZeroIsize,
    std::path::PathBuf, std::net::IpAddr, std::net::Ipv4Addr, std::net::Ipv6Addr,
    std::net::SocketAddr,
);
leaf!(Shape::NULL => ());
leaf!(Shape::ANY => serde_json::Value);
leaf!(Shape::OBJECT => serde_json::Map<String, serde_json::Value>);
// schemars publishes `Duration` and `SystemTime` as objects of `secs`/`nanos`.
leaf!(Shape::OBJECT => std::time::Duration, std::time::SystemTime);

impl StringKey for String {}
impl StringKey for str {}
impl StringKey for Box<str> {}
impl StringKey for Rc<str> {}
impl StringKey for Arc<str> {}
impl StringKey for Cow<'_, str> {}

impl<'a, T> ProviderSafe for Cow<'a, T>
where
    T: ToOwned + ProviderSafe + ?Sized,
    Cow<'a, T>: JsonSchema,
{
    const SHAPE: Shape = T::SHAPE;
    const NESTED_OK: bool = T::NESTED_OK;
    fn visit_allowed_unions(v: &mut AllowedUnions) {
        T::visit_allowed_unions(v)
    }
}

impl<T: ProviderSafe> ProviderSafe for Option<T> {
    const SHAPE: Shape = T::SHAPE.or_null();
    const NESTED_OK: bool = T::NESTED_OK;
    fn visit_allowed_unions(v: &mut AllowedUnions) {
        T::visit_allowed_unions(v)
    }
}

/// Pointer types publish their target's schema unchanged.
macro_rules! forward {
    ($($ptr:ident),+) => {
        $(impl<T: ProviderSafe + ?Sized> ProviderSafe for $ptr<T> where $ptr<T>: JsonSchema {
            const SHAPE: Shape = T::SHAPE;
            const NESTED_OK: bool = T::NESTED_OK;
            fn visit_allowed_unions(v: &mut AllowedUnions) {
                T::visit_allowed_unions(v)
            }
        })+
    };
}
forward!(Box, Rc, Arc);

/// Sequences publish an array whose items are `T`.
macro_rules! sequence {
    ($($seq:ident),+) => {
        $(impl<T: ProviderSafe> ProviderSafe for $seq<T> where $seq<T>: JsonSchema {
            const SHAPE: Shape = Shape::ARRAY;
            const NESTED_OK: bool = field_ok::<T>();
            fn visit_allowed_unions(v: &mut AllowedUnions) {
                T::visit_allowed_unions(v)
            }
        })+
    };
}
sequence!(Vec, VecDeque, BTreeSet);

impl<T: ProviderSafe, S> ProviderSafe for HashSet<T, S>
where
    HashSet<T, S>: JsonSchema,
{
    const SHAPE: Shape = Shape::ARRAY;
    const NESTED_OK: bool = field_ok::<T>();
    fn visit_allowed_unions(v: &mut AllowedUnions) {
        T::visit_allowed_unions(v)
    }
}

impl<T: ProviderSafe> ProviderSafe for [T]
where
    [T]: JsonSchema,
{
    const SHAPE: Shape = Shape::ARRAY;
    const NESTED_OK: bool = field_ok::<T>();
    fn visit_allowed_unions(v: &mut AllowedUnions) {
        T::visit_allowed_unions(v)
    }
}

impl<T: ProviderSafe, const N: usize> ProviderSafe for [T; N]
where
    [T; N]: JsonSchema,
{
    const SHAPE: Shape = Shape::ARRAY;
    const NESTED_OK: bool = field_ok::<T>();
    fn visit_allowed_unions(v: &mut AllowedUnions) {
        T::visit_allowed_unions(v)
    }
}

impl<K: StringKey, V: ProviderSafe, S> ProviderSafe for HashMap<K, V, S>
where
    HashMap<K, V, S>: JsonSchema,
{
    const SHAPE: Shape = Shape::OBJECT;
    const NESTED_OK: bool = field_ok::<V>();
    fn visit_allowed_unions(v: &mut AllowedUnions) {
        V::visit_allowed_unions(v)
    }
}

impl<K: StringKey, V: ProviderSafe> ProviderSafe for BTreeMap<K, V>
where
    BTreeMap<K, V>: JsonSchema,
{
    const SHAPE: Shape = Shape::OBJECT;
    const NESTED_OK: bool = field_ok::<V>();
    fn visit_allowed_unions(v: &mut AllowedUnions) {
        V::visit_allowed_unions(v)
    }
}

/// Tuples publish an array with `prefixItems`.
macro_rules! tuple {
    ($($name:ident),+) => {
        impl<$($name: ProviderSafe),+> ProviderSafe for ($($name,)+) {
            const SHAPE: Shape = Shape::ARRAY;
            const NESTED_OK: bool = true $(&& field_ok::<$name>())+;
            fn visit_allowed_unions(v: &mut AllowedUnions) {
                $($name::visit_allowed_unions(v);)+
            }
        }
    };
}
tuple!(A);
tuple!(A, B);
tuple!(A, B, C);
tuple!(A, B, C, D);
tuple!(A, B, C, D, E);
tuple!(A, B, C, D, E, F);
tuple!(A, B, C, D, E, F, G);
tuple!(A, B, C, D, E, F, G, H);

#[cfg(feature = "chrono04")]
mod chrono04 {
    use super::*;
    use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, TimeZone};

    leaf!(Shape::SCALAR => NaiveDate, NaiveDateTime, NaiveTime, chrono::Weekday);
    // schemars publishes `TimeDelta` as a two-element array (seconds, nanoseconds).
    leaf!(Shape::ARRAY => chrono::TimeDelta);

    impl<Tz: TimeZone> ProviderSafe for DateTime<Tz>
    where
        DateTime<Tz>: JsonSchema,
    {
        const SHAPE: Shape = Shape::SCALAR;
    }
}

#[cfg(feature = "uuid1")]
mod uuid1 {
    use super::*;
    leaf!(Shape::SCALAR => uuid::Uuid);
    impl StringKey for uuid::Uuid {}
}

#[cfg(feature = "url2")]
mod url2 {
    use super::*;
    leaf!(Shape::SCALAR => url::Url);
}

#[cfg(feature = "indexmap2")]
mod indexmap2 {
    use super::*;
    use indexmap::{IndexMap, IndexSet};

    impl<K: StringKey, V: ProviderSafe, S> ProviderSafe for IndexMap<K, V, S>
    where
        IndexMap<K, V, S>: JsonSchema,
    {
        const SHAPE: Shape = Shape::OBJECT;
        const NESTED_OK: bool = field_ok::<V>();
        fn visit_allowed_unions(v: &mut AllowedUnions) {
            V::visit_allowed_unions(v)
        }
    }

    impl<T: ProviderSafe, S> ProviderSafe for IndexSet<T, S>
    where
        IndexSet<T, S>: JsonSchema,
    {
        const SHAPE: Shape = Shape::ARRAY;
        const NESTED_OK: bool = field_ok::<T>();
        fn visit_allowed_unions(v: &mut AllowedUnions) {
            T::visit_allowed_unions(v)
        }
    }
}
