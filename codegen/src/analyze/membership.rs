//! Which adapters each tool is a member of, under which name and with which settings.

use toolspec_vocab::membership::{self, Declaration, Grant};
use toolspec_vocab::settings::SettingValue;

use crate::spec::{GrantDecl, ProjectConfig, ToolSpec};

/// A tool's membership in one adapter.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    /// The adapter.
    pub adapter: String,
    /// The tool's name there.
    pub name: String,
    /// Setting overrides, in spec order.
    pub settings: Vec<(String, SettingValue)>,
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
            }
        })
        .collect()
}
