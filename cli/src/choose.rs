//! `--tools GLOB,...` and `--exclude GLOB,...`: the tools of a catalog (or a live server) that a
//! command works on, by name. A tool is chosen when it matches one `--tools` pattern (every tool
//! when there is none) and no `--exclude` pattern. A pattern that matches no tool is an error, so
//! a misspelt name never passes silently.

use globset::{Glob, GlobSet, GlobSetBuilder};
use toolschema::catalog::Catalog;

use crate::input::InputError;

/// The tools a command works on.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct Choose {
    /// Only the tools whose names match one of these globs (`*` any run of characters, `?` one,
    /// `[abc]` a set), comma-separated or repeated: `--tools 'browser_*,search'`.
    #[arg(long = "tools", value_name = "GLOB,...", value_delimiter = ',')]
    pub tools: Vec<String>,
    /// Leave out the tools whose names match one of these globs (after `--tools`).
    #[arg(long = "exclude", value_name = "GLOB,...", value_delimiter = ',')]
    pub exclude: Vec<String>,
}

/// The compiled patterns.
#[derive(Clone)]
pub struct Chooser {
    tools: Option<(GlobSet, Vec<String>)>,
    exclude: Option<(GlobSet, Vec<String>)>,
}

fn compile(patterns: &[String], flag: &str) -> Result<Option<(GlobSet, Vec<String>)>, InputError> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut set = GlobSetBuilder::new();
    for p in patterns {
        let glob =
            Glob::new(p).map_err(|e| InputError(format!("--{flag} `{p}` is not a glob: {e}")))?;
        set.add(glob);
    }
    let set = set
        .build()
        .map_err(|e| InputError(format!("--{flag}: {e}")))?;
    Ok(Some((set, patterns.to_vec())))
}

impl Choose {
    /// Whether any pattern was given.
    pub fn is_set(&self) -> bool {
        !self.tools.is_empty() || !self.exclude.is_empty()
    }

    /// The patterns compiled; an error names a pattern that is not a glob.
    pub fn compile(&self) -> Result<Chooser, InputError> {
        Ok(Chooser {
            tools: compile(&self.tools, "tools")?,
            exclude: compile(&self.exclude, "exclude")?,
        })
    }

    /// The catalog with only the chosen tools; an error names a pattern that matches no tool.
    pub fn apply(&self, mut catalog: Catalog) -> Result<Catalog, InputError> {
        if !self.is_set() {
            return Ok(catalog);
        }
        let chooser = self.compile()?;
        let names: Vec<String> = (catalog.tools.iter())
            .map(|t| t.name.clone().unwrap_or_default())
            .collect();
        chooser.check_matches(names.iter().map(String::as_str))?;
        catalog
            .tools
            .retain(|t| chooser.chosen(t.name.as_deref().unwrap_or_default()));
        Ok(catalog)
    }
}

/// An error when `count` tools are more than `target` takes in one request: the count, the
/// limit with its source, and how to choose.
pub fn within_limit(count: usize, target: toolschema::Target) -> Result<(), InputError> {
    match target.request_limits().tools {
        Some(limit) if count > limit.max => Err(InputError(format!(
            "{target}: {}",
            toolschema::adapt::RequestProblem::TooManyTools { count, limit }
        ))),
        _ => Ok(()),
    }
}

impl Chooser {
    /// Whether the tool named `name` is chosen.
    pub fn chosen(&self, name: &str) -> bool {
        self.tools
            .as_ref()
            .is_none_or(|(set, _)| set.is_match(name))
            && self
                .exclude
                .as_ref()
                .is_none_or(|(set, _)| !set.is_match(name))
    }

    /// An error for the first pattern that matches none of `names`.
    pub fn check_matches<'a>(
        &self,
        names: impl Iterator<Item = &'a str> + Clone,
    ) -> Result<(), InputError> {
        for (flag, compiled) in [("tools", &self.tools), ("exclude", &self.exclude)] {
            let Some((set, patterns)) = compiled else {
                continue;
            };
            let mut hit = vec![false; patterns.len()];
            for name in names.clone() {
                for i in set.matches(name) {
                    hit[i] = true;
                }
            }
            if let Some(i) = hit.iter().position(|h| !h) {
                return Err(InputError(format!(
                    "--{flag} `{}` matches no tool (the tools: {})",
                    patterns[i],
                    names.clone().collect::<Vec<_>>().join(", ")
                )));
            }
        }
        Ok(())
    }

    /// The start-up clause: what was chosen.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some((_, p)) = &self.tools {
            parts.push(format!("--tools {}", p.join(",")));
        }
        if let Some((_, p)) = &self.exclude {
            parts.push(format!("--exclude {}", p.join(",")));
        }
        parts.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn catalog() -> Catalog {
        let tools: Vec<_> = ["browser_click", "browser_type", "search", "read_file"]
            .iter()
            .map(|n| json!({"name": n, "inputSchema": {"type": "object"}}))
            .collect();
        Catalog::from_value(json!({ "tools": tools })).unwrap()
    }

    fn names(c: &Catalog) -> Vec<&str> {
        c.tools.iter().map(|t| t.name.as_deref().unwrap()).collect()
    }

    #[test]
    fn tools_are_chosen_by_glob_then_excluded() {
        let choose = Choose {
            tools: vec!["browser_*".into(), "search".into()],
            exclude: vec!["*_type".into()],
        };
        let chosen = choose.apply(catalog()).unwrap();
        assert_eq!(names(&chosen), ["browser_click", "search"]);
        let all = Choose::default().apply(catalog()).unwrap();
        assert_eq!(all.tools.len(), 4);
    }

    #[test]
    fn a_pattern_that_matches_nothing_is_an_error() {
        let choose = Choose {
            tools: vec!["serach".into()],
            exclude: vec![],
        };
        let e = choose.apply(catalog()).unwrap_err();
        assert!(e.0.contains("--tools `serach` matches no tool"), "{}", e.0);
    }
}
