//! Validation before expansion: what the schema will look like, which mistakes are certain from
//! syntax alone (reported here, all at once), and which checks must wait for the compiler's
//! `const` evaluation (handed to `expand`). One function per rule.

use proc_macro2::{Ident, Span, TokenStream};
use quote::ToTokens;
use syn::Type;
use syn::spanned::Spanned;

use crate::ast::{Container, Data, Field, Repr, Style, Variant};
use crate::errors::Errors;
use crate::shape::{self, Branch};

/// Which derive is running.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    ToolParams,
    ProviderSafe,
}

/// How a field's type is checked.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum CheckKind {
    /// A property, item or map value: its own top level and everything below.
    Full,
    /// Its top level is merged into ours (newtype variant of an untagged enum): only below it.
    Nested,
    /// `#[serde(flatten)]` at a tool's root: must not put a combinator there.
    RootFlatten,
}

pub struct FieldCheck {
    pub ty: Type,
    /// `ty` as tokens, made once (every interpolation of a `Type` walks its syntax tree, and in a
    /// running macro each token is a call into the compiler). Empty when nothing is emitted for
    /// the check (a known-safe type).
    pub tokens: TokenStream,
    /// `ty` as the messages show it (empty likewise).
    pub text: String,
    /// A standard type of standard scalars: nothing to check.
    pub known_safe: bool,
    /// Where errors point: the type as written.
    pub span: Span,
    pub kind: CheckKind,
    /// "field `x` of `Params`", "variant `Action::Create`".
    pub owner: String,
    /// The trait of `toolschema::__private` the check goes through when the type is named like
    /// one toolschema supports behind a feature (`Uuid` → `Uuid1`): its error names the feature.
    pub hint: Option<&'static str>,
}

impl FieldCheck {
    fn new(f: &Field, kind: CheckKind, owner: String) -> FieldCheck {
        let known_safe = shape::known_safe(&f.ty);
        // Nothing is emitted for a known-safe type: no tokens, text or span to make.
        if known_safe && kind != CheckKind::RootFlatten {
            return FieldCheck {
                tokens: TokenStream::new(),
                text: String::new(),
                known_safe,
                ty: f.ty.clone(),
                span: Span::call_site(),
                kind,
                owner,
                hint: None,
            };
        }
        let tokens = f.ty.to_token_stream();
        let text = shape::display_tokens(&tokens);
        // The span of the type as written: from the same tokens when nothing rewrote it.
        let span = if f.rewritten {
            f.written.span()
        } else {
            tokens.span()
        };
        FieldCheck {
            tokens,
            text,
            known_safe,
            hint: shape::feature_hint(&f.ty),
            ty: f.ty.clone(),
            span,
            kind,
            owner,
        }
    }
}

/// One counted branch of an enum's union.
pub struct Counted {
    pub variant: Ident,
    pub branch: Branch,
}

pub enum ShapePlan {
    /// The whole shape is one branch.
    Single(Branch),
    /// An enum: the union of its counted branches.
    Union(Vec<Counted>),
}

pub struct Analysis {
    pub shape: ShapePlan,
    pub checks: Vec<FieldCheck>,
    /// How serde's representation turns variants into branches, for messages.
    pub repr: String,
    /// An `opaque` enum whose branches depend on other types' shapes: checked at compile time
    /// that they make no structural union (an `opaque` never keeps one; see `analyze_opaque`).
    pub opaque_branches: Vec<Counted>,
}

const WHY: &str = "clients that keep only the first branch (Langflow) or flatten unions (Gemini function calling) lose the others without an error";
pub const UNION_FIX: &str = "fix: use a unit-only enum for the kind plus separate optional fields, separate parameters for a replace-or-delta choice, or a permissive `serde_json::Value` field validated on the server; as a last resort, `#[tool_schema(allow_union = \"reason (#issue)\")]` on the enum";

pub fn analyze(errors: &mut Errors, cont: &Container, mode: Mode) -> Analysis {
    if cont.attrs.opaque.is_some() {
        return analyze_opaque(errors, cont);
    }
    if mode == Mode::ToolParams {
        check_object_root(errors, cont);
    }
    check_allow_placement(errors, cont);
    match &cont.data {
        Data::Struct(style, fields) => analyze_struct(cont, *style, fields, mode),
        Data::Enum(repr, variants) => analyze_enum(errors, cont, repr, variants),
    }
}

/// Rule: a hand-written `JsonSchema` is declared, not guessed. Its shape is unknown to the macro
/// (counted as no structured branch); `check_contract()` judges the schema it really publishes.
fn analyze_opaque(errors: &mut Errors, cont: &Container) -> Analysis {
    if let Some((_, lit)) = &cont.attrs.allow_union {
        errors.spanned(
            lit,
            format!(
                "`allow_union` on `{}`, which is `opaque`: the derive does not read an opaque type's schema, so there is no union here to allow\nfix: remove `allow_union`; list the union in the contract allow-list that `check_contract()` uses instead",
                cont.ident
            ),
        );
    }
    // Rule: `opaque` does not silence a union the derive can read. Its serde attributes say the
    // enum publishes several object- or array-typed branches: if `JsonSchema` is derived, that
    // is the union it publishes, which only `allow_union` (with its reason) may keep.
    let mut opaque_branches = Vec::new();
    if let (Data::Enum(repr, variants), Some(opaque)) = (&cont.data, &cont.attrs.opaque) {
        let counted: Vec<Counted> = (variants.iter())
            .filter(|v| !v.skipped)
            .map(|v| Counted {
                variant: v.ident.clone(),
                branch: if v.untagged || matches!(repr, Repr::Untagged) {
                    untagged_branch(cont, v)
                } else if v.style == Style::Unit {
                    Branch::Scalar
                } else {
                    Branch::Object
                },
            })
            .collect();
        let structured: Vec<String> = (counted.iter())
            .filter(|c| c.branch.structured() == Some(true))
            .map(|c| format!("`{}`", c.variant))
            .collect();
        if structured.len() <= 1 && counted.iter().any(|c| c.branch.structured().is_none()) {
            opaque_branches = counted;
        } else if structured.len() > 1 {
            errors.spanned(
                opaque,
                format!(
                    "`opaque` on enum `{name}`, whose serde attributes make a structural union: {}, so variants {} are object- or array-typed branches of one union; `opaque` is for a `JsonSchema` written by hand, and here it would keep that union without a reason\nfix: if `{name}` derives `JsonSchema`, replace `opaque` with `allow_union = \"reason (#issue)\"` or remove the union; if its `JsonSchema` is written by hand and publishes no such union, implement `ProviderSafe` for it by hand with the `SHAPE` it publishes instead of deriving it",
                    describe_repr(repr),
                    join_names(&structured),
                    name = cont.ident,
                ),
            );
        }
    }
    Analysis {
        shape: ShapePlan::Single(Branch::Opaque),
        checks: Vec::new(),
        repr: String::new(),
        opaque_branches,
    }
}

fn transparent_field(cont: &Container) -> Option<&Field> {
    match &cont.data {
        Data::Struct(_, fields) => fields.iter().find(|f| !f.skipped),
        Data::Enum(..) => None,
    }
}

/// Rule: a tool's parameters publish an object at the root.
fn check_object_root(errors: &mut Errors, cont: &Container) {
    let name = &cont.ident;
    let mut fix = "fix: use a struct with named fields, e.g. `struct Params { field: T }`";
    let what = match &cont.data {
        // schemars publishes a transparent struct as its field's schema; over a struct that is a
        // root `$ref` with no `type` (rmcp panics on it, providers reject it).
        Data::Struct(_, _) if cont.transparent => {
            fix = "fix: derive `ToolParams` on the wrapped struct and use it as the parameters, or remove `#[serde(transparent)]`";
            "`#[serde(transparent)]` struct `{}` publishes its field's schema (a root `$ref` with no `type` when the field is a struct)"
        }
        Data::Struct(Style::Named, _) => return,
        Data::Struct(Style::Tuple, _) => "tuple struct `{}` publishes an array (`prefixItems`)",
        Data::Struct(Style::Newtype, _) => {
            "newtype struct `{}` publishes its inner type's schema, not an object of its own"
        }
        Data::Struct(Style::Unit, _) => "unit struct `{}` publishes `null`",
        Data::Enum(..) => "enum `{}` publishes a union (`oneOf`/`anyOf`) or a string enum",
    };
    errors.spanned(
        name,
        format!(
            "{}, but a tool's parameters must be an object (`type: \"object\"`): providers reject any other root\n{fix}",
            what.replace("{}", &name.to_string())
        ),
    );
}

/// Rule: `allow_union` belongs on an enum.
fn check_allow_placement(errors: &mut Errors, cont: &Container) {
    if let (Some((_, lit)), Data::Struct(..)) = (&cont.attrs.allow_union, &cont.data) {
        errors.spanned(
            lit,
            format!(
                "`allow_union` on struct `{}`: a struct publishes an object, never a union\nfix: remove it, or put it on the enum that is the union",
                cont.ident
            ),
        );
    }
}

fn field_owner(cont: &Container, field: &Field) -> String {
    format!("field `{}` of `{}`", field.name, cont.ident)
}

fn analyze_struct(cont: &Container, style: Style, fields: &[Field], mode: Mode) -> Analysis {
    let mut checks = Vec::new();
    for f in fields.iter().filter(|f| !f.skipped && f.opaque.is_none()) {
        checks.push(FieldCheck::new(f, CheckKind::Full, field_owner(cont, f)));
        if f.flatten && mode == Mode::ToolParams && style == Style::Named && !cont.transparent {
            checks.push(FieldCheck::new(
                f,
                CheckKind::RootFlatten,
                field_owner(cont, f),
            ));
        }
    }
    let single = if cont.transparent || style == Style::Newtype {
        match transparent_field(cont) {
            // A hand-written (`schema_with`) schema: unknown here (`Shape::OPAQUE`, which a union
            // must declare); the runtime contract checker judges it.
            Some(f) if f.opaque.is_some() => Branch::Opaque,
            Some(f) if shape::mentions(&f.ty, &cont.ident) => {
                shape::recursive_branch(&f.ty, &cont.ident)
            }
            Some(f) => Branch::Of(Box::new(f.ty.clone())),
            None => Branch::Null,
        }
    } else {
        match style {
            Style::Named => Branch::Object,
            Style::Tuple => Branch::Array,
            Style::Newtype => unreachable!("handled above"),
            Style::Unit => Branch::Null,
        }
    };
    Analysis {
        shape: ShapePlan::Single(single),
        checks,
        repr: String::new(),
        opaque_branches: Vec::new(),
    }
}

/// The branch an untagged variant publishes: its own schema.
fn untagged_branch(cont: &Container, v: &Variant) -> Branch {
    match v.style {
        Style::Unit => Branch::Null,
        Style::Named => Branch::Object,
        Style::Tuple => Branch::Array,
        Style::Newtype => match v.fields.iter().find(|f| !f.skipped) {
            Some(f) if f.opaque.is_some() => Branch::Opaque,
            Some(f) if shape::mentions(&f.ty, &cont.ident) => {
                shape::recursive_branch(&f.ty, &cont.ident)
            }
            Some(f) => Branch::Of(Box::new(f.ty.clone())),
            None => Branch::Null,
        },
    }
}

fn describe_repr(repr: &Repr) -> String {
    match repr {
        Repr::External => "serde's default (externally tagged) representation publishes each data variant as an object `{\"Variant\": ...}` in a `oneOf`".to_owned(),
        Repr::Internal { tag } => format!(
            "`#[serde(tag = \"{tag}\")]` publishes every variant, unit variants included, as an object `{{\"{tag}\": \"Variant\", ...}}` in a `oneOf`"
        ),
        Repr::Adjacent { tag, content } => format!(
            "`#[serde(tag = \"{tag}\", content = \"{content}\")]` publishes every variant as an object `{{\"{tag}\": \"Variant\", \"{content}\": ...}}` in a `oneOf`"
        ),
        Repr::Untagged => "`#[serde(untagged)]` publishes each variant's own schema as a branch of an `anyOf`".to_owned(),
    }
}

fn analyze_enum(
    errors: &mut Errors,
    cont: &Container,
    repr: &Repr,
    variants: &[Variant],
) -> Analysis {
    let mut counted: Vec<Counted> = Vec::new();
    let mut checks = Vec::new();
    let mut unit_string_counted = false;
    for v in variants.iter().filter(|v| !v.skipped) {
        let untagged = v.untagged || matches!(repr, Repr::Untagged);
        let branch = if untagged {
            untagged_branch(cont, v)
        } else {
            match (repr, v.style) {
                // Unit variants of an externally tagged enum collapse into one string enum.
                (Repr::External, Style::Unit) => {
                    if unit_string_counted {
                        variant_checks(cont, v, untagged, &mut checks);
                        continue;
                    }
                    unit_string_counted = true;
                    Branch::Scalar
                }
                _ => Branch::Object,
            }
        };
        variant_checks(cont, v, untagged, &mut checks);
        counted.push(Counted {
            variant: v.ident.clone(),
            branch,
        });
    }

    let certain: Vec<&Counted> = counted
        .iter()
        .filter(|c| c.branch.structured() == Some(true))
        .collect();
    let dependent = counted.iter().any(|c| c.branch.structured().is_none());
    let keyword = if matches!(repr, Repr::Untagged) {
        "anyOf"
    } else {
        "oneOf"
    };
    let mut repr_text = describe_repr(repr);
    if !matches!(repr, Repr::Untagged) && variants.iter().any(|v| v.untagged && !v.skipped) {
        repr_text.push_str(
            ", and variants marked `#[serde(untagged)]` add their own schema as further branches",
        );
    }

    match &cont.attrs.allow_union {
        None if certain.len() > 1 => {
            // Rule: more than one structured branch, certain from syntax.
            let names: Vec<String> = certain.iter().map(|c| format!("`{}`", c.variant)).collect();
            let second = &certain[1].variant;
            errors.spanned(
                second,
                format!(
                    "enum `{}` is a structural union: {repr_text}, so variants {} are {} object- or array-typed branches of one `{keyword}`; {WHY}\n{UNION_FIX}",
                    cont.ident,
                    join_names(&names),
                    names.len(),
                ),
            );
        }
        Some((_, lit)) if certain.len() < 2 && !dependent => {
            // Rule: an allowed union must still be one, or the allowance is stale.
            errors.spanned(
                lit,
                format!(
                    "`allow_union` on enum `{}`, which is not a structural union (it publishes at most one object- or array-typed branch)\nfix: remove the `allow_union` attribute",
                    cont.ident
                ),
            );
        }
        _ => {}
    }

    if cont.attrs.allow_union.is_none() {
        check_hand_written_branches(errors, cont, &counted);
    }

    Analysis {
        shape: ShapePlan::Union(counted),
        checks,
        repr: repr_text,
        opaque_branches: Vec::new(),
    }
}

pub const HAND_WRITTEN_FIX: &str = "fix: publish it through a type that states its shape (`#[schemars(with = \"T\")]`, where `T`'s `ProviderSafe` impl says what its schema is), or mark the enum `#[tool_schema(opaque)]` and check the published schema with `check_contract()` in a test";

/// Rule: a branch whose schema is hand-written (`#[schemars(schema_with)]` on an untagged newtype
/// variant) may be an object or an array; beside a branch that certainly is one, the union may
/// have two, and the derive cannot tell. Unknown beside unknown is checked by the compiler
/// (`expand::union_asserts`).
fn check_hand_written_branches(errors: &mut Errors, cont: &Container, counted: &[Counted]) {
    let Some(structured) = counted.iter().find(|c| c.branch.structured() == Some(true)) else {
        return;
    };
    for c in counted
        .iter()
        .filter(|c| matches!(c.branch, Branch::Opaque))
    {
        let name = &cont.ident;
        let message = format!(
            "variant `{name}::{}` publishes a hand-written schema (`#[schemars(schema_with = ...)]`) as a branch of the union beside `{name}::{}`, which is object- or array-typed: if the hand-written one is too, clients that keep only the first branch or flatten unions lose one without an error, and the derive cannot see which it is\n{HAND_WRITTEN_FIX}",
            c.variant, structured.variant
        );
        errors.spanned(&c.variant, message);
    }
}

fn join_names(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The field checks of one variant.
fn variant_checks(cont: &Container, v: &Variant, untagged: bool, checks: &mut Vec<FieldCheck>) {
    for f in v.fields.iter().filter(|f| !f.skipped && f.opaque.is_none()) {
        let merged = untagged && v.style == Style::Newtype;
        let owner = match v.style {
            Style::Named => format!(
                "field `{}` of variant `{}::{}`",
                f.name, cont.ident, v.ident
            ),
            _ => format!("variant `{}::{}`", cont.ident, v.ident),
        };
        let kind = if merged {
            CheckKind::Nested
        } else {
            CheckKind::Full
        };
        checks.push(FieldCheck::new(f, kind, owner));
    }
}
