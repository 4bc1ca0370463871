//! Test helpers for apps (feature `testing`): call your tools as a caller would — through the
//! pipeline every adapter uses, by canonical name or as one adapter names and narrows them —
//! with typed input or JSON, at a fixed time, and check what they answered and what the audit
//! trail kept. With `sqlite`, [`memory_database`] gives a private in-memory database.
//!
//! ```ignore
//! use toolspec::testing::Harness;
//!
//! let harness = Harness::new(tools::registry(App::default())).at("2026-03-01T11:00:00Z");
//! let ada = Caller::new("ada").with_ambient(AmbientContext::new().with("user", "ada"));
//! let added = harness.as_caller(&ada).call("notes_add", json!({"text": "milk"})).await.ok();
//! let full = harness.as_caller(&ada).call("notes_add", json!({"text": "eggs"})).await;
//! assert_eq!(full.error("too_many").message, "…");
//! ```

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use toolspec_core::audit::{AuditQuery, AuditRecord};
use toolspec_core::tasks::{Accept, Submitted};
use toolspec_core::types::DateTime;
use toolspec_core::user_input::{Continuation, InputRequired};
use toolspec_core::{
    CallOptions, Caller, Clock, Described, Explanation, Registry, ToolError, ToolResult,
};

/// A registry under test, with the caller calls are made as unless told otherwise.
pub struct Harness {
    registry: Registry,
    caller: Caller,
}

impl Harness {
    /// Calls `registry`'s tools as the caller `test`, who may call every tool and has an empty
    /// ambient context.
    pub fn new(registry: Registry) -> Self {
        Self {
            registry,
            caller: Caller::new("test"),
        }
    }

    /// Handlers read `at` as now ([`Context::now`](toolspec_core::Context::now)): an RFC 3339
    /// time.
    ///
    /// # Panics
    ///
    /// When `at` is not RFC 3339, naming it.
    #[track_caller]
    pub fn at(mut self, at: &str) -> Self {
        let at = DateTime::parse_from_rfc3339(at)
            .unwrap_or_else(|e| panic!("`{at}` is not an RFC 3339 time: {e}"))
            .to_utc();
        self.registry = self.registry.with_clock(Clock::fixed(at));
        self
    }

    /// Calls are made as `caller` (its ambient context and scopes) unless told otherwise.
    pub fn with_caller(mut self, caller: Caller) -> Self {
        self.caller = caller;
        self
    }

    /// The registry.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The registry, to serve it (its clock stays the harness's).
    pub fn into_registry(self) -> Registry {
        self.registry
    }

    /// Calls as the harness's caller, by canonical name.
    pub fn calls(&self) -> Calls<'_> {
        self.as_caller(&self.caller)
    }

    /// Calls as `caller`.
    pub fn as_caller(&self, caller: &Caller) -> Calls<'_> {
        Calls {
            registry: &self.registry,
            caller: caller.clone(),
            adapter: None,
            confirming: false,
        }
    }

    /// Calls `tool` with `args` as the harness's caller ([`Calls::call`]).
    pub async fn call(&self, tool: &str, args: Value) -> Called {
        self.calls().call(tool, args).await
    }

    /// Every record the audit trail holds, newest first, once what is queued is written; none
    /// without a trail.
    ///
    /// # Panics
    ///
    /// When the trail cannot be read.
    pub async fn audit(&self) -> Vec<AuditRecord> {
        let Some(trail) = self.registry.audit() else {
            return Vec::new();
        };
        trail.flush().await;
        let query = AuditQuery {
            limit: AuditQuery::MAX_LIMIT,
            ..AuditQuery::default()
        };
        match query.read(trail.database()).await {
            Ok(page) => page.records,
            Err(e) => panic!("the audit trail cannot be read: {e}"),
        }
    }
}

/// Calls as one caller, by canonical name or through one adapter.
#[derive(Clone)]
pub struct Calls<'h> {
    registry: &'h Registry,
    caller: Caller,
    adapter: Option<String>,
    confirming: bool,
}

impl Calls<'_> {
    /// Calls through `adapter`: tools are found by their names there, its members only, and a
    /// query tool takes the filters and sorts that adapter's view shows.
    pub fn through(mut self, adapter: &str) -> Self {
        self.adapter = Some(adapter.to_owned());
        self
    }

    /// A call that asks its user to confirm (`confirm:`) is confirmed, and goes on: as a user
    /// who accepts whatever is asked. Forms are still answered as asked ([`Called::asked`]).
    pub fn confirming(mut self) -> Self {
        self.confirming = true;
        self
    }

    /// Calls `tool` with the model's JSON `args`.
    ///
    /// # Panics
    ///
    /// When there is no such tool (through this adapter), naming the tools there are.
    pub async fn call(&self, tool: &str, args: Value) -> Called {
        self.continue_with(tool, args, None).await
    }

    /// Calls `T`'s tool with typed `input`: its typed output, or the error it failed with.
    ///
    /// # Panics
    ///
    /// As [`call`](Self::call); when the input does not serialize, or the tool asked its user
    /// something.
    pub async fn call_typed<T: Described>(&self, input: &T::Input) -> Result<T::Output, ToolError>
    where
        T::Input: Serialize,
        T::Output: DeserializeOwned,
    {
        let args = serde_json::to_value(input)
            .unwrap_or_else(|e| panic!("the input of `{}` does not serialize: {e}", T::NAME));
        let called = self.call(&self.name_here(T::NAME), args).await;
        if let Some(asked) = &called.asked {
            panic!("`{}` asked its user: {:?}", T::NAME, asked.requests);
        }
        match called.result.outcome {
            Ok(value) => Ok(serde_json::from_value(value).unwrap_or_else(|e| {
                panic!("the output of `{}` does not fit its type: {e}", T::NAME)
            })),
            Err(error) => Err(error),
        }
    }

    /// Continues the call that asked `asked` with `responses` (`{key: {action, content}}`).
    ///
    /// # Panics
    ///
    /// As [`call`](Self::call); when `responses` are not responses.
    pub async fn answer(&self, asked: &InputRequired, args: Value, responses: &Value) -> Called {
        let continuation = Continuation::from_json(Some(asked.request_state.clone()), responses)
            .unwrap_or_else(|e| panic!("not responses: {e}"));
        self.continue_with(&self.name_here(&asked.tool), args, Some(continuation))
            .await
    }

    /// Explains a call of `tool` with `args` (nothing runs); a failure to explain is an
    /// explanation with that error at `/`.
    ///
    /// # Panics
    ///
    /// As [`call`](Self::call).
    pub async fn explain(&self, tool: &str, args: Value) -> Explanation {
        let explained = self
            .registry
            .explain_with(tool, args, &self.caller.ambient, self.options())
            .await;
        explained.unwrap_or_else(|_| panic!("{}", self.no_such_tool(tool)))
    }

    async fn continue_with(
        &self,
        tool: &str,
        args: Value,
        continuation: Option<Continuation>,
    ) -> Called {
        let found = match &self.adapter {
            Some(adapter) => self.registry.find(adapter, tool),
            None => self.registry.get(tool),
        };
        let found = match found {
            Some(found) => found,
            None => panic!("{}", self.no_such_tool(tool)),
        };
        let mut options = self.options();
        options.continuation = continuation;
        let ambient = &self.caller.ambient;
        let submitted = found
            .submit_with(args.clone(), ambient, options, Accept::ResultsOnly)
            .await;
        let asked = match submitted {
            Submitted::Input(asked) => asked,
            submitted => {
                return Called {
                    tool: tool.to_owned(),
                    result: submitted.into_result(),
                    asked: None,
                };
            }
        };
        let only_confirm = asked.requests.iter().all(|r| r.key == "confirm");
        if self.confirming && only_confirm {
            let mut options = self.options();
            options.continuation = Some(Continuation::confirm(asked.request_state));
            let result = found.invoke_with(args, ambient, options).await;
            return Called {
                tool: tool.to_owned(),
                result,
                asked: None,
            };
        }
        Called {
            tool: tool.to_owned(),
            result: asked.to_result(),
            asked: Some(asked),
        }
    }

    /// The name the tool `canonical` has where these calls go (through the adapter, if any).
    fn name_here(&self, canonical: &str) -> String {
        let on_adapter = self.adapter.as_deref().and_then(|adapter| {
            let tool = self.registry.get(canonical)?;
            tool.descriptor().name_for(adapter).map(str::to_owned)
        });
        on_adapter.unwrap_or_else(|| canonical.to_owned())
    }

    fn options(&self) -> CallOptions {
        let mut options = CallOptions::for_caller("", &self.caller);
        options.adapter = self.adapter.clone();
        options
    }

    fn no_such_tool(&self, tool: &str) -> String {
        let names: Vec<String> = match &self.adapter {
            Some(adapter) => self
                .registry
                .tools_for(adapter)
                .iter()
                .filter_map(|t| t.name_for(adapter).map(str::to_owned))
                .collect(),
            None => self.registry.tools().map(|t| t.name().to_owned()).collect(),
        };
        let through = match &self.adapter {
            Some(adapter) => format!(" on `{adapter}`"),
            None => String::new(),
        };
        format!("no tool `{tool}`{through}; the tools are {names:?}")
    }
}

/// What a call answered.
#[derive(Debug)]
pub struct Called {
    tool: String,
    result: ToolResult,
    asked: Option<InputRequired>,
}

impl Called {
    /// The call's result, as every adapter receives it (an asked call's is `input_required`).
    pub fn result(&self) -> &ToolResult {
        &self.result
    }

    /// What the call asked its user, when it did (nothing was done).
    pub fn asked(&self) -> Option<&InputRequired> {
        self.asked.as_ref()
    }

    /// The exposed values of a call that succeeded.
    ///
    /// # Panics
    ///
    /// When it failed, with its error and the developer's exception.
    #[track_caller]
    pub fn ok(self) -> Value {
        match self.result.outcome {
            Ok(value) => value,
            Err(error) => panic!(
                "`{}` failed with `{}`: {} (details: {:?}; exception: {:?})",
                self.tool, error.code, error.message, error.details, self.result.exception
            ),
        }
    }

    /// The error of a call that failed with `code`, for its message and details.
    ///
    /// # Panics
    ///
    /// When it succeeded, or failed with another code.
    #[track_caller]
    pub fn error(self, code: &str) -> ToolError {
        match self.result.outcome {
            Err(error) if error.code == code => error,
            Err(error) => panic!(
                "`{}` failed with `{}` rather than `{code}`: {} (exception: {:?})",
                self.tool, error.code, error.message, self.result.exception
            ),
            Ok(value) => panic!(
                "`{}` succeeded rather than failing with `{code}`: {value}",
                self.tool
            ),
        }
    }

    /// What the model sees: the exposed values, or `{error, message, details}`.
    pub fn to_model_json(&self) -> Value {
        self.result.to_model_json()
    }

    /// The call's result.
    pub fn into_result(self) -> ToolResult {
        self.result
    }
}

/// A private SQLite database in memory for one test, with toolspec's tables: the pool, for the
/// app's own tables and handlers, and the [`Database`](crate::Database) to build the registry
/// with. One connection, kept open: each connection to `:memory:` would be a database of its
/// own.
///
/// # Errors
///
/// When SQLite cannot open it, or toolspec's tables cannot be made.
#[cfg(feature = "sqlite")]
pub async fn memory_database()
-> Result<(toolspec_sql::sqlx::SqlitePool, crate::Database), Box<dyn std::error::Error>> {
    use toolspec_sql::sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
    let options = "sqlite::memory:".parse::<SqliteConnectOptions>()?;
    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .min_connections(1)
        .idle_timeout(None)
        .max_lifetime(None)
        .connect_with(options.foreign_keys(true))
        .await?;
    let database = crate::Database::sqlite(pool.clone());
    database.prepare().await?;
    Ok((pool, database))
}
