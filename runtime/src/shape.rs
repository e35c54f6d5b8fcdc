//! The compile-time summary of a type's JSON Schema: which branches its top level offers.
//!
//! A [`Shape`] answers the one question the published-schema contract asks of a union: how many
//! of its branches are *structured* (object- or array-typed). It is computed in `const` context so
//! that an enum whose variants wrap types defined elsewhere can be counted by the compiler.

/// The branches a type's schema offers at its top level.
///
/// A plain struct is one object branch; an untagged enum of `String` and `i64` is two scalar
/// branches; `Option<T>` is `T`'s branches plus `null`. Unions nested in a newtype variant of an
/// untagged enum are flattened into their parent, as JSON Schema validators and degrading clients
/// both see them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    objects: u16,
    arrays: u16,
    scalars: u16,
    any: bool,
    null: bool,
    allowed: bool,
    reported: bool,
    opaque: bool,
}

/// What a [`Shape`] is, in words a person uses for a schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShapeKind {
    /// No branch at all (an enum with no deserializable variant).
    Never,
    /// One string, number, integer or boolean branch.
    Scalar,
    /// One object branch.
    Object,
    /// One array branch.
    Array,
    /// The permissive schema (`true`): any JSON value.
    Any,
    /// Only `null`.
    Null,
    /// More than one branch: `structured` object or array branches, `scalar` others.
    Union {
        /// Object- or array-typed branches.
        structured: u16,
        /// Scalar, permissive or null branches.
        scalar: u16,
    },
}

const fn sat(a: u16, b: u16) -> u16 {
    a.saturating_add(b)
}

impl Shape {
    /// No branch: the identity of [`Shape::union`].
    pub const NEVER: Shape = Shape {
        objects: 0,
        arrays: 0,
        scalars: 0,
        any: false,
        null: false,
        allowed: false,
        reported: false,
        opaque: false,
    };
    /// A string, number, integer or boolean.
    pub const SCALAR: Shape = Shape {
        scalars: 1,
        ..Shape::NEVER
    };
    /// An object.
    pub const OBJECT: Shape = Shape {
        objects: 1,
        ..Shape::NEVER
    };
    /// An array (including tuples, which schemars publishes with `prefixItems`).
    pub const ARRAY: Shape = Shape {
        arrays: 1,
        ..Shape::NEVER
    };
    /// Any JSON value (`serde_json::Value`): no `type`, so never a structured branch.
    pub const ANY: Shape = Shape {
        any: true,
        ..Shape::NEVER
    };
    /// A schema written by hand (a manual `JsonSchema` impl, declared with
    /// `#[tool_schema(opaque)]`): the derive cannot see what it publishes, so it counts as no
    /// structured branch (like [`Shape::ANY`]) and is marked [`Shape::is_opaque`]. The schema is
    /// checked at run time: `Params::check_contract()` in a test.
    pub const OPAQUE: Shape = Shape {
        any: true,
        opaque: true,
        ..Shape::NEVER
    };
    /// `null` (the unit type, unit structs, unit variants of untagged enums).
    pub const NULL: Shape = Shape {
        null: true,
        ..Shape::NEVER
    };

    /// Both shapes' branches, as one union. The result is not marked allowed.
    pub const fn union(self, other: Shape) -> Shape {
        Shape {
            objects: sat(self.objects, other.objects),
            arrays: sat(self.arrays, other.arrays),
            scalars: sat(self.scalars, other.scalars),
            any: self.any || other.any,
            null: self.null || other.null,
            allowed: false,
            reported: false,
            opaque: self.opaque || other.opaque,
        }
    }

    /// This shape plus a `null` branch, as `Option<T>` publishes it. Keeps the allowed mark:
    /// `Option<AllowedUnion>` is the same union.
    pub const fn or_null(self) -> Shape {
        Shape { null: true, ..self }
    }

    /// `n` scalar branches (a unit-variant string enum counts as one).
    pub const fn scalars(n: u16) -> Shape {
        Shape {
            scalars: n,
            ..Shape::NEVER
        }
    }

    /// Marks a structural union as deliberately allowed (`#[tool_schema(allow_union = "...")]`).
    pub const fn allowed(self) -> Shape {
        Shape {
            allowed: true,
            ..self
        }
    }

    /// Marks a shape whose violation the compiler already reported where the type is defined,
    /// so that uses of the type do not report it again. Used by generated code only.
    #[doc(hidden)]
    pub const fn reported_if_unsafe(self) -> Shape {
        if self.is_contract_safe() {
            self
        } else {
            Shape {
                reported: true,
                ..self
            }
        }
    }

    /// Object- or array-typed branches.
    pub const fn structured(self) -> u16 {
        sat(self.objects, self.arrays)
    }

    /// Object-typed branches.
    pub const fn objects(self) -> u16 {
        self.objects
    }

    /// Array-typed branches.
    pub const fn arrays(self) -> u16 {
        self.arrays
    }

    /// Branches that are neither structured nor null: scalars and the permissive schema.
    pub const fn unstructured(self) -> u16 {
        sat(self.scalars, self.any as u16)
    }

    /// Whether `null` is one of the branches.
    pub const fn is_nullable(self) -> bool {
        self.null
    }

    /// Whether a branch has a hand-written schema the compile-time count cannot see
    /// ([`Shape::OPAQUE`]): only the run-time contract check covers it.
    pub const fn is_opaque(self) -> bool {
        self.opaque
    }

    /// Whether the shape was marked as an allowed structural union.
    pub const fn is_allowed(self) -> bool {
        self.allowed
    }

    /// More than one structured branch: the shape the contract forbids.
    pub const fn is_structural_union(self) -> bool {
        self.structured() > 1
    }

    /// The shape respects the contract at its top level: not a structural union, or an allowed one.
    pub const fn is_contract_safe(self) -> bool {
        !self.is_structural_union() || self.allowed || self.reported
    }

    /// Branches other than `null`.
    pub const fn non_null_branches(self) -> u16 {
        sat(self.structured(), self.unstructured())
    }

    /// Flattening this type into an object (`#[serde(flatten)]`) puts a combinator at that object:
    /// more than one non-null branch.
    pub const fn flattens_to_combinator(self) -> bool {
        self.non_null_branches() > 1
    }

    /// Exactly one object branch and nothing else, `null` aside.
    pub const fn is_object(self) -> bool {
        self.objects == 1 && self.non_null_branches() == 1
    }

    /// What this shape is, in words.
    pub const fn kind(self) -> ShapeKind {
        let non_null = self.non_null_branches();
        let total = non_null + self.null as u16;
        if total == 0 {
            ShapeKind::Never
        } else if total > 1 {
            ShapeKind::Union {
                structured: self.structured(),
                scalar: sat(self.unstructured(), self.null as u16),
            }
        } else if self.objects == 1 {
            ShapeKind::Object
        } else if self.arrays == 1 {
            ShapeKind::Array
        } else if self.any {
            ShapeKind::Any
        } else if self.null {
            ShapeKind::Null
        } else {
            ShapeKind::Scalar
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_of_struct_is_one_structured_branch() {
        let s = Shape::OBJECT.or_null();
        assert_eq!(s.structured(), 1);
        assert!(s.is_contract_safe());
        assert!(s.is_object());
        assert_eq!(
            s.kind(),
            ShapeKind::Union {
                structured: 1,
                scalar: 1
            }
        );
    }

    #[test]
    fn two_structured_branches_violate_unless_allowed() {
        let s = Shape::OBJECT.union(Shape::ARRAY);
        assert!(s.is_structural_union());
        assert!(!s.is_contract_safe());
        assert!(s.allowed().is_contract_safe());
        // A union built from an allowed one is judged on its own.
        assert!(!s.allowed().union(Shape::SCALAR).is_contract_safe());
        // Option keeps the mark.
        assert!(s.allowed().or_null().is_contract_safe());
    }

    #[test]
    fn scalar_unions_and_any_are_not_structured() {
        let s = Shape::SCALAR.union(Shape::SCALAR).union(Shape::ANY);
        assert_eq!(s.structured(), 0);
        assert_eq!(s.unstructured(), 3);
        assert!(s.is_contract_safe());
        assert!(s.flattens_to_combinator());
    }

    #[test]
    fn kinds() {
        assert_eq!(Shape::NEVER.kind(), ShapeKind::Never);
        assert_eq!(Shape::SCALAR.kind(), ShapeKind::Scalar);
        assert_eq!(Shape::ARRAY.kind(), ShapeKind::Array);
        assert_eq!(Shape::ANY.kind(), ShapeKind::Any);
        assert_eq!(Shape::NULL.kind(), ShapeKind::Null);
        assert_eq!(Shape::OBJECT.kind(), ShapeKind::Object);
    }

    #[test]
    fn opaque_counts_as_unknown_and_stays_visible() {
        let s = Shape::OPAQUE.union(Shape::OBJECT);
        assert_eq!(s.structured(), 1);
        assert!(s.is_opaque());
        assert!(!Shape::ANY.union(Shape::OBJECT).is_opaque());
        assert_eq!(Shape::OPAQUE.kind(), ShapeKind::Any);
    }

    #[test]
    fn counts_saturate() {
        let mut s = Shape::OBJECT;
        for _ in 0..70_000u32 {
            s = s.union(Shape::OBJECT);
        }
        assert_eq!(s.objects(), u16::MAX);
    }
}
