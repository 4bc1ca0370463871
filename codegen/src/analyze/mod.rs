//! Stage 3, analyze: the checks and decisions that need the whole project — names, modules,
//! membership, hints, codes, named types, defaults, messages, descriptions. Looks back at the
//! spec model; derives no schema.

pub mod checked;
pub mod codes;
pub mod defaults;
pub mod description;
pub mod hints;
pub mod membership;
pub mod message;
pub mod modules;
pub mod named_types;
pub mod names;

pub use crate::analyze::checked::Checked;
use crate::analyze::codes::check_codes;
use crate::analyze::defaults::check_defaults;
use crate::analyze::description::compose_description;
use crate::analyze::hints::check_hints;
use crate::analyze::membership::bindings;
use crate::analyze::message::{check_message, check_message_shown};
use crate::analyze::modules::module_paths;
use crate::analyze::named_types::check_named_types;
use crate::analyze::names::{check_duplicate_names, check_names, tool_name};
use crate::diagnostic::Diagnostic;
use crate::read::reader::Reader;
use crate::spec::{ProjectConfig, ToolSpec, Types};

/// Checks every spec against the project and the others; the specs that get a name and a
/// module come back checked (the others are reported). `types_module`: what the project's
/// `types` module holds (named types, shapes' types), if it has one: no tool may take it.
pub fn analyze(
    specs: Vec<ToolSpec>,
    types: &Types,
    config: &ProjectConfig,
    types_module: Option<&str>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Checked> {
    check_named_types(types, &specs, diagnostics);
    let modules = module_paths(&specs, types_module, diagnostics);
    let adapters = config.adapter_names();
    let strip: Vec<&str> = config.strip_prefixes.iter().map(String::as_str).collect();
    let identities = crate::parallel::map(&specs, |spec| {
        let mut local = Vec::new();
        let mut r = Reader::new(&spec.file, &mut local);
        let name = tool_name(&mut r, spec, &strip);
        check_hints(&mut r, spec, config);
        check_codes(&mut r, spec);
        let message_compiles = check_message(&mut r, spec);
        check_defaults(&mut r, spec, types);
        let identity = name.map(|name| {
            let bindings = bindings(spec, &name, config, &adapters);
            if message_compiles {
                check_message_shown(&mut r, spec, &name, &bindings, config);
            }
            (name, bindings, compose_description(spec))
        });
        (local, identity)
    });
    let mut checked = Vec::new();
    for ((spec, module), (local, identity)) in specs.into_iter().zip(modules).zip(identities) {
        diagnostics.extend(local);
        if let (Some(module), Some((name, bindings, description))) = (module, identity) {
            checked.push(Checked {
                spec,
                name,
                module,
                bindings,
                description,
            });
        }
    }
    check_duplicate_names(&checked, config, diagnostics);
    check_names(&checked, config, diagnostics);
    checked
}
