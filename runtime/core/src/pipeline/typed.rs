//! A tool of the crate as the registry holds it: its [`Operation`] (the generated binding of
//! its handler, or a query tool's), its compiled checks (built on first use), and whether its
//! handler is known to need the database. Its [`Stages`] are the pipeline's
//! ([`tool_stages`]); the builder's [`tool`](RegistryBuilder::tool) adds one.

use std::borrow::Cow;
use std::sync::OnceLock;
use std::sync::atomic::AtomicBool;

use serde_json::Value;

use crate::call::{Answer, Call, Stages};
use crate::model::ambient::AmbientContext;
use crate::model::contract::{BoxFuture, Contract, Described, Operation};
use crate::model::descriptor::{Field, SharedDescriptor};
use crate::model::failure::ToolResult;
use crate::pipeline::compiled::Compiled;
use crate::pipeline::decode::resolve_ambient;
use crate::pipeline::run::{Own, tool_stages};
use crate::registry::{Imp, RegistryBuilder};
use crate::schema::sensitive::Sensitivity;

impl RegistryBuilder {
    /// Adds one tool bound to its handler.
    pub fn tool<O: Operation>(self, operation: O) -> Self
    where
        O::Contract: Described,
    {
        let descriptor = SharedDescriptor::from(<O::Contract as Described>::descriptor());
        let typed = Typed::new(operation, descriptor.clone());
        self.add(descriptor, Imp::Tool(Box::new(typed)))
    }
}

/// A typed tool behind the type-erased registry entry.
pub(crate) struct Typed<O> {
    op: O,
    /// The tool's descriptor (its contract's, or one built at run time).
    tool: SharedDescriptor,
    compiled: OnceLock<Result<Compiled, String>>,
    /// Set once the handler or a guard failed because a database could not be reached: from
    /// then on, calls are refused at once while the registry's database is known to be down.
    learned: AtomicBool,
}

impl<O: Operation> Typed<O> {
    pub(crate) fn new(op: O, tool: SharedDescriptor) -> Self {
        Self {
            op,
            tool,
            compiled: OnceLock::new(),
            learned: AtomicBool::new(false),
        }
    }

    fn compiled(&self) -> Result<&Compiled, ToolResult> {
        match self.compiled.get_or_init(|| Compiled::new(&self.tool)) {
            Ok(compiled) => Ok(compiled),
            Err(e) => Err(ToolResult::internal(
                &self.tool,
                format!(
                    "the embedded schemas of `{}` do not compile: {e}",
                    self.tool.name
                ),
            )),
        }
    }
}

impl<O: Operation> Stages for Typed<O> {
    fn run<'a>(&'a self, call: Call<'a>, args: Value) -> BoxFuture<'a, Answer> {
        let own = Own {
            op: &self.op,
            compiled: self.compiled().map_err(Box::new),
            learned: &self.learned,
        };
        Box::pin(tool_stages(own, call, args))
    }

    fn sensitive_input(&self) -> Cow<'_, Sensitivity> {
        match self.compiled() {
            Ok(compiled) => Cow::Borrowed(&compiled.sensitive_input),
            Err(_) => Cow::Owned(Sensitivity::compile(self.tool.sensitive_input.as_deref())),
        }
    }

    fn sensitive_output(&self) -> Cow<'_, Sensitivity> {
        match self.compiled() {
            Ok(compiled) => Cow::Borrowed(&compiled.sensitive_output),
            Err(_) => Cow::Owned(Sensitivity::compile(self.tool.sensitive_output.as_deref())),
        }
    }

    /// Why `ambient` does not give this tool its ambient fields (missing, or not of their
    /// type), if it does not: for a server to check a fixed caller before it serves. It reads
    /// the descriptor alone: the schemas are compiled by the tool's first call, not here.
    fn check_ambient(&self, ambient: &AmbientContext) -> Result<(), String> {
        let fields: Vec<&Field> = self.tool.ambient_fields().collect();
        resolve_ambient::<<O::Contract as Contract>::Ambient>(&self.tool, &fields, ambient)
            .map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use std::fmt;

    use std::borrow::Cow;

    use serde_json::{Map, json};

    use super::*;
    use crate::model::context::Context;
    use crate::model::contract::{DeclaredError, NoGuard};
    use crate::model::descriptor::{Descriptor, DescriptorParts, ToolKind};
    use crate::model::failure::Failure;
    use crate::model::guard::GuardStop;
    use crate::model::project::Project;
    use crate::registry::Registry;

    /// A root cause.
    #[derive(Debug)]
    struct Disk;

    impl fmt::Display for Disk {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("the disk is full")
        }
    }

    impl std::error::Error for Disk {}

    /// An error whose cause is [`Disk`].
    #[derive(Debug)]
    struct Ledger(Disk);

    impl fmt::Display for Ledger {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("writing the ledger")
        }
    }

    impl std::error::Error for Ledger {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    /// No declared error codes.
    #[derive(Debug)]
    enum NoCode {}

    impl fmt::Display for NoCode {
        fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
            match *self {}
        }
    }

    impl DeclaredError for NoCode {
        fn code(&self) -> &str {
            match *self {}
        }
    }

    static WRITE: std::sync::LazyLock<Descriptor> = std::sync::LazyLock::new(|| {
        Descriptor::baked(DescriptorParts {
            spec: Cow::Borrowed("write.yaml"),
            module: Cow::Borrowed("write"),
            kind: ToolKind::Action,
            title: None,
            input_schema: Cow::Borrowed(r#"{"type":"object"}"#),
            output_schema: Cow::Borrowed(r#"{"type":"object"}"#),
            fields: Cow::Borrowed(&[]),
            error_headline: Some(Cow::Borrowed("Could not write")),
            hints: Cow::Borrowed(&[]),
            dialects: Cow::Borrowed(&[]),
            ..Descriptor::explain(
                Cow::Borrowed("write"),
                Cow::Borrowed(&[]),
                crate::model::descriptor::AuditPolicy::OFF,
            )
            .0
        })
    });

    /// A tool whose handler fails with a two-level internal error.
    struct Write;

    impl Contract for Write {
        type Input = Map<String, Value>;
        type Ambient = Map<String, Value>;
        type Output = Value;
        type Error = NoCode;
        type Guard = NoGuard;
        const GUARDS: &'static [NoGuard] = &[];
    }

    impl Described for Write {
        const NAME: &'static str = "write";

        fn descriptor() -> &'static Descriptor {
            &WRITE
        }
    }

    impl Operation for Write {
        type Contract = Write;

        fn run<'a>(
            &'a self,
            _input: Map<String, Value>,
            _cx: Context<'a, Map<String, Value>>,
        ) -> BoxFuture<'a, Result<crate::model::contract::Outcome<Write>, GuardStop>> {
            Box::pin(async { Ok(Err(Failure::from(Ledger(Disk)))) })
        }

        fn guard<'a>(
            &'a self,
            guard: NoGuard,
            _input: &'a Map<String, Value>,
            _cx: &'a Context<'a, Map<String, Value>>,
        ) -> BoxFuture<'a, Result<(), GuardStop>> {
            match guard {}
        }
    }

    #[test]
    fn a_read_only_registry_keeps_no_tool_that_may_write() {
        static READ_ONLY: Project = Project {
            read_only: true,
            ..Project::DEFAULT
        };
        let registry = Registry::builder(&READ_ONLY).tool(Write).build().unwrap();
        assert!(registry.is_read_only());
        assert!(
            registry.get("write").is_none(),
            "`write` is not hinted read_only"
        );
        assert_eq!(registry.tools().len(), 0);

        let registry = Registry::builder(&Project::DEFAULT)
            .tool(Write)
            .build()
            .unwrap();
        assert!(registry.get("write").is_some());
        let registry = registry.read_only();
        assert!(registry.get("write").is_none());
        assert!(registry.find("mcp", "write").is_none());
    }

    #[tokio::test]
    async fn an_internal_failure_keeps_its_whole_chain_for_the_developer() {
        let registry = Registry::builder(&Project::DEFAULT)
            .tool(Write)
            .build()
            .expect("a valid registry");
        let result = registry
            .invoke("write", json!({}), &AmbientContext::new())
            .await
            .expect("a registered tool");
        assert_eq!(
            result.to_model_json(),
            json!({"error": "internal_error", "message": "Could not write"})
        );
        assert_eq!(
            result.exception.as_deref(),
            Some("writing the ledger: the disk is full")
        );
    }
}
