//! The MCP adapter (feature `mcp`): every member tool of a [`Registry`] served to MCP clients
//! through the official `rmcp` SDK, over stdio and streamable HTTP.
//!
//! - [`tools`] projects the registry's members to rmcp [`Tool`]s and [`wrap`] projects one
//!   descriptor: MCP name, title, description (with preconditions and errors), the canonical
//!   input schema (ambient fields absent), the output schema, all four annotations set from the
//!   spec's hints, tags and version in `_meta`.
//! - [`McpServer`] implements rmcp's `ServerHandler`: `tools/list` from a listing computed
//!   once (sorted by name, filtered by the caller's scopes), `tools/call` through the pipeline
//!   with the caller's trusted ambient context, progress and cancellation.
//! - Tools that declare `task:` are served through the tasks extension (`tasks`): a client
//!   that declares it gets a task handle, then `tasks/get` and `tasks/cancel`.
//! - [`McpServer::serve_stdio`] runs it on stdin/stdout; [`http::HttpTransport`] mounts it at
//!   `/mcp` in axum, with an [`http::Authenticator`] deciding who each request comes from.
//!
//! Who is calling never comes from the arguments: on stdio it is the [`Caller`] the server was
//! configured with, on HTTP the one the authenticator returned. A tool whose scopes the caller
//! lacks is neither listed nor callable, and calling it looks exactly like calling a tool that
//! does not exist (JSON-RPC `-32602`) — unless the server challenges
//! ([`McpServer::with_missing_scope`]): over HTTP the tool is then listed, and the transport
//! answers a call of it `403` naming the scopes to ask for (stdio keeps hiding).
//!
//! This module holds the listing and the `ServerHandler`; `stdio` and `http` are the
//! transports, `wire` screens their messages. It never validates arguments or renders errors
//! itself (the pipeline does), and decides nothing about who is calling (the transports do).

pub mod http;
mod input;
mod reply;
pub mod stdio;
mod tasks;
mod wire;

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CancelTaskParams, GetTaskParams,
    GetTaskResult, Implementation, JsonObject, ListToolsResult, MetaObject, PaginatedRequestParams,
    ProgressNotificationParam, ProgressToken, ProtocolVersion, ServerCapabilities, ServerConfig,
    Tool, ToolAnnotations, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::call::options::CallOptions;
use crate::caller::Caller;
use crate::catalog::{Catalog, Member};
use crate::context::{Progress, ProgressUpdate};
use crate::descriptor::{Descriptor, ToolKind};
use crate::registry::Registry;
use crate::task::{Accept, Submitted};
use toolspec_vocab::auth::MissingScope;
use toolspec_vocab::settings::PresentAs;
use toolspec_vocab::{Dialect, hints};

#[doc(no_inline)]
pub use rmcp;

/// The adapter's name in specs (`tool: {mcp: …}`) and in the registry.
pub const ADAPTER: &str = "mcp";

/// The protocol versions served: the newest (stateless over HTTP) and the two before it.
pub const PROTOCOL_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2026_07_28,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2025_06_18,
];

/// `_meta` key carrying a tool's tags.
pub const META_TAGS: &str = "toolspec/tags";
/// `_meta` key carrying a tool's spec version.
pub const META_VERSION: &str = "toolspec/version";
pub use reply::META_ERROR;

/// Every tool of `registry` that is a member of the MCP adapter, as rmcp tools sorted by
/// their MCP names.
pub fn tools(registry: &Registry) -> Vec<Tool> {
    Listing::mcp(registry).tools_for(&Caller::default())
}

/// Whether `tool` may reach beyond the app's own data (MCP's `openWorldHint`): as its hints say,
/// else an action may, while a query tool and the built-in tools read only the app's own data.
fn open_world(tool: &Descriptor) -> bool {
    if tool.has_hint_for(ADAPTER, hints::OPEN_WORLD) {
        return true;
    }
    tool.kind == ToolKind::Action && !tool.has_hint_for(ADAPTER, hints::CLOSED_WORLD)
}

/// One descriptor as an rmcp tool, or `None` when the tool is not a member of the MCP
/// adapter.
pub fn wrap(tool: &Descriptor) -> Option<Tool> {
    let name = tool.name_text_for(ADAPTER)?;
    let input_schema = object(
        tool.schema_for(ADAPTER, Dialect::Mcp)
            .unwrap_or(&tool.input_schema),
    );
    let hint = |hint: &str| tool.has_hint_for(ADAPTER, hint);
    let read_only = hint(hints::READ_ONLY);
    let mut annotations = ToolAnnotations::new()
        .read_only(read_only)
        .destructive(!read_only && hint(hints::DESTRUCTIVE))
        .idempotent(read_only || hint(hints::IDEMPOTENT))
        .open_world(open_world(tool));
    let mut meta = JsonObject::new();
    if !tool.tags.is_empty() {
        meta.insert(META_TAGS.into(), json!(tool.tags));
    }
    if let Some(version) = tool.version {
        meta.insert(META_VERSION.into(), json!(version));
    }
    let mut wrapped = Tool::new(name, tool.description_text_for(ADAPTER), input_schema);
    if let Some(title) = tool.title_for(ADAPTER) {
        wrapped.title = Some(title.to_owned());
        annotations.title = Some(title.to_owned());
    }
    // A tool that exposes nothing publishes no `outputSchema` (MCP makes it optional, and an
    // object without properties says nothing); its results still carry `structuredContent: {}`.
    wrapped.output_schema = (!tool.exposes_nothing()).then(|| object(&tool.output_schema));
    wrapped.annotations = Some(annotations);
    wrapped.meta = (!meta.is_empty()).then(|| MetaObject(meta));
    Some(wrapped)
}

/// A schema embedded at build time, as the JSON object rmcp carries (an empty object if the
/// build embedded something else, which the codegen never does).
fn object(schema: &str) -> Arc<JsonObject> {
    match serde_json::from_str(schema) {
        Ok(Value::Object(map)) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The MCP tools of a registry, projected once: sorted by MCP name, each with its descriptor
/// and `present_as`, found by MCP name. [`McpServer`] serves from it.
pub type Listing = Catalog<Tool>;

impl Listing {
    /// Every MCP member of `registry`.
    pub fn mcp(registry: &Registry) -> Self {
        Catalog::of(registry, ADAPTER, |registered| {
            wrap(registered.descriptor())
        })
    }

    /// These descriptors (those that are MCP members), each presented as given.
    pub fn from_descriptors(
        descriptors: impl IntoIterator<Item = (&'static Descriptor, PresentAs)>,
    ) -> Self {
        Catalog::new(
            descriptors
                .into_iter()
                .filter_map(|(descriptor, present_as)| {
                    let name = descriptor.name_for(ADAPTER)?;
                    Some(Member::new(name, descriptor, present_as, wrap(descriptor)?))
                }),
        )
    }

    /// Every tool `caller` may see, sorted by MCP name.
    pub fn tools_for(&self, caller: &Caller) -> Vec<Tool> {
        self.page(caller, 0, None).0
    }

    /// The tools `caller` may see from position `offset` on, at most `size` of them (all
    /// without a size), and the offset of the next page if any remain.
    pub fn page(
        &self,
        caller: &Caller,
        offset: usize,
        size: Option<usize>,
    ) -> (Vec<Tool>, Option<usize>) {
        let mut visible = self.visible(Some(caller)).skip(offset);
        let tools: Vec<Tool> = visible
            .by_ref()
            .take(size.unwrap_or(usize::MAX))
            .map(|member| member.declaration.clone())
            .collect();
        let next = visible.next().is_some().then(|| offset + tools.len());
        (tools, next)
    }
}

/// An MCP server over a registry: cheap to clone (the streamable HTTP transport makes one
/// per request).
#[derive(Clone)]
pub struct McpServer {
    shared: Arc<Shared>,
    /// The caller of requests that carry none of their own (stdio, unauthenticated HTTP).
    caller: Arc<Caller>,
}

#[derive(Clone)]
struct Shared {
    registry: Arc<Registry>,
    listing: Listing,
    info: ServerConfig,
    /// How long clients may treat a `tools/list` result as fresh.
    list_ttl: Duration,
    /// Whether what `tools/list` shows depends on who asks (some tool needs scopes): its
    /// results are then `private` to the caller, else `public`.
    personal_listing: bool,
    /// Tools per `tools/list` page; `None`: every tool in one result.
    page_size: Option<usize>,
    /// What a caller over HTTP without a tool's scopes meets.
    missing_scope: MissingScope,
}

impl McpServer {
    /// Serves every MCP member of `registry`, as `caller` unless a transport says otherwise.
    pub fn new(registry: impl Into<Arc<Registry>>, caller: Caller) -> Self {
        let registry = registry.into();
        let listing = Listing::mcp(&registry);
        let personal_listing = listing
            .visible(None)
            .any(|member| !member.descriptor.scopes.is_empty());
        let tasks = registry.serves_tasks();
        let capabilities = match tasks {
            true => ServerCapabilities::builder()
                .enable_tools()
                .enable_tasks()
                .build(),
            false => ServerCapabilities::builder().enable_tools().build(),
        };
        let mut info = ServerConfig::new(capabilities);
        // The crate the tools were compiled into introduces itself (toolspec when unknown).
        info.server_info = match registry.project().package {
            Some(package) => Implementation::new(package.name, package.version),
            None => Implementation::new("toolspec", env!("CARGO_PKG_VERSION")),
        };
        let missing_scope = registry.project().auth.on_missing_scope;
        Self {
            shared: Arc::new(Shared {
                registry,
                listing,
                info,
                list_ttl: Duration::ZERO,
                personal_listing,
                page_size: None,
                missing_scope,
            }),
            caller: Arc::new(caller),
        }
    }

    /// Names this server to clients in `initialize` (`serverInfo`); by default the crate the
    /// tools were compiled into, with its version.
    pub fn with_server_info(mut self, name: &str, version: &str) -> Self {
        Arc::make_mut(&mut self.shared).info.server_info = Implementation::new(name, version);
        self
    }

    /// Tells clients (protocol 2026-07-28 caching hints, `ttlMs`) that a `tools/list` result
    /// stays fresh for `ttl`. The default is zero: clients re-fetch whenever they need the
    /// list. The listing never changes while the server runs, so a server deployed with its
    /// tools can give a long one.
    pub fn with_list_ttl(mut self, ttl: Duration) -> Self {
        Arc::make_mut(&mut self.shared).list_ttl = ttl;
        self
    }

    /// Splits `tools/list` into pages of `size` tools (at least one), linked by `nextCursor`.
    /// Without it every tool comes in one result, which is what most clients expect; large
    /// catalogs page to keep each response small.
    pub fn with_page_size(mut self, size: usize) -> Self {
        Arc::make_mut(&mut self.shared).page_size = Some(size.max(1));
        self
    }

    /// What a caller over HTTP without a tool's scopes meets (the project's `auth: {
    /// on_missing_scope }` by default): [`MissingScope::Hide`] — the tool is not listed and
    /// calling it is an unknown tool (`-32602`); [`MissingScope::Challenge`] — it is listed,
    /// and the HTTP transport answers a `tools/call` of it (or of `explain` naming it) `403`
    /// with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`. Over stdio,
    /// tools are always hidden.
    pub fn with_missing_scope(mut self, policy: MissingScope) -> Self {
        Arc::make_mut(&mut self.shared).missing_scope = policy;
        self
    }

    /// Lists and calls only the tools `selection` admits (those of some modules or tags,
    /// [`toolspec::Selection`](crate::Selection)): the others are unknown tools to this server.
    pub fn select(mut self, selection: &crate::catalog::Selection) -> Self {
        let shared = Arc::make_mut(&mut self.shared);
        shared.listing.retain(selection);
        shared.personal_listing = shared
            .listing
            .visible(None)
            .any(|member| !member.descriptor.scopes.is_empty());
        self
    }

    /// What a caller over HTTP without a tool's scopes meets.
    pub fn missing_scope(&self) -> MissingScope {
        self.shared.missing_scope
    }

    /// The registry this server calls into.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.shared.registry
    }

    /// What this server lists.
    pub fn listing(&self) -> &Listing {
        &self.shared.listing
    }

    /// Serves on stdin/stdout until the client disconnects or `shutdown` is cancelled (a
    /// signal, say), then waits for the audit trail to write what is queued.
    pub async fn serve_stdio_until(self, shutdown: CancellationToken) -> Result<(), ServeError> {
        #[cfg(unix)]
        if let Some((input, output)) = stdio::pipes() {
            return self.serve_on_until(input, output, shutdown).await;
        }
        self.serve_on_until(tokio::io::stdin(), tokio::io::stdout(), shutdown)
            .await
    }

    /// Serves on stdin/stdout until the client disconnects (see [`stdio`] for how lines are
    /// read and screened). When both are pipes (as when an MCP client starts the server),
    /// they are read and written on the runtime's event loop; otherwise (a terminal, a file)
    /// through tokio's stdio, which hands every read and write to a blocking thread.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        #[cfg(unix)]
        if let Some((input, output)) = stdio::pipes() {
            return self.serve_on(input, output).await;
        }
        self.serve_on(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Serves on one byte stream each way (newline-delimited JSON-RPC, as on stdio) until
    /// the client disconnects, then waits for the audit trail to write what is queued.
    pub async fn serve_on<R, W>(self, input: R, output: W) -> Result<(), ServeError>
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        self.serve_on_until(input, output, CancellationToken::new())
            .await
    }

    /// [`serve_on`](Self::serve_on), stopping also when `shutdown` is cancelled.
    pub async fn serve_on_until<R, W>(
        self,
        input: R,
        output: W,
        shutdown: CancellationToken,
    ) -> Result<(), ServeError>
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        let registry = Arc::clone(&self.shared.registry);
        // The caller is fixed here: a tool its context cannot serve fails now, not in a call.
        if let Err(mismatch) = registry.check_caller(ADAPTER, &self.caller) {
            return Err(ServeError::Caller(mismatch));
        }
        registry.start_tasks();
        let limits = *registry.limits();
        let (transport, writer) = stdio::transport(input, output, limits);
        let running = self
            .serve(transport)
            .await
            .map_err(|e| ServeError::Initialize(Box::new(e)))?;
        let stop = running.cancellation_token();
        let watch = tokio::spawn(async move {
            shutdown.cancelled().await;
            stop.cancel();
        });
        let served = running
            .waiting()
            .await
            .map(|_| ())
            .map_err(ServeError::Task);
        watch.abort();
        // Every answer is written, and recorded, before the server is done.
        let _ = writer.await;
        registry.flush_audit().await;
        served
    }

    /// The caller of one request: the one an HTTP authenticator attached to it, else the
    /// server's own.
    fn caller_of<'a>(&'a self, context: &'a RequestContext<RoleServer>) -> &'a Caller {
        context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Arc<Caller>>())
            .map(Arc::as_ref)
            .unwrap_or(&self.caller)
    }

    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let caller = self.caller_of(&context);
        let (listed, registered) = self
            .shared
            .listing
            .dispatch(&self.shared.registry, &request.name, caller)
            .ok_or_else(|| unknown_tool(&request.name))?;
        let accept = tasks::accepts(&context);
        if let Some(task) = &registered.descriptor().task {
            if task.is_required() && accept != Accept::Tasks {
                return Err(tasks::extension_required());
            }
            self.shared.registry.start_tasks();
        }
        let mut continuation = input::continuation(&request)?;
        let arguments = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let reporter = context
            .meta
            .get_progress_token()
            .map(|token| ProgressForwarder::start(context.peer.clone(), token));
        let asking = input::asking(&context);
        let mut rounds = 0;
        let submitted = loop {
            let options = CallOptions {
                cancellation: context.ct.clone(),
                progress: reporter
                    .as_ref()
                    .map(ProgressForwarder::progress)
                    .unwrap_or_default(),
                continuation: continuation.take(),
                ..CallOptions::for_caller(ADAPTER, caller)
            };
            let submitted = registered
                .submit_with(arguments.clone(), &caller.ambient, options, accept)
                .await;
            // An earlier protocol's client is asked during the call, round after round.
            match submitted {
                Submitted::Input(input)
                    if asking == input::Asking::Elicitation && rounds < input::MAX_ROUNDS =>
                {
                    rounds += 1;
                    continuation = Some(input::elicit(&context.peer, &input).await);
                }
                submitted => break submitted,
            }
        };
        if let Some(reporter) = reporter {
            reporter.finish().await;
        }
        Ok(match submitted {
            Submitted::Done(result) => {
                if let Some(refused) = input::refused_state(&result) {
                    return Err(refused);
                }
                CallToolResponse::Complete(reply::reply(result, listed.present_as))
            }
            Submitted::Task(task) => CallToolResponse::Task(tasks::created(&task)),
            Submitted::Input(input) if asking == input::Asking::Result => {
                CallToolResponse::InputRequired(input::result(&input)?)
            }
            Submitted::Input(_) if asking == input::Asking::Missing => {
                return Err(input::elicitation_required());
            }
            Submitted::Input(input) => CallToolResponse::Complete(reply::reply(
                input::unanswerable(&input),
                listed.present_as,
            )),
        })
    }
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("tools", &self.shared.listing.len())
            .field("caller", &self.caller.id)
            .finish()
    }
}

/// The offset a `tools/list` cursor stands for: cursors are the offsets this server hands
/// out in `nextCursor`, so anything else (or any cursor when the server does not page) is
/// refused as invalid params, as MCP asks.
fn parse_cursor(cursor: &str, page_size: Option<usize>) -> Result<usize, ErrorData> {
    page_size
        .and_then(|_| cursor.parse::<usize>().ok())
        .filter(|offset| offset.to_string() == cursor)
        .ok_or_else(|| ErrorData::invalid_params(format!("Invalid cursor: {cursor}"), None))
}

/// The MCP answer to a tool that does not exist, or that this caller may not see.
fn unknown_tool(name: &str) -> ErrorData {
    ErrorData::invalid_params(format!("Unknown tool: {name}"), None)
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        self.shared.info.clone()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(PROTOCOL_VERSIONS)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let shared = &self.shared;
        let offset = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(cursor) => parse_cursor(&cursor, shared.page_size)?,
        };
        // Challenged over HTTP, every tool is listed (a call tells what it needs).
        let over_http = context
            .extensions
            .get::<axum::http::request::Parts>()
            .is_some();
        let challenged = over_http && shared.missing_scope == MissingScope::Challenge;
        let everyone = Caller::default();
        let caller = if challenged {
            &everyone
        } else {
            self.caller_of(&context)
        };
        let (tools, next) = shared.listing.page(caller, offset, shared.page_size);
        let mut result = ListToolsResult::with_all_items(tools);
        result.next_cursor = next.map(|offset| offset.to_string());
        result.ttl_ms = Some(u64::try_from(shared.list_ttl.as_millis()).unwrap_or(u64::MAX));
        result.cache_scope = Some(if shared.personal_listing && !challenged {
            CacheScope::Private
        } else {
            CacheScope::Public
        });
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.call(request, context).await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let caller = self.caller_of(&context);
        self.shared.registry.start_tasks();
        let task = tasks::read(&self.shared.registry, &request.task_id, caller).await?;
        // Its result is presented as its tool presents a direct call's.
        let present_as = self
            .shared
            .listing
            .visible(None)
            .find(|member| member.descriptor.name == task.tool)
            .map_or(PresentAs::Structured, |member| member.present_as);
        Ok(tasks::got(&task, present_as))
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let caller = self.caller_of(&context);
        tasks::cancel(&self.shared.registry, &request.task_id, caller).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let caller = self.caller_of(&context);
        tasks::update(&self.shared.registry, &request.task_id, caller).await
    }

    /// The tool named `name` as this server's own caller sees it (rmcp asks without saying
    /// for whom; a tool outside that caller's scopes is `None`, as if it did not exist).
    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.shared
            .listing
            .find(name, &self.caller)
            .map(|member| member.declaration.clone())
    }
}

/// Why a transport stopped serving; its cause is its [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The fixed caller's ambient context cannot serve some of the tools it may call.
    #[error("the MCP server stopped: it did not start")]
    Caller(#[source] crate::registry_error::CallerMismatch),
    /// The client's session did not initialize.
    #[error("the MCP server stopped: the session did not initialize")]
    Initialize(#[source] Box<rmcp::service::ServerInitializeError>),
    /// The task serving the session failed.
    #[error("the MCP server stopped: its task failed")]
    Task(#[source] tokio::task::JoinError),
}

/// Sends a handler's progress reports to the client as `notifications/progress`, in order,
/// all of them before the call's response. Clients send a progress token with every request,
/// while few handlers report progress: the forwarding task starts with the first report.
struct ProgressForwarder {
    peer: Peer<RoleServer>,
    token: ProgressToken,
    state: Arc<std::sync::Mutex<Forwarding>>,
}

enum Forwarding {
    Idle,
    Running {
        sender: mpsc::UnboundedSender<ProgressUpdate>,
        task: tokio::task::JoinHandle<()>,
    },
    /// The call is over; later reports (from a handler that kept its reporter) are dropped.
    Finished,
}

impl ProgressForwarder {
    fn start(peer: Peer<RoleServer>, token: ProgressToken) -> Self {
        Self {
            peer,
            token,
            state: Arc::new(std::sync::Mutex::new(Forwarding::Idle)),
        }
    }

    fn progress(&self) -> Progress {
        let (peer, token, state) = (self.peer.clone(), self.token.clone(), self.state.clone());
        Progress::new(move |update| {
            let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
            if let Forwarding::Idle = *state {
                let (sender, updates) = mpsc::unbounded_channel();
                let task = tokio::spawn(forward(peer.clone(), token.clone(), updates));
                *state = Forwarding::Running { sender, task };
            }
            if let Forwarding::Running { sender, .. } = &*state {
                let _ = sender.send(update);
            }
        })
    }

    /// Waits until every report made during the call has been sent.
    async fn finish(self) {
        let previous = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            std::mem::replace(&mut *state, Forwarding::Finished)
        };
        if let Forwarding::Running { sender, task } = previous {
            // Closing the channel ends the task once it has sent what is queued.
            drop(sender);
            let _ = task.await;
        }
    }
}

async fn forward(
    peer: Peer<RoleServer>,
    token: ProgressToken,
    mut updates: mpsc::UnboundedReceiver<ProgressUpdate>,
) {
    while let Some(update) = updates.recv().await {
        let param = ProgressNotificationParam::new(token.clone(), update.fraction)
            .with_total(1.0)
            .with_message(update.message);
        if let Err(e) = peer.notify_progress(param).await {
            tracing::debug!(error = %e, "a progress notification was not delivered");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use serde_json::json;

    use super::*;
    use crate::descriptor::AdapterBinding;

    fn mcp() -> Cow<'static, [AdapterBinding]> {
        Cow::Owned(vec![AdapterBinding {
            adapter: "mcp".into(),
            name: Some("mcp_name".into()),
            ..AdapterBinding::member("")
        }])
    }

    fn tool(hints: &[&'static str]) -> Descriptor {
        Descriptor {
            name: "canonical".into(),
            kind: ToolKind::Action,
            hints: hints.iter().map(|&h| Cow::Borrowed(h)).collect(),
            tags: vec!["a".into(), "b".into()].into(),
            version: Some(3),
            ..Descriptor::explain(
                "canonical".into(),
                mcp(),
                crate::descriptor::AuditPolicy::OFF,
            )
        }
    }

    fn annotations(hints: &[&'static str]) -> Value {
        let wrapped = wrap(&tool(hints)).expect("a member");
        serde_json::to_value(wrapped.annotations).unwrap()
    }

    #[test]
    fn every_annotation_is_explicit_and_follows_the_hints() {
        let hints = |read_only, destructive, idempotent, open_world| {
            json!({
                "title": "Explain a call",
                "readOnlyHint": read_only,
                "destructiveHint": destructive,
                "idempotentHint": idempotent,
                "openWorldHint": open_world
            })
        };
        assert_eq!(annotations(&[]), hints(false, false, false, true));
        // A query tool and a built-in tool read the app's own data: closed-world unless told.
        for kind in [ToolKind::Query, ToolKind::Explain] {
            let closed = Descriptor { kind, ..tool(&[]) };
            let wrapped = serde_json::to_value(wrap(&closed).unwrap().annotations).unwrap();
            assert_eq!(wrapped, hints(false, false, false, false), "{kind:?}");
            let open = Descriptor {
                kind,
                ..tool(&["open_world"])
            };
            let wrapped = serde_json::to_value(wrap(&open).unwrap().annotations).unwrap();
            assert_eq!(wrapped["openWorldHint"], true, "{kind:?}");
        }
        assert_eq!(annotations(&["read_only"]), hints(true, false, true, true));
        assert_eq!(
            annotations(&["destructive", "closed_world"]),
            hints(false, true, false, false)
        );
        assert_eq!(
            annotations(&["idempotent", "open_world"]),
            hints(false, false, true, true)
        );
    }

    #[test]
    fn a_wrapped_tool_has_its_mcp_name_schemas_and_meta() {
        let wrapped = serde_json::to_value(wrap(&tool(&[])).unwrap()).unwrap();
        assert_eq!(wrapped["name"], "mcp_name");
        assert_eq!(wrapped["title"], "Explain a call");
        assert_eq!(wrapped["inputSchema"]["required"], json!(["tool"]));
        assert_eq!(wrapped["outputSchema"]["type"], "object");
        assert_eq!(
            wrapped["_meta"],
            json!({ "toolspec/tags": ["a", "b"], "toolspec/version": 3 })
        );
        let outsider = Descriptor {
            adapters: Cow::Borrowed(&[]),
            ..tool(&[])
        };
        assert!(wrap(&outsider).is_none());
    }

    #[test]
    fn the_mcp_options_title_description_and_hints_are_what_mcp_lists() {
        let own = Descriptor {
            adapters: Cow::Owned(vec![AdapterBinding {
                adapter: "mcp".into(),
                title: Some("Health check".into()),
                description: Some("Answers whether the service is up.".into()),
                hints: Some(vec!["read_only".into()].into()),
                ..AdapterBinding::member("")
            }]),
            ..tool(&["destructive"])
        };
        let wrapped = serde_json::to_value(wrap(&own).unwrap()).unwrap();
        assert_eq!(wrapped["title"], "Health check");
        assert_eq!(wrapped["annotations"]["title"], "Health check");
        assert_eq!(wrapped["description"], "Answers whether the service is up.");
        assert_eq!(
            (
                &wrapped["annotations"]["readOnlyHint"],
                &wrapped["annotations"]["destructiveHint"]
            ),
            (&json!(true), &json!(false)),
            "the adapter's hints, not the tool's"
        );
    }

    #[test]
    fn a_tool_that_exposes_nothing_publishes_no_output_schema() {
        let silent = Descriptor {
            output_schema: r#"{"type":"object","properties":{},"additionalProperties":false}"#
                .into(),
            ..tool(&[])
        };
        assert!(silent.exposes_nothing());
        let wrapped = serde_json::to_value(wrap(&silent).unwrap()).unwrap();
        assert!(wrapped.get("outputSchema").is_none(), "{wrapped:#}");
        assert!(!tool(&[]).exposes_nothing());
    }

    #[test]
    fn the_listing_filters_by_scope_and_finds_by_mcp_name() {
        let open: &'static Descriptor = Box::leak(Box::new(tool(&[])));
        let guarded: &'static Descriptor = Box::leak(Box::new(Descriptor {
            name: "guarded".into(),
            scopes: vec!["orders:write".into()].into(),
            adapters: vec![AdapterBinding {
                adapter: "mcp".into(),
                name: Some("a_guarded".into()),
                ..AdapterBinding::member("")
            }]
            .into(),
            ..open.clone()
        }));
        let listing = Listing::from_descriptors([
            (open, PresentAs::Structured),
            (guarded, PresentAs::Message),
        ]);
        let names = |caller: &Caller| -> Vec<String> {
            listing
                .tools_for(caller)
                .into_iter()
                .map(|t| t.name.into_owned())
                .collect()
        };
        assert_eq!(names(&Caller::default()), ["a_guarded", "mcp_name"]);
        assert_eq!(
            names(&Caller::new("reader").with_scopes(["orders:read"])),
            ["mcp_name"]
        );
        assert_eq!(
            listing
                .get("a_guarded")
                .map(|member| member.declaration.name.as_ref()),
            Some("a_guarded")
        );
        assert!(
            listing.get("guarded").is_none(),
            "found by its MCP name only"
        );

        let page = |caller: &Caller, offset, size| {
            let (tools, next) = listing.page(caller, offset, size);
            let names: Vec<String> = tools.into_iter().map(|t| t.name.into_owned()).collect();
            (names, next)
        };
        let everyone = Caller::default();
        let reader = Caller::new("reader").with_scopes(["orders:read"]);
        assert_eq!(
            page(&everyone, 0, Some(1)),
            (vec!["a_guarded".into()], Some(1))
        );
        assert_eq!(page(&everyone, 1, Some(1)), (vec!["mcp_name".into()], None));
        assert_eq!(
            page(&everyone, 0, Some(5)).1,
            None,
            "no page after the last"
        );
        assert_eq!(page(&reader, 0, Some(1)), (vec!["mcp_name".into()], None));
        assert_eq!(page(&everyone, 7, Some(1)), (vec![], None));
        assert_eq!(page(&everyone, 0, None).0.len(), 2);
    }
}
