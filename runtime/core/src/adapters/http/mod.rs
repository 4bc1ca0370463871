//! The HTTP API (feature `http`): every member of the `http` adapter, for callers that are
//! neither MCP clients nor model providers — a web app, a workflow engine, another service.
//!
//! - `POST /tools/{name}` with the arguments as the JSON body (an empty body is `{}`) answers
//!   `200` with the exposed values;
//! - `GET /tools/{name}?key=value…` does the same for a `read_only` tool, each query parameter
//!   an argument (sent as text; the pipeline coerces it as the schema says);
//! - `POST /tools/{name}/explain` answers the explanation (arguments and guards, nothing run);
//! - `GET /tools` lists the tools the caller may call;
//! - a tool that declares `task:` answers `202 Accepted` with `Location: /tasks/{id}` when the
//!   request prefers `respond-async` (or, whatever it prefers, when its task is `required`);
//!   `GET /tasks/{id}`, `DELETE /tasks/{id}` and `GET /tasks` read, cancel and list the
//!   caller's tasks (`tasks`);
//! - `GET /openapi.json` is the OpenAPI 3.1 document of all of it, derived at build time;
//! - `GET /docs` is the tool catalog page of the caller's tools (`toolspec::docs`), rendered
//!   once per set of scopes and kept; with [`HttpApi::public_docs`] a request without a token
//!   gets the page of the tools that need no scope; each caller has a budget of requests for
//!   it ([`HttpApi::docs_rate_limit`]).
//!
//! Every failure has one shape, `{error, message, details?}`, and a status by its kind
//! ([`status_of`]): invalid arguments `422`, an unknown tool or one the caller's scopes do not
//! reach `404` (alike), a failed guard `412`, a declared error `409`, `not_found` `404`,
//! `locked` `423`, a timeout `504`, an internal failure `500` (the headline only); a path
//! nothing is routed to (`/tools/`, say) `404 unknown_path`, a method a route does not take
//! `405 method_not_allowed` with `Allow`. Requests are
//! authenticated by the same [`Authenticator`] as MCP over HTTP (`401` when it refuses), bodies
//! are bounded (`413`), and a client that goes away cancels its call. A caller without a tool's
//! scopes meets the project's `on_missing_scope`: the tool is unknown to it (`404`), or it is
//! listed and a call is answered `403` with `error="insufficient_scope"` naming the scopes
//! (see [`HttpApi::on_missing_scope`]). When the authenticator knows the protected resource,
//! its metadata document is served too (`/.well-known/oauth-protected-resource…`) and every
//! `401` and `403` names it.
//!
//! Which `Host` and `Origin` a request may name is a [`HostPolicy`]'s: served beside MCP
//! through `HttpTransport::with_routes`, the transport's covers these routes too; served
//! alone, the router checks none unless given one ([`HttpApi::host_policy`]).
//!
//! ```ignore
//! let api = HttpApi::new(registry, Caller::default()).authenticator(tokens);
//! axum::serve(listener, api.router()).await?;
//! ```

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Path, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;
use toolspec_vocab::adapters::HTTP;
use toolspec_vocab::auth::MissingScope;
use toolspec_vocab::http as statuses;
use toolspec_vocab::{codes, hints};

use crate::adapters::auth::authenticator::{Authenticator, authenticate};
use crate::adapters::gate::failure::{failure, shaped};
use crate::adapters::http::access::Access;
use crate::adapters::http::catalog_page::{Asker, PageKey};
use crate::call::options::CallOptions;
use crate::model::caller::Caller;
use crate::model::descriptor::Descriptor;
use crate::model::failure::{ToolError, ToolResult};
use crate::model::report::json_kind;
use crate::model::task::{Accept, Submitted};
use crate::model::user_input::Continuation;
use crate::registry::catalog::Catalog;
use crate::registry::{RegisteredTool, Registry};

mod access;
mod catalog_page;
mod input;
mod tasks;

use crate::adapters::gate::host::HostPolicy;
#[doc(hidden)]
pub use crate::adapters::http::access::unauthorized;
pub use crate::adapters::http::catalog_page::DOCS_RATE_LIMIT;

/// The largest request body accepted by default.
#[doc(hidden)]
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// How long a request may take by default, the tool's own `timeout` aside.
#[doc(hidden)]
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// The HTTP API over a registry's `http` members.
pub struct HttpApi {
    shared: Shared,
    /// Which `Host` and `Origin` every route accepts, when the API checks them itself.
    host_policy: Option<HostPolicy>,
    /// Whether some tools are left out ([`select`](Self::select)): the OpenAPI document then
    /// leaves out their paths too.
    selected: bool,
}

struct Shared {
    registry: Arc<Registry>,
    catalog: Catalog<Entry>,
    /// The caller of every request when no authenticator is set.
    caller: Caller,
    authenticator: Option<Arc<dyn Authenticator>>,
    max_body_bytes: usize,
    request_timeout: Duration,
    /// What a caller without a tool's scopes meets.
    on_missing_scope: MissingScope,
    /// `GET /docs`: what it has rendered, and how it is served.
    docs: Docs,
}

/// How `GET /docs` is served.
struct Docs {
    /// The catalog pages rendered.
    pages: catalog_page::CatalogPages,
    /// The budget per caller.
    budget: catalog_page::DocsBudget,
    /// Whether a request without a token gets the public page.
    public: bool,
    /// Where the page's curl examples send requests.
    base_url: String,
}

impl Shared {
    /// Starts the registry's task worker for the tools this API serves (see
    /// [`Registry::start_tasks_of`]).
    fn start_tasks(&self) -> bool {
        self.registry.start_tasks_of(self.catalog.task_tools())
    }

    fn access(&self) -> Access<'_, Entry> {
        Access {
            catalog: &self.catalog,
            registry: &self.registry,
            policy: self.on_missing_scope,
            resource: self
                .authenticator
                .as_ref()
                .and_then(|a| a.protected_resource()),
        }
    }
}

impl HttpApi {
    /// The API over `registry`'s `http` members, every request made as `caller` until an
    /// [`authenticator`](Self::authenticator) is set.
    pub fn new(registry: impl Into<Arc<Registry>>, caller: Caller) -> Self {
        let registry = registry.into();
        let catalog = Catalog::of(&registry, HTTP, |tool| Some(entry(tool.descriptor())));
        let on_missing_scope = registry.project().auth.on_missing_scope;
        Self {
            shared: Shared {
                registry,
                catalog,
                caller,
                authenticator: None,
                max_body_bytes: MAX_BODY_BYTES,
                request_timeout: REQUEST_TIMEOUT,
                on_missing_scope,
                docs: Docs {
                    pages: Default::default(),
                    budget: catalog_page::DocsBudget::new(Some(DOCS_RATE_LIMIT)),
                    public: false,
                    base_url: DOCS_BASE_URL.to_owned(),
                },
            },
            host_policy: None,
            selected: false,
        }
    }

    /// Serves only the tools `selection` admits (those of some modules or tags,
    /// [`toolspec::Selection`](crate::Selection)): the others are unknown tools (`404`), and
    /// the OpenAPI document leaves out their paths.
    pub fn select(mut self, selection: &crate::registry::catalog::Selection) -> Self {
        self.shared.catalog.retain(selection);
        self.selected |= !selection.is_all();
        self
    }

    /// Every request's caller comes from `authenticator` (`401` when it refuses one). When it
    /// knows its protected resource, the router serves the resource's metadata document.
    pub fn authenticator(mut self, authenticator: impl Authenticator) -> Self {
        self.shared.authenticator = Some(Arc::new(authenticator));
        self
    }

    /// What a caller without a tool's scopes meets (the project's `auth: { on_missing_scope
    /// }` by default): [`MissingScope::Hide`] — the tool is not listed and a call of it is an
    /// unknown tool (`404`); [`MissingScope::Challenge`] — it is listed, and a call (or an
    /// explanation) is answered `403` with `WWW-Authenticate: Bearer
    /// error="insufficient_scope", scope="…"` naming every scope the tool requires.
    pub fn on_missing_scope(mut self, policy: MissingScope) -> Self {
        self.shared.on_missing_scope = policy;
        self
    }

    /// Bodies longer than `bytes` are refused with `413`.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.shared.max_body_bytes = bytes;
        self
    }

    /// A request still running after `timeout` is answered `504` (and its call cancelled).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.shared.request_timeout = timeout;
        self
    }

    /// Whether `GET /docs` without an `Authorization` header answers the public catalog — the
    /// tools a caller without scopes may call, which needs no token to read — rather than
    /// `401` (the default). A request with a token still gets its caller's page, and one whose
    /// token the authenticator refuses `401`. Without an authenticator every request is the
    /// API's own caller, and this changes nothing.
    pub fn public_docs(mut self, public: bool) -> Self {
        self.shared.docs.public = public;
        self
    }

    /// How often each caller may ask for `GET /docs` ([`DOCS_RATE_LIMIT`] by default; `None`:
    /// no limit); past it, `429 rate_limited` with `Retry-After`. A caller with a token is
    /// counted by its id; the public page's callers by their peer address when the server gives
    /// it (`HttpTransport::serve` does, and `axum::serve` with
    /// `into_make_service_with_connect_info::<SocketAddr>()`), else all together.
    pub fn docs_rate_limit(mut self, limit: Option<crate::model::rate::RateLimit>) -> Self {
        self.shared.docs.budget = catalog_page::DocsBudget::new(limit);
        self
    }

    /// Where the catalog page's curl examples send requests (`https://tools.example.com`);
    /// without it they read the address from `$TOOLSPEC_URL`. The page never takes it from the
    /// request's `Host`.
    pub fn docs_base_url(mut self, url: &str) -> Self {
        self.shared.docs.base_url = url.trim_end_matches('/').to_owned();
        self
    }

    /// Serves every route only to the hosts and pages `policy` accepts (a request naming
    /// another host answers `403 host_not_allowed`, one from another site's page `403
    /// origin_not_allowed`, one without a `Host` `400 invalid_host`), before anything else.
    /// Without a policy the router checks neither header: merged into `HttpTransport`'s
    /// routes, the transport's policy covers it; served alone, give it one —
    /// [`HostPolicy::loopback`] is the transport's default.
    pub fn host_policy(mut self, policy: HostPolicy) -> Self {
        self.host_policy = Some(policy);
        self
    }

    /// The routes, to serve alone or to merge into an app's own router.
    pub fn router(self) -> Router {
        let openapi = self.shared.registry.project().openapi.map(|document| {
            match self.selected || self.shared.registry.is_read_only() {
                true => Bytes::from(served_paths(document, &self.shared.catalog)),
                false => Bytes::from_static(document.as_bytes()),
            }
        });
        let router = match openapi {
            Some(document) => {
                Router::new().route("/openapi.json", get(move || openapi_json(document.clone())))
            }
            None => Router::new(),
        };
        let metadata = self
            .shared
            .authenticator
            .as_ref()
            .and_then(|a| a.protected_resource())
            .map(|resource| resource.router());
        let router = router
            .route("/tools", get(list))
            .route("/docs", get(docs))
            .route(
                "/tools/{name}",
                post(call_posted).get(call_queried).fallback(other_method),
            )
            .route("/tools/{name}/explain", post(explain))
            .route("/tools/{name}/continue", post(continue_call))
            .route("/tasks", get(list_tasks))
            .route("/tasks/{id}", get(read_task).delete(cancel_task))
            .with_state(Arc::new(self.shared))
            .merge(metadata.unwrap_or_default());
        let router = shaped(router);
        match self.host_policy {
            Some(policy) => policy.guard(router),
            None => router,
        }
    }
}

/// `GET /openapi.json`: the document derived at build time (public: it is what a client reads
/// before it has a token).
async fn openapi_json(document: Bytes) -> Response {
    let content_type = HeaderValue::from_static("application/json");
    ([(header::CONTENT_TYPE, content_type)], document).into_response()
}

/// The build's OpenAPI `document` without the paths of the tools `catalog` leaves out
/// (`/tools/{name}` and the routes below it).
fn served_paths(document: &str, catalog: &Catalog<Entry>) -> String {
    let Ok(mut document) = serde_json::from_str::<Value>(document) else {
        return document.to_owned();
    };
    if let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) {
        paths.retain(|path, _| {
            let Some(rest) = path.strip_prefix("/tools/") else {
                return true;
            };
            let name = rest.split('/').next().unwrap_or_default();
            catalog.get(name).is_some()
        });
    }
    document.to_string()
}

/// Who is calling: the authenticator's caller, or the API's own.
async fn caller(shared: &Shared, parts: &Parts) -> Result<Caller, Response> {
    let Some(authenticator) = &shared.authenticator else {
        return Ok(shared.caller.clone());
    };
    authenticate(authenticator.as_ref(), parts)
        .await
        .map_err(|refusal| unauthorized(&refusal, authenticator.protected_resource()))
}

async fn list(State(shared): State<Arc<Shared>>, parts: Parts) -> Response {
    let caller = match caller(&shared, &parts).await {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    // Under a challenge, every tool is listed: a call tells what it needs.
    let challenge = shared.on_missing_scope == MissingScope::Challenge;
    let mut body = String::from(r#"{"tools":["#);
    for (i, member) in shared
        .catalog
        .visible((!challenge).then_some(&caller))
        .enumerate()
    {
        if i > 0 {
            body.push(',');
        }
        body.push_str(&member.declaration);
    }
    body.push_str("]}");
    let json = HeaderValue::from_static("application/json");
    (StatusCode::OK, [(header::CONTENT_TYPE, json)], body).into_response()
}

/// `GET /docs`: the tool catalog page of the tools the caller may call (every listed tool
/// under a challenge, as `GET /tools`), or without a token, when the API serves it, the public
/// page of the tools that need no scope; within the caller's budget; rendered once per set of
/// tools shown (the request's `Host` plays no part).
async fn docs(State(shared): State<Arc<Shared>>, parts: Parts) -> Response {
    let docs = &shared.docs;
    let public = docs.public
        && shared.authenticator.is_some()
        && !parts.headers.contains_key(header::AUTHORIZATION);
    let caller = match public {
        true => None,
        false => match caller(&shared, &parts).await {
            Ok(caller) => Some(caller),
            Err(refused) => return refused,
        },
    };
    let asker = match &caller {
        // Callers without an id share one budget, as their calls of a tool do.
        Some(caller) => Asker::Caller(caller.id.as_deref().unwrap_or_default()),
        None => match parts.extensions.get::<ConnectInfo<SocketAddr>>() {
            Some(ConnectInfo(peer)) => Asker::Peer(peer.ip()),
            None => Asker::Unknown,
        },
    };
    let _permit = match docs.budget.admit(asker) {
        Ok(permit) => permit,
        Err(refused) => return refused,
    };
    let challenge = shared.on_missing_scope == MissingScope::Challenge;
    let anonymous = Caller::new("anonymous").with_scopes(Vec::<String>::new());
    let (key, shown) = match &caller {
        None => (PageKey::Public, Some(&anonymous)),
        Some(_) if challenge => (PageKey::Listed, None),
        Some(caller) => (PageKey::Scoped(caller.scopes.clone()), Some(caller)),
    };
    let note = match key {
        PageKey::Public => Some(PUBLIC_NOTE),
        _ => None,
    };
    let page = docs.pages.page(key, || {
        let title = match shared.registry.project().package {
            Some(package) => format!("The tools of {}", package.name),
            None => "Tool catalog".to_owned(),
        };
        let visible = shared.catalog.visible(shown);
        let page = crate::docs::ToolDocs::new(&title, visible.map(|m| &*m.descriptor))
            .base_url(&docs.base_url);
        match note {
            Some(note) => page.note(note).html(),
            None => page.html(),
        }
    });
    let html = HeaderValue::from_static("text/html; charset=utf-8");
    (StatusCode::OK, [(header::CONTENT_TYPE, html)], page).into_response()
}

/// What the public catalog page says of itself.
const PUBLIC_NOTE: &str = "You are not signed in: these are the tools that need no scope. \
                           Send a bearer token (an Authorization header) for the page of the \
                           tools you may call.";

/// Where the catalog page's curl examples send requests when the API is not told
/// ([`HttpApi::docs_base_url`]).
const DOCS_BASE_URL: &str = "$TOOLSPEC_URL";

/// A tool's entry in `GET /tools` as JSON text, serialized once when the API is built: a
/// listing copies the entries the caller may see.
type Entry = Box<str>;

/// `tool`'s entry in `GET /tools`.
fn entry(tool: &Descriptor) -> Entry {
    let schema = |text: &str| serde_json::from_str(text).unwrap_or(Value::Null);
    let input = tool
        .schema_for(HTTP, toolspec_vocab::Dialect::Mcp)
        .unwrap_or(&tool.input_schema);
    let entry = json!({
        "name": tool.name_for(HTTP),
        "title": tool.title_for(HTTP),
        "description": tool.description_for(HTTP),
        "read_only": is_read_only(tool),
        "input_schema": schema(input),
        "output_schema": schema(&tool.output_schema),
    });
    entry.to_string().into_boxed_str()
}

async fn call_posted(
    State(shared): State<Arc<Shared>>,
    Path(name): Path<String>,
    request: Request,
) -> Response {
    posted_call(&shared, &name, request, false).await
}

/// `POST /tools/{name}/continue`: a call answering what an earlier one asked (see `input`).
async fn continue_call(
    State(shared): State<Arc<Shared>>,
    Path(name): Path<String>,
    request: Request,
) -> Response {
    posted_call(&shared, &name, request, true).await
}

/// A `POST` of tool `name`: its body the arguments or, `continuing`, a continuation.
async fn posted_call(shared: &Shared, name: &str, request: Request, continuing: bool) -> Response {
    let accept = tasks::accepts(request.headers());
    let (caller, body) = match posted(shared, request).await {
        Ok(posted) => posted,
        Err(refused) => return refused,
    };
    let access = shared.access();
    let tool = match access.lookup(name, &caller) {
        Ok((_, tool)) => tool,
        Err(refused) => return refused,
    };
    let (args, continuation) = match continuing {
        false => (body, None),
        true => match input::read(body) {
            Ok((args, continuation)) => (args, Some(continuation)),
            Err(refused) => return *refused,
        },
    };
    if let Some(refused) = access.explained(&tool, &args, &caller) {
        return refused;
    }
    call(shared, tool, args, &caller, accept, continuation).await
}

async fn call_queried(
    State(shared): State<Arc<Shared>>,
    Path(name): Path<String>,
    Query(query): Query<Vec<(String, String)>>,
    parts: Parts,
) -> Response {
    let caller = match caller(&shared, &parts).await {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    let (member, tool) = match shared.access().lookup(&name, &caller) {
        Ok(found) => found,
        Err(refused) => return refused,
    };
    if !is_read_only(&member.descriptor) {
        return method_not_allowed(&name, false);
    }
    let mut args = Map::new();
    for (key, value) in query {
        args.insert(key, Value::String(value));
    }
    let accept = tasks::accepts(&parts.headers);
    call(&shared, tool, Value::Object(args), &caller, accept, None).await
}

async fn explain(
    State(shared): State<Arc<Shared>>,
    Path(name): Path<String>,
    request: Request,
) -> Response {
    let (caller, args) = match posted(&shared, request).await {
        Ok(posted) => posted,
        Err(refused) => return refused,
    };
    let tool = match shared.access().lookup(&name, &caller) {
        Ok((_, tool)) => tool,
        Err(refused) => return refused,
    };
    let options = CallOptions::for_caller(HTTP, &caller);
    match tool.explain_with(args, &caller.ambient, options).await {
        Ok(explanation) => (StatusCode::OK, axum::Json(explanation)).into_response(),
        Err(result) => answer(tool.descriptor(), &result),
    }
}

/// `GET /tasks/{id}` (see `tasks`).
async fn read_task(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    parts: Parts,
) -> Response {
    match caller(&shared, &parts).await {
        Ok(caller) => {
            shared.start_tasks();
            tasks::read(&shared.registry, &id, &caller).await
        }
        Err(refused) => refused,
    }
}

/// `DELETE /tasks/{id}` (see `tasks`).
async fn cancel_task(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    parts: Parts,
) -> Response {
    match caller(&shared, &parts).await {
        Ok(caller) => tasks::cancel(&shared.registry, &id, &caller).await,
        Err(refused) => refused,
    }
}

/// `GET /tasks` (see `tasks`).
async fn list_tasks(State(shared): State<Arc<Shared>>, parts: Parts) -> Response {
    match caller(&shared, &parts).await {
        Ok(caller) => {
            shared.start_tasks();
            tasks::list(&shared.registry, &caller).await
        }
        Err(refused) => refused,
    }
}

/// Any other method on `/tools/{name}`: `405`, with `Allow` saying what the tool takes.
async fn other_method(
    State(shared): State<Arc<Shared>>,
    Path(name): Path<String>,
    parts: Parts,
) -> Response {
    let caller = match caller(&shared, &parts).await {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    match shared.access().lookup(&name, &caller) {
        Ok((member, _)) => method_not_allowed(&name, is_read_only(&member.descriptor)),
        Err(refused) => refused,
    }
}

fn is_read_only(tool: &Descriptor) -> bool {
    tool.has_hint_for(HTTP, hints::READ_ONLY)
}

/// `405`: a `read_only` tool takes `GET` and `POST`, any other `POST` only.
fn method_not_allowed(name: &str, read_only: bool) -> Response {
    let (allow, message) = if read_only {
        ("GET, HEAD, POST", format!("`{name}` takes GET or POST."))
    } else {
        (
            "POST",
            format!("`{name}` changes things: call it with POST."),
        )
    };
    let mut response = failure(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        &message,
    );
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

/// A `POST`'s caller and its body's arguments, or the answer refusing it. (The request is
/// taken whole: extracting `Parts` beside the body would copy its headers.)
async fn posted(shared: &Shared, request: Request) -> Result<(Caller, Value), Response> {
    let (parts, body) = request.into_parts();
    let caller = caller(shared, &parts).await?;
    let args = body_json(shared, body).await?;
    Ok((caller, args))
}

/// The body as a JSON object: `{}` when empty; `413` past the limit, `422` when it is not a
/// JSON object (`null` included: a call's arguments are an object).
async fn body_json(shared: &Shared, body: Body) -> Result<Value, Response> {
    let bytes = match axum::body::to_bytes(body, shared.max_body_bytes).await {
        Ok(bytes) => bytes,
        Err(_) => {
            let message = format!(
                "The request body is larger than {} bytes (or did not arrive).",
                shared.max_body_bytes
            );
            return Err(failure(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                &message,
            ));
        }
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(Map::new()));
    }
    let message = match serde_json::from_slice(&bytes) {
        Ok(Value::Object(map)) => return Ok(Value::Object(map)),
        Ok(other) => format!("The body must be a JSON object, not {}.", json_kind(&other)),
        Err(e) => format!("The body is not JSON: {e}."),
    };
    Err(failure(
        StatusCode::UNPROCESSABLE_ENTITY,
        codes::INVALID_ARGUMENTS,
        &message,
    ))
}

/// Calls `tool` as `caller`, under the request timeout (a task, when the tool runs as one and
/// the request `accept`s it: `202`); a request dropped by its client cancels the call.
async fn call(
    shared: &Shared,
    tool: RegisteredTool<'_>,
    args: Value,
    caller: &Caller,
    accept: Accept,
    continuation: Option<Continuation>,
) -> Response {
    if tool.descriptor().task.is_some() {
        shared.registry.start_tasks_of([&**tool.descriptor()]);
    }
    let cancellation = CancellationToken::new();
    let _cancel_on_drop = cancellation.clone().drop_guard();
    let options = CallOptions {
        cancellation: cancellation.clone(),
        continuation,
        ..CallOptions::for_caller(HTTP, caller)
    };
    let invoked = tool.submit_with(args, &caller.ambient, options, accept);
    match tokio::time::timeout(shared.request_timeout, invoked).await {
        Ok(Submitted::Done(result)) => answer(tool.descriptor(), &result),
        Ok(Submitted::Task(task)) => tasks::accepted(&task, accept == Accept::Tasks),
        Ok(Submitted::Input(input)) => answer(tool.descriptor(), &input.to_result()),
        Err(_) => {
            cancellation.cancel();
            let message = format!(
                "The request did not finish within {:?}.",
                shared.request_timeout
            );
            failure(StatusCode::GATEWAY_TIMEOUT, codes::TIMEOUT, &message)
        }
    }
}

/// A result as the API answers it.
fn answer(tool: &Descriptor, result: &ToolResult) -> Response {
    match &result.outcome {
        Ok(value) => {
            let mut response = (StatusCode::OK, axum::Json(value)).into_response();
            let notice = result.truncated.as_ref();
            if let Some(header) = notice.and_then(|n| HeaderValue::from_str(&n.header_value()).ok())
            {
                let name = header::HeaderName::from_static(crate::model::truncation::HEADER);
                response.headers_mut().insert(name, header);
            }
            response
        }
        Err(error) => {
            let status = status_of(tool, error);
            let mut body = json!({"error": error.code, "message": error.message});
            if let Some(details) = &error.details {
                body["details"] = details.clone();
            }
            let mut response = (status, axum::Json(body)).into_response();
            if let Some(seconds) = retry_after(error) {
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, seconds.into());
            }
            response
        }
    }
}

/// In how many seconds a failure says to retry (`in_progress`, `unavailable`,
/// `rate_limited`): sent as `Retry-After` too.
fn retry_after(error: &ToolError) -> Option<u64> {
    let retried = [codes::IN_PROGRESS, codes::UNAVAILABLE, codes::RATE_LIMITED];
    let built_in = retried.contains(&error.code.as_str());
    built_in
        .then(|| error.details.as_ref()?.get(codes::RETRY_AFTER)?.as_u64())
        .flatten()
}

/// The status of a failure of `tool`.
#[doc(hidden)]
pub fn status_of(tool: &Descriptor, error: &ToolError) -> StatusCode {
    let code = error.code.as_str();
    let declared = tool.errors.iter().find(|e| e.code == code);
    let guard = tool.guards.iter().any(|g| g.name == code);
    let status = statuses::status(code, declared.map(|e| e.http_status), guard);
    StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}
