//! The project's tools as the runtime knows them: each compiled descriptor (the one model the
//! compiler builds and the runtime reads), declared by the runtime's own adapter for a
//! dialect. `toolspec schema --dialect mcp` prints the MCP server's own listing of them
//! ([`Listing`]: the code `tools/list` answers from, for a caller with every scope), and the
//! function-calling dialects what their adapters send.

use std::collections::BTreeSet;

use serde_json::Value;
use toolspec::mcp::Listing;
use toolspec::settings::{AdapterDecl, PresentAs, Settings};
use toolspec::{Caller, Descriptor, Dialect, SharedDescriptor};
use toolspec_codegen::Project;

/// The project's descriptors (and its built-in tools'), with the adapters they resolve
/// settings against.
pub struct Declared {
    /// Shared with the runtime's listing of them.
    descriptors: Vec<SharedDescriptor>,
    adapters: Vec<AdapterDecl>,
}

impl Declared {
    /// The descriptors of `project`'s tools (only `only`, when given), and of its built-in
    /// tools (explain, task status).
    pub fn new(project: &Project, only: Option<&str>) -> Self {
        let mut descriptors: Vec<SharedDescriptor> = project
            .tools()
            .iter()
            .filter(|t| only.is_none_or(|name| t.name() == name))
            .map(|t| t.descriptor().into())
            .collect();
        if only.is_none() {
            descriptors.extend(
                project
                    .builtin_descriptors()
                    .into_iter()
                    .map(SharedDescriptor::from),
            );
        }
        Self {
            descriptors,
            adapters: project.adapters().cloned().collect(),
        }
    }

    /// The members of `adapter`, each with the dialect the adapter declares it in: the one its
    /// settings there call for, or its non-strict form when the descriptor has no strict one
    /// (the explain tool), as the runtime's adapters fall back.
    fn members(&self, adapter: &str) -> Vec<(&str, &Descriptor, Dialect)> {
        let Some(decl) = self.adapters.iter().find(|a| a.name == adapter) else {
            return Vec::new();
        };
        let mut members: Vec<_> = self
            .descriptors
            .iter()
            .filter_map(|d| {
                let binding = d.binding(adapter)?;
                let name = d.name_for(adapter)?;
                let wanted = Dialect::for_member(adapter, &Settings::new(decl, &binding.settings));
                let (dialect, _) = d.declared_for(adapter, wanted);
                Some((name, &**d, dialect))
            })
            .collect();
        members.sort_by_key(|(name, _, _)| *name);
        members
    }

    /// The members of `adapter` by their names there, sorted, each with the dialect the
    /// adapter declares it in.
    pub fn modes(&self, adapter: &str) -> Vec<(&str, Dialect)> {
        self.members(adapter)
            .into_iter()
            .map(|(name, _, dialect)| (name, dialect))
            .collect()
    }

    /// The native definitions of the members declared in `dialect`, sorted by their names.
    pub fn native(&self, dialect: Dialect) -> Vec<Value> {
        // Each dialect's provider, by the adapter that declares its tools.
        let declare: fn(&Descriptor) -> Option<Value> = match dialect {
            Dialect::Mcp => return self.mcp_listing(),
            Dialect::OpenAi | Dialect::OpenAiStrict => {
                |d| serde_json::to_value(toolspec::openai::wrap(d)?).ok()
            }
            Dialect::Anthropic | Dialect::AnthropicStrict => {
                |d| serde_json::to_value(toolspec::anthropic::wrap(d)?).ok()
            }
            Dialect::Gemini => |d| serde_json::to_value(toolspec::gemini::wrap(d)?).ok(),
        };
        self.members(dialect.adapter())
            .into_iter()
            .filter(|(_, _, member)| *member == dialect)
            .filter_map(|(_, d, _)| declare(d))
            .collect()
    }

    /// The tools of an MCP server's `tools/list` for a caller with every scope (stdio's, the
    /// CLI's): the server's [`Listing`] of these descriptors, and its one page as the
    /// transport writes it.
    fn mcp_listing(&self) -> Vec<Value> {
        // How a result is shown is not listed.
        let listing = Listing::from_descriptors(
            self.descriptors
                .iter()
                .map(|descriptor| (descriptor.clone(), PresentAs::default())),
        );
        let (page, _) = listing.page_json(&Caller::default(), 0, None);
        serde_json::from_slice(&page).expect("a listing's page is a JSON array")
    }

    /// The other dialects some members of `dialect`'s adapter are declared in.
    pub fn other_modes(&self, dialect: Dialect) -> BTreeSet<Dialect> {
        self.members(dialect.adapter())
            .into_iter()
            .map(|(_, _, member)| member)
            .filter(|member| *member != dialect)
            .collect()
    }
}
