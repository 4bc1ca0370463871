//! Which adapters each tool is a member of, under which name and with which settings.

use toolspec_vocab::membership::{self, Declaration, Grant};
use toolspec_vocab::settings::SettingValue;

use crate::analyze::description::{compose_description_from, query_description, with_cap};
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
    /// The tool's title here, when the adapter's options give it one.
    pub title: Option<String>,
    /// The composed description this adapter's model reads, when the adapter's options give
    /// it its own (a narrowed query tool's is its view's).
    pub description: Option<String>,
    /// The tool's hints here, when the adapter's options give them (a query tool's always
    /// include `read_only`).
    pub hints: Option<Vec<String>>,
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
    let lead = lead(spec, options);
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
        description: with_cap(spec, query_description(&lead, query, filter, sort)),
    })
}

/// The description's lead on the adapter `options` configure: the spec's, or the adapter's.
fn lead(spec: &ToolSpec, options: Option<&AdapterOptions>) -> String {
    match options.and_then(|o| o.description.as_ref()) {
        Some(description) => description.apply(&spec.description),
        None => spec.description.clone(),
    }
}

/// The adapter's hints for the tool, when its options give them: a query tool only reads.
fn hints(spec: &ToolSpec, options: Option<&AdapterOptions>) -> Option<Vec<String>> {
    let mut hints: Vec<String> = options?
        .hints
        .as_ref()?
        .iter()
        .map(|h| h.value.clone())
        .collect();
    if spec.query.is_some() && !hints.iter().any(|h| h == toolspec_vocab::hints::READ_ONLY) {
        hints.insert(0, toolspec_vocab::hints::READ_ONLY.to_owned());
    }
    Some(hints)
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
                title: options
                    .and_then(|o| o.title.as_ref())
                    .map(|t| t.value.clone()),
                description: options
                    .filter(|o| o.description.is_some() && o.narrowing.is_empty())
                    .map(|o| compose_description_from(spec, &lead(spec, Some(o)))),
                hints: hints(spec, options),
            }
        })
        .collect()
}
