//! The MCP adapter (feature `mcp`): every member tool of a [`Registry`] served to MCP clients
//! through the official `rmcp` SDK, over stdio and streamable HTTP.
//!
//! - [`tools`] projects the registry's members to rmcp [`Tool`]s: MCP name, title,
//!   description (with preconditions and errors), the canonical input schema (ambient fields
//!   absent), the output schema, all four annotations set from the spec's hints, tags and
//!   version in `_meta`. The listing (`listing`) keeps each as the JSON text it serializes
//!   to; `toolspec schema --dialect mcp` prints the listing of the compiled specs.
//! - [`McpServer`] implements rmcp's `ServerHandler`: `tools/list` from that listing (sorted
//!   by name, filtered by the caller's scopes; over stdio and stateless HTTP the transport
//!   writes each caller's page as bytes joined once), `tools/call` through the pipeline
//!   with the caller's trusted ambient context, progress and cancellation.
//! - Tools that declare `task:` are served through the tasks extension (`tasks`): a client
//!   that declares it gets a task handle, then `tasks/get` and `tasks/cancel`.
//! - [`McpServer::serve_stdio`] runs it on stdin/stdout; [`http::HttpTransport`] mounts it at
//!   `/mcp` in axum, with an [`Authenticator`](crate::auth::Authenticator) deciding who each request comes from.
//!
//! Who is calling never comes from the arguments: on stdio it is the [`Caller`] the server was
//! configured with, on HTTP the one the authenticator returned. A tool whose scopes the caller
//! lacks is neither listed nor callable, and calling it looks exactly like calling a tool that
//! does not exist (JSON-RPC `-32602`) — unless the server challenges
//! ([`McpServer::with_missing_scope`]): over HTTP the tool is then listed, and the transport
//! answers a call of it `403` naming the scopes to ask for (stdio keeps hiding).
//!
//! This module holds the `ServerHandler`; `listing` the tools it lists, `stdio` and `http` the
//! transports, `wire` screens their messages; `direct` reads a plain `tools/call` and makes
//! the message answering it, for `http` (stdio answers every request through rmcp's service
//! loop). It never validates arguments or renders errors
//! itself (the pipeline does), and decides nothing about who is calling (the transports do).

mod direct;
pub mod http;
mod input;
mod listing;
mod reply;
pub mod stdio;
mod tasks;
mod wire;

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CancelTaskParams, GetTaskParams,
    GetTaskResult, Implementation, ListToolsResult, PaginatedRequestParams, ProgressNotification,
    ProgressNotificationParam, ProgressToken, ProtocolVersion, ServerCapabilities, ServerConfig,
    ServerJsonRpcMessage, ServerNotification, Tool, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::call::options::CallOptions;
use crate::model::caller::Caller;
use crate::model::context::{Progress, ProgressUpdate};
use crate::model::task::{Accept, Submitted};
use crate::registry::Registry;
use toolspec_vocab::auth::MissingScope;
use toolspec_vocab::settings::PresentAs;

#[doc(no_inline)]
pub use rmcp;

/// The protocol versions served: the newest (stateless over HTTP) and the two before it.
pub const PROTOCOL_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2026_07_28,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2025_06_18,
];

pub use input::ELICITATION_TIMEOUT;
pub use listing::tools;
#[doc(hidden)]
pub use listing::{ADAPTER, Listed, Listing, META_TAGS, META_VERSION};
use listing::{PreparedPages, ToolsSlot};
#[doc(hidden)]
pub use reply::META_ERROR;

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
    /// The listing's pages as transports write them, joined once per caller's scopes.
    pages: Arc<PreparedPages>,
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
    /// How long a call waits for its client to answer one `elicitation/create`.
    elicitation_timeout: Duration,
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
                pages: Arc::default(),
                info,
                list_ttl: Duration::ZERO,
                personal_listing,
                page_size: None,
                missing_scope,
                elicitation_timeout: input::ELICITATION_TIMEOUT,
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
        let shared = Arc::make_mut(&mut self.shared);
        shared.page_size = Some(size.max(1));
        shared.pages = Arc::default();
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

    /// How long a call of a session (protocols before 2026-07-28) waits for its client to
    /// answer one `elicitation/create` (a confirmation, a form; default
    /// [`ELICITATION_TIMEOUT`], two minutes). Past it, the client is told the request is
    /// cancelled and the question counts as dismissed: the call answers `declined`, and
    /// nothing was done.
    pub fn with_elicitation_timeout(mut self, wait: Duration) -> Self {
        Arc::make_mut(&mut self.shared).elicitation_timeout = wait;
        self
    }

    /// Lists and calls only the tools `selection` admits (those of some modules or tags,
    /// [`toolspec::Selection`](crate::Selection)): the others are unknown tools to this server.
    pub fn select(mut self, selection: &crate::registry::catalog::Selection) -> Self {
        let shared = Arc::make_mut(&mut self.shared);
        shared.listing.retain(selection);
        shared.pages = Arc::default();
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

    /// Starts the registry's task worker for the tools this server serves (see
    /// [`Registry::start_tasks_of`]).
    pub(crate) fn start_tasks(&self) -> bool {
        let shared = &self.shared;
        shared.registry.start_tasks_of(shared.listing.task_tools())
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
        self.start_tasks();
        let limits = *registry.limits();
        let transport = stdio::transport(input, output, limits);
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
        // Every answer is written (rmcp drains them before it closes the transport); every
        // call is recorded before the server is done.
        registry.flush_audit().await;
        served
    }

    /// The caller of one request: the one an HTTP authenticator attached to it, else the
    /// server's own.
    fn caller_of<'a>(&'a self, context: &'a RequestContext<RoleServer>) -> &'a Caller {
        let parts = context.extensions.get::<axum::http::request::Parts>();
        self.caller_in(parts.map(|parts| &parts.extensions))
    }

    /// The caller of the HTTP request whose extensions are `extensions` (none: stdio): the
    /// one an authenticator attached to it, else the server's own.
    fn caller_in<'a>(&'a self, extensions: Option<&'a axum::http::Extensions>) -> &'a Arc<Caller> {
        extensions
            .and_then(|extensions| extensions.get::<Arc<Caller>>())
            .unwrap_or(&self.caller)
    }

    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let reporter = context
            .meta
            .get_progress_token()
            .map(|token| ProgressForwarder::start(Notifier::Peer(context.peer.clone()), token));
        let session = Session {
            caller: self.caller_of(&context),
            cancellation: context.ct.clone(),
            reporter,
            accept: tasks::accepts(&context),
            asking: input::asking(&context),
            peer: Some(&context.peer),
        };
        self.submit(request, session).await
    }

    /// The `tools/list` page at `cursor` for `caller`, over HTTP or not; its tools put into
    /// `slot` as prepared bytes when the transport writes the result itself, else in the
    /// result.
    fn list(
        &self,
        cursor: Option<&str>,
        caller: &Caller,
        over_http: bool,
        slot: Option<&ToolsSlot>,
    ) -> Result<ListToolsResult, ErrorData> {
        let shared = &self.shared;
        let offset = match cursor {
            None => 0,
            Some(cursor) => parse_cursor(cursor, shared.page_size)?,
        };
        // Challenged over HTTP, every tool is listed (a call tells what it needs).
        let challenged = over_http && shared.missing_scope == MissingScope::Challenge;
        let everyone = Caller::default();
        let caller = if challenged { &everyone } else { caller };
        let (mut result, next) = match slot {
            Some(slot) => {
                let page = shared
                    .pages
                    .page(&shared.listing, caller, offset, shared.page_size);
                slot.fill(page.tools);
                (ListToolsResult::with_all_items(Vec::new()), page.next)
            }
            None => {
                let (tools, next) = shared.listing.page(caller, offset, shared.page_size);
                (ListToolsResult::with_all_items(tools), next)
            }
        };
        result.next_cursor = next.map(|offset| offset.to_string());
        result.ttl_ms = Some(u64::try_from(shared.list_ttl.as_millis()).unwrap_or(u64::MAX));
        result.cache_scope = Some(if shared.personal_listing && !challenged {
            CacheScope::Private
        } else {
            CacheScope::Public
        });
        Ok(result)
    }

    /// Whether a call of the tool named `name` by `caller` needs nothing of rmcp's peer: its
    /// tool runs as no task and asks its user nothing (an unknown tool needs nothing either:
    /// its answer is an error, whoever answers).
    fn answers_directly(&self, name: &str, caller: &Caller) -> bool {
        self.shared.listing.find(name, caller).is_none_or(|member| {
            let tool = &member.descriptor;
            tool.task.is_none() && tool.confirm.is_none() && tool.ask.is_empty()
        })
    }

    /// A plain call ([`direct`]) by `caller`: no task, nothing to ask; the same pipeline and
    /// the same answer as [`call`](Self::call).
    async fn call_plain(
        self,
        request: CallToolRequestParams,
        caller: Arc<Caller>,
        cancellation: CancellationToken,
        progress: Option<direct::Progress>,
    ) -> Result<CallToolResponse, ErrorData> {
        let reporter = progress.map(|progress| {
            ProgressForwarder::start(Notifier::Direct(progress.write), progress.token)
        });
        let session = Session {
            caller: &caller,
            cancellation,
            reporter,
            accept: Accept::ResultsOnly,
            asking: input::Asking::Never,
            peer: None,
        };
        self.submit(request, session).await
    }

    /// `request` submitted through the pipeline as `session` allows, and its answer.
    async fn submit(
        &self,
        request: CallToolRequestParams,
        session: Session<'_>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Session {
            caller,
            cancellation,
            reporter,
            accept,
            asking,
            peer,
        } = session;
        let (listed, registered) = self
            .shared
            .listing
            .dispatch(&self.shared.registry, &request.name, caller)
            .ok_or_else(|| unknown_tool(&request.name))?;
        if let Some(task) = &registered.descriptor().task {
            if task.is_required() && accept != Accept::Tasks {
                return Err(tasks::extension_required(&request.name));
            }
            self.shared
                .registry
                .start_tasks_of([&**registered.descriptor()]);
        }
        let mut continuation = input::continuation(&request)?;
        let mut arguments = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        // Only a client asked during the call may need the arguments for another round.
        let elicits = peer.filter(|_| asking == input::Asking::Elicitation);
        let mut rounds = 0;
        let submitted = loop {
            let options = CallOptions {
                cancellation: cancellation.clone(),
                progress: reporter
                    .as_ref()
                    .map(ProgressForwarder::progress)
                    .unwrap_or_default(),
                continuation: continuation.take(),
                ..CallOptions::for_caller(ADAPTER, caller)
            };
            let sent = match elicits {
                Some(_) => arguments.clone(),
                None => std::mem::take(&mut arguments),
            };
            let submitted = registered
                .submit_with(sent, &caller.ambient, options, accept)
                .await;
            // An earlier protocol's client is asked during the call, round after round.
            match (submitted, elicits) {
                (Submitted::Input(input), Some(peer)) if rounds < input::MAX_ROUNDS => {
                    rounds += 1;
                    let wait = self.shared.elicitation_timeout;
                    match input::elicit(peer, &input, wait).await {
                        Ok(answers) => continuation = Some(answers),
                        Err(refused) => break Err(refused),
                    }
                }
                (submitted, _) => break Ok(submitted),
            }
        };
        if let Some(reporter) = reporter {
            reporter.finish().await;
        }
        answer(submitted?, asking, listed.present_as)
    }
}

/// What a `tools/call` may have of the session it came in: who calls, its cancellation and
/// progress, whether its client takes a task handle and how it can be asked, and rmcp's peer
/// (none for a call a transport answers itself).
struct Session<'a> {
    caller: &'a Caller,
    cancellation: CancellationToken,
    reporter: Option<ProgressForwarder>,
    accept: Accept,
    asking: input::Asking,
    peer: Option<&'a Peer<RoleServer>>,
}

/// What a call submitted through the pipeline answers over MCP, to a client that can be asked
/// as `asking` says.
fn answer(
    submitted: Submitted,
    asking: input::Asking,
    present_as: PresentAs,
) -> Result<CallToolResponse, ErrorData> {
    Ok(match submitted {
        Submitted::Done(result) => {
            if let Some(refused) = input::refused_state(&result) {
                return Err(refused);
            }
            CallToolResponse::Complete(reply::reply(result, present_as))
        }
        Submitted::Task(task) => CallToolResponse::Task(tasks::created(&task)),
        Submitted::Input(input) if asking == input::Asking::Result => {
            CallToolResponse::InputRequired(input::result(&input)?)
        }
        Submitted::Input(_) if asking == input::Asking::Missing => {
            return Err(input::elicitation_required());
        }
        Submitted::Input(input) => {
            CallToolResponse::Complete(reply::reply(input::unanswerable(&input), present_as))
        }
    })
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

/// The slot a transport gave a `tools/list` request for its tools, if any: in the message's
/// extensions (stdio), or in the HTTP request's.
fn tools_slot(context: &RequestContext<RoleServer>) -> Option<&ToolsSlot> {
    context.extensions.get::<ToolsSlot>().or_else(|| {
        context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<ToolsSlot>())
    })
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
        let over_http = context
            .extensions
            .get::<axum::http::request::Parts>()
            .is_some();
        let cursor = request.and_then(|r| r.cursor);
        self.list(
            cursor.as_deref(),
            self.caller_of(&context),
            over_http,
            tools_slot(&context),
        )
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
        self.start_tasks();
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
            .map(|member| member.declaration.tool().clone())
    }
}

/// Why a transport stopped serving; its cause is its [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The fixed caller's ambient context cannot serve some of the tools it may call.
    #[error("the MCP server stopped: it did not start")]
    Caller(#[source] crate::model::registry_error::CallerMismatch),
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
    notifier: Notifier,
    token: ProgressToken,
    state: Arc<std::sync::Mutex<Forwarding>>,
}

/// How progress reaches the client: through rmcp's peer, or written by a transport that
/// answers the call itself ([`direct`]).
#[derive(Clone)]
enum Notifier {
    Peer(Peer<RoleServer>),
    Direct(direct::Write),
}

impl Notifier {
    async fn notify(&self, param: ProgressNotificationParam) {
        match self {
            Self::Peer(peer) => {
                if let Err(e) = peer.notify_progress(param).await {
                    tracing::debug!(error = %e, "a progress notification was not delivered");
                }
            }
            // The message rmcp's peer would have sent.
            Self::Direct(write) => {
                let notification = ProgressNotification::new(param);
                write(ServerJsonRpcMessage::notification(
                    ServerNotification::ProgressNotification(notification),
                ))
                .await;
            }
        }
    }
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
    fn start(notifier: Notifier, token: ProgressToken) -> Self {
        Self {
            notifier,
            token,
            state: Arc::new(std::sync::Mutex::new(Forwarding::Idle)),
        }
    }

    fn progress(&self) -> Progress {
        let (notifier, token, state) = (
            self.notifier.clone(),
            self.token.clone(),
            self.state.clone(),
        );
        Progress::new(move |update| {
            let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
            if let Forwarding::Idle = *state {
                let (sender, updates) = mpsc::unbounded_channel();
                let task = tokio::spawn(forward(notifier.clone(), token.clone(), updates));
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
    notifier: Notifier,
    token: ProgressToken,
    mut updates: mpsc::UnboundedReceiver<ProgressUpdate>,
) {
    while let Some(update) = updates.recv().await {
        let param = ProgressNotificationParam::new(token.clone(), update.fraction)
            .with_total(1.0)
            .with_message(update.message);
        notifier.notify(param).await;
    }
}
