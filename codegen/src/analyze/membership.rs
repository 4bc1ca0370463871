//! Which adapters each tool is a member of, under which name and with which settings.

use toolspec_vocab::membership::{self, Declaration, Grant};
use toolspec_vocab::settings::SettingValue;

use crate::analyze::description::query_description;
use crate::spec::{AdapterOptions, GrantDecl, ProjectConfig, ToolSpec};

/// A tool's membership in one adapter.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    /// The adapter.
    pub adapter: String,
    /// The tool's name there.
    pub name: String,
    /// Setting overrides, in spec order.
    pub settings: Vec<(String, SettingValue)>,
    /// What a query tool shows this adapter's model, when its spec narrows it there.
    pub view: Option<View>,
}

/// A query tool as one adapter shows it, narrowed by `only_filters`, `except_filters` or
/// `only_sorts`.
#[derive(Debug, Clone, PartialEq)]
pub struct View {
    /// The filters this adapter's model may use, in spec order.
    pub filters: Vec<String>,
    /// The sorts it may use, in spec order.
    pub sorts: Vec<String>,
    /// The description it reads.
    pub description: String,
}

/// The view of a query tool that `options` narrow (`None` for actions and un-narrowed
/// members).
fn view(spec: &ToolSpec, options: Option<&AdapterOptions>) -> Option<View> {
    let query = spec.query.as_ref()?;
    let narrowing = &options?.narrowing;
    if narrowing.is_empty() {
        return None;
    }
    let filter = |name: &str| narrowing.allows_filter(name);
    let sort = |name: &str| narrowing.allows_sort(name);
    Some(View {
        filters: query
            .filters
            .iter()
            .map(|f| f.name.value.clone())
            .filter(|f| filter(f))
            .collect(),
        sorts: query
            .sorts
            .iter()
            .map(|s| s.value.clone())
            .filter(|s| sort(s))
            .collect(),
        description: query_description(&spec.description, query, filter, sort),
    })
}

pub fn bindings(
    spec: &ToolSpec,
    name: &str,
    config: &ProjectConfig,
    adapters: &[&str],
) -> Vec<Binding> {
    let only: Vec<&str>;
    let grant = match &spec.tool.grant {
        GrantDecl::Default => Grant::Default,
        GrantDecl::All => Grant::All,
        GrantDecl::OptOut => Grant::OptOut,
        GrantDecl::Only(list) => {
            only = list.iter().map(|s| s.value.as_str()).collect();
            Grant::Only(&only)
        }
    };
    let configured: Vec<&str> = spec
        .tool
        .options
        .iter()
        .map(|o| o.adapter.value.as_str())
        .collect();
    let except: Vec<&str> = spec.tool.except.iter().map(|s| s.value.as_str()).collect();
    let directory: Vec<&str> = config
        .adapters
        .iter()
        .filter(|a| {
            a.tool_roots
                .iter()
                .any(|root| membership::is_under_root(&spec.path, root))
        })
        .map(|a| a.decl.name.as_ref())
        .collect();
    let decl = Declaration {
        grant,
        configured: &configured,
        except: &except,
    };
    membership::resolve(&decl, &directory, config.membership, adapters)
        .into_iter()
        .map(|adapter| {
            let options = spec
                .tool
                .options
                .iter()
                .find(|o| o.adapter.value == adapter);
            Binding {
                adapter: adapter.to_owned(),
                name: options
                    .and_then(|o| o.name.as_ref())
                    .map(|n| n.value.clone())
                    .unwrap_or_else(|| name.to_owned()),
                settings: options
                    .map(|o| {
                        o.settings
                            .iter()
                            .map(|(k, v)| (k.value.clone(), v.value.clone()))
                            .collect()
                    })
                    .unwrap_or_default(),
                view: view(spec, options),
            }
        })
        .collect()
}
