//! The targets by name (the list itself is in `providers/mod.rs`, one line per target).

use std::error::Error;
use std::fmt;
use std::str::FromStr;

use serde::Serialize;

pub use super::providers::Target;

impl Serialize for Target {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a [`Target`]'s ([`Target::from_str`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnknownTarget {
    /// The name given.
    pub name: String,
}

impl fmt::Display for UnknownTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Target::ALL.iter().map(|t| t.as_str()).collect();
        write!(
            f,
            "unknown target `{}`: expected one of {}",
            self.name,
            names.join(", ")
        )
    }
}

impl Error for UnknownTarget {}

impl Target {
    /// Other names a target is known by (a server's name where it has one grammar engine):
    /// `FromStr` reads them too.
    pub const ALIASES: &'static [(&'static str, Target)] = &[
        ("llama-server", Target::LlamaCpp),
        ("vllm", Target::Xgrammar),
        ("sglang", Target::Xgrammar),
    ];
}

impl FromStr for Target {
    type Err = UnknownTarget;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        (Target::ALL.iter().copied())
            .find(|t| t.as_str() == s)
            .or_else(|| {
                (Target::ALIASES.iter())
                    .find(|(a, _)| *a == s)
                    .map(|(_, t)| *t)
            })
            .ok_or_else(|| UnknownTarget { name: s.to_owned() })
    }
}
