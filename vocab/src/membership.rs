//! Which adapters a tool is a member of:
//! `(directory grant ∪ declaration grant) − except`, and `tool: false` opts out of everything.
//!
//! Directory grants come from an adapter's `tool_roots` in `specs/toolspec.yaml`: every spec
//! below such a folder is a member. A root may not be the specs root, escape it with `..`,
//! or be a catch-all folder, so that no adapter can expose every operation by accident.

use std::collections::BTreeSet;
use std::fmt;

/// What a project grants a tool that declares nothing (`membership: { default: … }`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MembershipDefault {
    /// Every adapter (the default).
    #[default]
    All,
    /// None: only declarations and `tool_roots` grant.
    None,
}

/// The grant part of a spec's `tool:` declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant<'a> {
    /// No `tool:` key, or a map without a grant of its own: the project default applies.
    Default,
    /// `tool: true`: every adapter.
    All,
    /// `tool: false`: no adapter, whatever else grants.
    OptOut,
    /// `tool: [mcp, openai]`: exactly these (plus directory grants).
    Only(&'a [&'a str]),
}

/// A spec's `tool:` declaration, reduced to what membership needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declaration<'a> {
    /// The grant.
    pub grant: Grant<'a>,
    /// Adapters with a per-adapter option bag (`tool: { mcp: {…} }`): each implies membership.
    pub configured: &'a [&'a str],
    /// Adapters removed whatever grants them (`except: [http]`).
    pub except: &'a [&'a str],
}

impl Default for Declaration<'_> {
    fn default() -> Self {
        Self {
            grant: Grant::Default,
            configured: &[],
            except: &[],
        }
    }
}

/// Resolves a tool's adapters.
///
/// `adapters` are all adapters the project knows; `directory_grants` those whose
/// `tool_roots` contain the spec. The result is sorted.
///
/// ```
/// use toolspec_vocab::membership::{resolve, Declaration, Grant, MembershipDefault};
/// let all = ["http", "mcp", "openai"];
/// let decl = Declaration { grant: Grant::Default, configured: &["mcp"], except: &["http"] };
/// let members = resolve(&decl, &[], MembershipDefault::All, &all);
/// assert_eq!(members, ["mcp", "openai"]);
/// let members = resolve(&decl, &[], MembershipDefault::None, &all);
/// assert_eq!(members, ["mcp"]);
/// ```
pub fn resolve<'a>(
    decl: &Declaration<'_>,
    directory_grants: &[&str],
    default: MembershipDefault,
    adapters: &[&'a str],
) -> Vec<&'a str> {
    let mut granted: BTreeSet<&str> = BTreeSet::new();
    match decl.grant {
        Grant::OptOut => return Vec::new(),
        Grant::All => granted.extend(adapters.iter().copied()),
        Grant::Only(list) => granted.extend(list.iter().copied()),
        Grant::Default => {
            if default == MembershipDefault::All {
                granted.extend(adapters.iter().copied());
            }
        }
    }
    granted.extend(decl.configured.iter().copied());
    granted.extend(directory_grants.iter().copied());
    for removed in decl.except {
        granted.remove(removed);
    }
    let mut out: Vec<&'a str> = adapters
        .iter()
        .copied()
        .filter(|a| granted.contains(a))
        .collect();
    out.sort_unstable();
    out
}

/// Folder names that hold every operation of an app: refused as `tool_roots`.
pub const CATCH_ALL_FOLDERS: &[&str] = &[
    "actions",
    "app",
    "lib",
    "operations",
    "specs",
    "src",
    "tools",
];

/// Why a `tool_roots` entry was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RootError {
    /// Empty, `.` or `/`: the whole specs directory.
    SpecsRoot,
    /// An absolute path, or one that climbs out with `..`.
    Escapes,
    /// A folder named like a catch-all (`tools`, `actions`, …) or a glob.
    CatchAll(String),
}

impl RootError {
    /// What to write instead.
    pub fn help(&self) -> &'static str {
        match self {
            Self::SpecsRoot => {
                "name a folder that holds only this adapter's tools, like `agent_tools`"
            }
            Self::Escapes => "tool roots are relative to the specs directory, like `agent_tools`",
            Self::CatchAll(_) => {
                "name a folder that holds only this adapter's tools, or list the tools with \
                 `tool:` in their specs"
            }
        }
    }
}

impl fmt::Display for RootError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SpecsRoot => f.write_str("a tool root may not be the specs directory itself"),
            Self::Escapes => f.write_str("a tool root must be a folder inside the specs directory"),
            Self::CatchAll(name) => {
                write!(
                    f,
                    "`{name}` is a catch-all folder and may not be a tool root"
                )
            }
        }
    }
}

impl std::error::Error for RootError {}

/// Checks a `tool_roots` entry and returns it normalized (`./agent_tools/` → `agent_tools`).
///
/// ```
/// use toolspec_vocab::membership::{check_tool_root, RootError};
/// assert_eq!(check_tool_root("./agent_tools/").unwrap(), "agent_tools");
/// assert_eq!(check_tool_root("."), Err(RootError::SpecsRoot));
/// assert_eq!(check_tool_root("../app"), Err(RootError::Escapes));
/// ```
pub fn check_tool_root(root: &str) -> Result<String, RootError> {
    if root.starts_with('/') || root.starts_with('\\') || root.contains(':') {
        return Err(RootError::Escapes);
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in root.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => return Err(RootError::Escapes),
            _ => parts.push(part),
        }
    }
    let Some(last) = parts.last() else {
        return Err(RootError::SpecsRoot);
    };
    if last.contains('*') || CATCH_ALL_FOLDERS.contains(&last.to_ascii_lowercase().as_str()) {
        return Err(RootError::CatchAll((*last).to_owned()));
    }
    Ok(parts.join("/"))
}

/// Whether a spec path (relative to the specs directory) lies below a normalized root.
///
/// ```
/// assert!(toolspec_vocab::membership::is_under_root("agent_tools/ping.yaml", "agent_tools"));
/// assert!(!toolspec_vocab::membership::is_under_root("agent_tools_old/ping.yaml", "agent_tools"));
/// ```
pub fn is_under_root(spec_path: &str, root: &str) -> bool {
    spec_path
        .strip_prefix(root)
        .is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [&str; 4] = ["anthropic", "http", "mcp", "openai"];

    fn members(
        decl: Declaration<'_>,
        dirs: &[&str],
        default: MembershipDefault,
    ) -> Vec<&'static str> {
        resolve(&decl, dirs, default, &ALL)
    }

    #[test]
    fn default_all_and_none() {
        assert_eq!(
            members(Declaration::default(), &[], MembershipDefault::All),
            ALL
        );
        assert!(members(Declaration::default(), &[], MembershipDefault::None).is_empty());
        assert_eq!(
            members(Declaration::default(), &["mcp"], MembershipDefault::None),
            ["mcp"]
        );
    }

    #[test]
    fn only_list_replaces_default_but_keeps_directory_grants() {
        let decl = Declaration {
            grant: Grant::Only(&["openai"]),
            ..Default::default()
        };
        assert_eq!(
            members(decl, &["mcp"], MembershipDefault::All),
            ["mcp", "openai"]
        );
    }

    #[test]
    fn opt_out_beats_everything() {
        let decl = Declaration {
            grant: Grant::OptOut,
            configured: &["mcp"],
            except: &[],
        };
        assert!(members(decl, &["mcp"], MembershipDefault::All).is_empty());
    }

    #[test]
    fn except_beats_every_grant() {
        let decl = Declaration {
            grant: Grant::All,
            configured: &["http"],
            except: &["http"],
        };
        assert_eq!(
            members(decl, &["http"], MembershipDefault::All),
            ["anthropic", "mcp", "openai"]
        );
    }

    #[test]
    fn roots() {
        assert_eq!(check_tool_root(""), Err(RootError::SpecsRoot));
        assert_eq!(check_tool_root("./"), Err(RootError::SpecsRoot));
        assert_eq!(check_tool_root("/etc"), Err(RootError::Escapes));
        assert_eq!(check_tool_root("a/../../b"), Err(RootError::Escapes));
        assert_eq!(
            check_tool_root("nested/Tools"),
            Err(RootError::CatchAll("Tools".into()))
        );
        assert_eq!(
            check_tool_root("agent/*"),
            Err(RootError::CatchAll("*".into()))
        );
        assert_eq!(check_tool_root("agent/support").unwrap(), "agent/support");
        assert!(is_under_root("agent/support/x.yaml", "agent/support"));
        assert!(!is_under_root("agent/x.yaml", "agent/support"));
    }
}
