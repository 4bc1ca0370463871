//! The Rust module each tool is generated into, from its spec's path.

use std::collections::BTreeMap;

use crate::diagnostic::Diagnostic;
use crate::diagnostic::kind::Kind;
use crate::rust_name::{self, NoModule};
use crate::spec::ToolSpec;

/// Module paths from spec paths; reports files that would share a module (`types_module`:
/// what the project's `types` module holds, if it has one).
pub fn module_paths(
    specs: &[ToolSpec],
    types_module: Option<&str>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Option<Vec<String>>> {
    let mut taken: BTreeMap<Vec<String>, &ToolSpec> = BTreeMap::new();
    let mut out = Vec::new();
    for spec in specs {
        let stem = spec.path.trim_end_matches(".yaml").trim_end_matches(".yml");
        let spelled: Result<Vec<String>, String> = stem
            .split('/')
            .map(|part| {
                rust_name::module_name(part).map_err(|why| match why {
                    NoModule::Empty => format!("`{part}` has no letters or digits"),
                    NoModule::Digit => format!(
                        "`{}` starts with a digit",
                        toolspec_vocab::naming::snake_case(part)
                    ),
                })
            })
            .collect();
        let segments =
            match spelled {
                Ok(segments) => segments,
                Err(why) => {
                    diagnostics.push(
                    Diagnostic::error(Kind::InvalidValue, &spec.file,
                        None,
                        format!("`{}` cannot become a Rust module name: {why}", spec.path),)
                    .with_help(
                        "name spec files and folders with letters first, like `orders/cancel.yaml`",
                    ),
                );
                    out.push(None);
                    continue;
                }
            };
        if let Some(holds) = types_module
            && segments.first().map(String::as_str) == Some("types")
        {
            diagnostics.push(
                Diagnostic::error(
                    Kind::NameClash,
                    &spec.file,
                    None,
                    format!(
                        "`{}` would share the module `types` with {holds}",
                        spec.path
                    ),
                )
                .with_help("rename the file or folder"),
            );
            out.push(None);
            continue;
        }
        // The same module, an ancestor that is a tool, or a descendant that is one.
        let ancestor = (1..segments.len()).find_map(|n| taken.get_key_value(&segments[..n]));
        let descendant = taken
            .range(segments.clone()..)
            .next()
            .filter(|(other, _)| other.starts_with(&segments));
        let clash = ancestor.or(descendant);
        if let Some((other, first)) = clash {
            let module = |segments: &[String]| format!("tools::{}", segments.join("::"));
            let message = if *other == segments {
                format!(
                    "`{}` and `{}` both map to the Rust module `{}`",
                    spec.path,
                    first.path,
                    module(&segments)
                )
            } else {
                let (tool, folder) = if other.len() < segments.len() {
                    (other.as_slice(), &segments)
                } else {
                    (segments.as_slice(), other)
                };
                format!(
                    "`{}` and `{}` clash: the Rust module `{}` cannot be both a tool and the parent of `{}`",
                    spec.path,
                    first.path,
                    module(tool),
                    module(folder)
                )
            };
            diagnostics.push(
                Diagnostic::error(Kind::NameClash, &spec.file, None, message)
                    .with_help("rename one of them"),
            );
            out.push(None);
            continue;
        }
        taken.insert(segments.clone(), spec);
        out.push(Some(segments));
    }
    out
}
