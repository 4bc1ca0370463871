//! Handler stubs (`toolspec stubs`): the `impl Handler` of each action of a checked project,
//! every method there with its exact signature and a `todo!()` to replace — the skeleton a
//! developer fills in, rather than the whole generated file to read the traits from.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::emit::format::format_tokens;
use crate::project::{Project, Tool};
use crate::rust_name::{ident, type_name, value_name};

/// What [`handler_stubs`] writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stubs {
    /// The app type the handlers are implemented for, declared as a unit struct (`App`).
    pub app: String,
    /// The path of the module `include_tools!()` declares (`crate::tools`).
    pub tools: String,
    /// Only this tool (its canonical name); every action when `None`.
    pub tool: Option<String>,
}

impl Default for Stubs {
    fn default() -> Self {
        Self {
            app: "App".into(),
            tools: "crate::tools".into(),
            tool: None,
        }
    }
}

/// Why stubs could not be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StubsError {
    /// The project has errors: its tools are not known for sure.
    Invalid,
    /// `--tool` names no tool of the project (with the closest name, when one is close).
    UnknownTool {
        /// The name asked for.
        name: String,
        /// The closest tool name.
        closest: Option<String>,
    },
    /// `--tool` names a query tool, which runs without a handler.
    QueryTool(String),
    /// The app's name or the tools' path is not Rust.
    NotRust(String),
}

impl std::fmt::Display for StubsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Invalid => f.write_str("the specs have errors: fix them first"),
            Self::UnknownTool { name, closest } => {
                write!(f, "no tool is named `{name}`")?;
                match closest {
                    Some(closest) => write!(f, " (did you mean `{closest}`?)"),
                    None => Ok(()),
                }
            }
            Self::QueryTool(name) => write!(
                f,
                "`{name}` is a query tool: it runs its query without a handler"
            ),
            Self::NotRust(what) => write!(f, "{what}"),
        }
    }
}

impl std::error::Error for StubsError {}

/// The stubs of `project`'s actions (or of `stubs.tool` alone), formatted: a `use` of each
/// tool's module, the app's unit struct, and one `impl Handler` per action.
pub fn handler_stubs(project: &Project, stubs: &Stubs) -> Result<String, StubsError> {
    if project.has_errors() {
        return Err(StubsError::Invalid);
    }
    let app: Ident = syn::parse_str(&stubs.app)
        .map_err(|_| StubsError::NotRust(format!("`{}` is not a type name", stubs.app)))?;
    let tools: syn::Path = syn::parse_str(&stubs.tools)
        .map_err(|_| StubsError::NotRust(format!("`{}` is not a module path", stubs.tools)))?;
    let chosen: Vec<&Tool> = match &stubs.tool {
        None => project.tools.iter().filter(|t| handled(t)).collect(),
        Some(name) => match project.tools.iter().find(|t| &t.name == name) {
            Some(tool) if handled(tool) => vec![tool],
            Some(_) => return Err(StubsError::QueryTool(name.clone())),
            None => {
                let names = project.tools.iter().map(|t| t.name.as_str());
                let closest = crate::diagnostic::did_you_mean(name, names).map(str::to_owned);
                return Err(StubsError::UnknownTool {
                    name: name.clone(),
                    closest,
                });
            }
        },
    };
    let uses = chosen.iter().map(|tool| {
        let path = tool.module.iter().map(|m| ident(m));
        let alias = alias(tool);
        quote! { use #tools::#(#path)::* as #alias; }
    });
    let app_doc = doc(Some(
        "Your app: what the handlers share (a database pool, clients, settings).",
    ));
    // Formatted item by item, so that a blank line parts them.
    let mut items = vec![
        format_tokens(quote! { #( #uses )* }),
        format_tokens(quote! { #app_doc pub struct #app; }),
    ];
    items.extend(
        chosen
            .iter()
            .map(|tool| format_tokens(implementation(tool, &app))),
    );
    let file = items.join("\n");
    let source = if project.display_root.is_empty() {
        String::new()
    } else {
        format!(" of {}/", project.display_root)
    };
    Ok(format!(
        "// Handlers for the tools{source}, written by `toolspec stubs`: replace each `todo!()`.\n\n{file}"
    ))
}

/// Whether the tool runs a handler (an action; a query tool runs its query).
fn handled(tool: &Tool) -> bool {
    tool.spec.query.is_none()
}

/// The name its module is used under: the tool's canonical name, unique in the project.
fn alias(tool: &Tool) -> Ident {
    ident(&value_name(&tool.name))
}

/// `impl <tool>::Handler for <app>`: the types the guards load, `call`, then each guard.
fn implementation(tool: &Tool, app: &Ident) -> TokenStream {
    let m = alias(tool);
    let spec = &tool.spec;
    let loads: Vec<(&str, Ident)> = spec
        .guards
        .iter()
        .filter_map(|g| {
            Some((
                g.name.value.as_str(),
                ident(&type_name(&g.loads.as_ref()?.value)),
            ))
        })
        .collect();
    let associated = loads.iter().map(|(guard, ty)| {
        let doc = doc(Some(&format!(
            "What the guard `{guard}` loads for `call`: replace `()` with its type."
        )));
        quote! { #doc type #ty = (); }
    });
    let loaded = (!loads.is_empty()).then(|| quote! { _loaded: #m::Loaded<Self>, });
    let call_doc = doc(Some(&format!(
        "Runs `{}`: {}",
        tool.name,
        spec.description.lines().next().unwrap_or_default()
    )));
    let todo_call = format!("{}: run the tool", tool.name);
    let guards = spec.guards.iter().map(|guard| {
        let method = ident(&value_name(&guard.name.value));
        let answer = if !guard.answers_with_result() {
            quote! { bool }
        } else if let Some(loads) = &guard.loads {
            let ty = ident(&type_name(&loads.value));
            quote! { #m::#method::Outcome<Self::#ty> }
        } else {
            quote! { #m::#method::Outcome }
        };
        let doc = doc(Some(&format!("Guard: {}", guard.description)));
        let todo = format!("{}: check `{}`", tool.name, guard.name.value);
        quote! {
            #doc
            async fn #method(&self, _input: &#m::Input, _cx: &#m::Context<'_>) -> #answer {
                todo!(#todo)
            }
        }
    });
    quote! {
        impl #m::Handler for #app {
            #( #associated )*

            #call_doc
            async fn call(&self, _input: #m::Input, #loaded _cx: #m::Context<'_>) -> #m::Outcome {
                todo!(#todo_call)
            }

            #( #guards )*
        }
    }
}

/// `#[doc = …]` attributes for a text, one per line.
fn doc(text: Option<&str>) -> TokenStream {
    let Some(text) = text else {
        return TokenStream::new();
    };
    let lines = text.trim_end().lines().map(|line| format!(" {line}"));
    quote! { #( #[doc = #lines] )* }
}
