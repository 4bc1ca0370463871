//! The tools of one crate, bound to their handlers: lookup by canonical name, by adapter, and
//! by an adapter's own name for a tool; each tool's effective settings per adapter.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::ambient::AmbientContext;
use crate::context::{Context, Progress};
use crate::contract::{BoxFuture, Contract, DeclaredError, Operation};
use crate::descriptor::Descriptor;
use crate::failure::{Failure, ToolError, ToolResult, compose_error};
use crate::project::Project;
use crate::settings::Settings;

/// A tool with its handler, type-erased.
trait ErasedTool: Send + Sync {
    fn invoke<'a>(
        &'a self,
        args: Value,
        ambient: &'a AmbientContext,
        cancellation: CancellationToken,
        progress: Progress,
    ) -> BoxFuture<'a, ToolResult>;
}

struct Typed<O>(O);

impl<O: Operation> ErasedTool for Typed<O> {
    fn invoke<'a>(
        &'a self,
        args: Value,
        ambient: &'a AmbientContext,
        cancellation: CancellationToken,
        progress: Progress,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(invoke_typed(&self.0, args, ambient, cancellation, progress))
    }
}

/// The plain call path: decode, resolve ambient fields, run guards, call, encode.
async fn invoke_typed<O: Operation>(
    op: &O,
    mut args: Value,
    ambient: &AmbientContext,
    cancellation: CancellationToken,
    progress: Progress,
) -> ToolResult {
    let tool = <O::Contract as Contract>::descriptor();
    if let Value::Object(map) = &mut args {
        map.remove("ambient_context");
    }
    let input: <O::Contract as Contract>::Input = match serde_json::from_value(args) {
        Ok(input) => input,
        Err(e) => {
            let error = ToolError {
                code: "invalid_arguments".into(),
                message: format!("Invalid arguments: {e}"),
                details: None,
            };
            return ToolResult::failed(error, Some(e.to_string()));
        }
    };
    let declared = ambient.project(tool.ambient_fields().map(|f| f.name));
    let resolved: <O::Contract as Contract>::Ambient = match serde_json::from_value(declared) {
        Ok(resolved) => resolved,
        Err(e) => {
            let error = internal_error(tool);
            let exception = format!("ambient context for `{}` does not resolve: {e}", tool.name);
            return ToolResult::failed(error, Some(exception));
        }
    };
    let cx = Context::new(&resolved, tool, cancellation, progress);
    for (index, guard) in tool.guards.iter().enumerate() {
        let passed = match op.guard(index, &input, &cx) {
            Some(check) => check.await,
            None => false,
        };
        if !passed {
            let error = ToolError {
                code: guard.name.to_owned(),
                message: compose_error(tool.error_headline, guard.description, false),
                details: None,
            };
            return ToolResult::failed(error, None);
        }
    }
    match op.call(input, cx).await {
        Ok(output) => match serde_json::to_value(&output) {
            Ok(value) => ToolResult {
                outcome: Ok(value),
                message: tool.title.unwrap_or(tool.name).to_owned() + ": done.",
                exception: None,
            },
            Err(e) => ToolResult::failed(internal_error(tool), Some(e.to_string())),
        },
        Err(Failure::Declared { error, details }) => {
            let code = error.code();
            let standalone = tool.error(code).is_some_and(|e| e.standalone);
            let message = compose_error(tool.error_headline, &error.to_string(), standalone);
            ToolResult::failed(
                ToolError {
                    code: code.to_owned(),
                    message,
                    details,
                },
                None,
            )
        }
        Err(Failure::Internal(e)) => ToolResult::failed(internal_error(tool), Some(e.to_string())),
    }
}

fn internal_error(tool: &Descriptor) -> ToolError {
    ToolError {
        code: "internal_error".into(),
        message: tool
            .error_headline
            .unwrap_or("The tool failed unexpectedly.")
            .to_owned(),
        details: None,
    }
}

/// One registered tool.
pub struct RegisteredTool {
    descriptor: &'static Descriptor,
    imp: Box<dyn ErasedTool>,
}

impl RegisteredTool {
    /// Everything known about the tool at build time.
    pub fn descriptor(&self) -> &'static Descriptor {
        self.descriptor
    }

    /// The canonical name.
    pub fn name(&self) -> &'static str {
        self.descriptor.name
    }

    /// The tool's name on `adapter`, if it is a member.
    pub fn name_for(&self, adapter: &str) -> Option<&'static str> {
        self.descriptor.name_for(adapter)
    }

    /// Calls the tool with raw JSON arguments and the trusted ambient context.
    pub async fn invoke(&self, args: Value, ambient: &AmbientContext) -> ToolResult {
        self.invoke_with(args, ambient, CancellationToken::new(), Progress::ignore())
            .await
    }

    /// Calls the tool with a cancellation token and a progress sink.
    pub async fn invoke_with(
        &self,
        args: Value,
        ambient: &AmbientContext,
        cancellation: CancellationToken,
        progress: Progress,
    ) -> ToolResult {
        self.imp.invoke(args, ambient, cancellation, progress).await
    }
}

impl fmt::Debug for RegisteredTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegisteredTool")
            .field("name", &self.descriptor.name)
            .finish()
    }
}

/// Why a hand-assembled registry was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistryError {
    /// Two tools have one name on one adapter.
    DuplicateName {
        /// The adapter (or `""` for canonical names).
        adapter: String,
        /// The name.
        name: String,
        /// The two spec files.
        specs: [String; 2],
    },
    /// A tool is bound to an adapter the project does not declare.
    UnknownAdapter {
        /// The tool.
        tool: String,
        /// The adapter.
        adapter: String,
    },
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DuplicateName {
                adapter,
                name,
                specs,
            } if adapter.is_empty() => {
                write!(
                    f,
                    "two tools are named `{name}`: {} and {}",
                    specs[0], specs[1]
                )
            }
            Self::DuplicateName {
                adapter,
                name,
                specs,
            } => write!(
                f,
                "two tools are named `{name}` on adapter `{adapter}`: {} and {}",
                specs[0], specs[1]
            ),
            Self::UnknownAdapter { tool, adapter } => {
                write!(f, "tool `{tool}` is bound to unknown adapter `{adapter}`")
            }
        }
    }
}

impl std::error::Error for RegistryError {}

/// Assembles a [`Registry`] from operations.
pub struct RegistryBuilder {
    project: &'static Project,
    tools: Vec<RegisteredTool>,
}

impl RegistryBuilder {
    /// Adds one tool bound to its handler.
    pub fn tool<O: Operation>(mut self, operation: O) -> Self {
        let descriptor = <O::Contract as Contract>::descriptor();
        self.tools.push(RegisteredTool {
            descriptor,
            imp: Box::new(Typed(operation)),
        });
        self
    }

    /// Checks names and adapters, then builds.
    pub fn build(self) -> Result<Registry, RegistryError> {
        let mut seen: BTreeMap<(&str, &str), &str> = BTreeMap::new();
        for tool in &self.tools {
            let d = tool.descriptor;
            let keys =
                std::iter::once(("", d.name)).chain(d.adapters.iter().map(|b| (b.adapter, b.name)));
            for (adapter, name) in keys {
                if !adapter.is_empty() && self.project.adapter(adapter).is_none() {
                    return Err(RegistryError::UnknownAdapter {
                        tool: d.name.into(),
                        adapter: adapter.into(),
                    });
                }
                if let Some(first) = seen.insert((adapter, name), d.spec) {
                    return Err(RegistryError::DuplicateName {
                        adapter: adapter.into(),
                        name: name.into(),
                        specs: [first.into(), d.spec.into()],
                    });
                }
            }
        }
        Ok(self.build_trusted())
    }

    /// Builds without the checks `build` makes: for generated code, whose compiler made them.
    #[doc(hidden)]
    pub fn build_trusted(mut self) -> Registry {
        self.tools.sort_by_key(|t| t.descriptor.name);
        let by_name = self
            .tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.descriptor.name, i))
            .collect();
        Registry {
            project: self.project,
            tools: self.tools,
            by_name,
        }
    }
}

/// The tools of one crate with their handlers.
pub struct Registry {
    project: &'static Project,
    tools: Vec<RegisteredTool>,
    by_name: HashMap<&'static str, usize>,
}

impl Registry {
    /// Starts a registry for `project` (the generated `PROJECT`, or [`Project::DEFAULT`]).
    pub fn builder(project: &'static Project) -> RegistryBuilder {
        RegistryBuilder {
            project,
            tools: Vec::new(),
        }
    }

    /// The project configuration the tools were compiled with.
    pub fn project(&self) -> &'static Project {
        self.project
    }

    /// The tool with canonical name `name`.
    pub fn get(&self, name: &str) -> Option<&RegisteredTool> {
        self.by_name.get(name).map(|&i| &self.tools[i])
    }

    /// Every tool, sorted by canonical name.
    pub fn tools(&self) -> impl ExactSizeIterator<Item = &RegisteredTool> {
        self.tools.iter()
    }

    /// The members of `adapter`, sorted by their name on that adapter.
    pub fn tools_for(&self, adapter: &str) -> Vec<&RegisteredTool> {
        let mut members: Vec<(&str, &RegisteredTool)> = self
            .tools
            .iter()
            .filter_map(|t| t.name_for(adapter).map(|name| (name, t)))
            .collect();
        members.sort_by_key(|(name, _)| *name);
        members.into_iter().map(|(_, t)| t).collect()
    }

    /// The member of `adapter` that the adapter calls `name`.
    pub fn find(&self, adapter: &str, name: &str) -> Option<&RegisteredTool> {
        self.tools
            .iter()
            .find(|t| t.name_for(adapter) == Some(name))
    }

    /// The effective settings of tool `tool` on `adapter` (None unless it is a member).
    pub fn settings(&self, tool: &str, adapter: &str) -> Option<Settings<'static>> {
        let binding = self.get(tool)?.descriptor.binding(adapter)?;
        let decl = self.project.adapter(adapter)?;
        Some(Settings::new(decl, binding.settings))
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.tools.iter().map(|t| t.descriptor.name))
            .finish()
    }
}

/// Used by generated `registry()` functions.
#[doc(hidden)]
pub fn generated_registry(builder: RegistryBuilder) -> Registry {
    builder.build_trusted()
}
