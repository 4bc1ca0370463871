//! Starting the real store binary as an MCP server (stdio or HTTP) on a fresh SQLite file, and
//! an rmcp client that records the progress notifications it receives.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, ClientRequest, ProgressNotificationParam,
    ProtocolVersion, Request, ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RequestHandle, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ClientServiceExt, RoleClient, ServiceError, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::Notify;

/// How long a test waits for anything the server should do promptly.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// The example store's binary, built by cargo for this test.
const BINARY: &str = env!("CARGO_BIN_EXE_toolspec-store");

pub type Client = RunningService<RoleClient, Recorder>;

/// A fresh database directory; the store seeds the database on first use.
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    pub fn db(&self) -> PathBuf {
        self.dir.path().join("store.db")
    }

    pub fn file(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, contents).expect("write a scratch file");
        path
    }
}

/// Lines a server process wrote to stderr, collected in the background.
#[derive(Clone, Default)]
pub struct ServerLog {
    lines: Arc<Mutex<Vec<String>>>,
    changed: Arc<Notify>,
}

impl ServerLog {
    fn follow(stderr: impl tokio::io::AsyncRead + Unpin + Send + 'static) -> Self {
        let log = Self::default();
        let writer = log.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                writer.lines.lock().unwrap().push(line);
                writer.changed.notify_waiters();
            }
        });
        log
    }

    /// Every line so far.
    pub fn text(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }

    /// The first line containing every one of `needles`, waiting for it.
    pub async fn wait_for(&self, needles: &[&str]) -> String {
        let find = || {
            self.lines
                .lock()
                .unwrap()
                .iter()
                .find(|line| needles.iter().all(|n| line.contains(n)))
                .cloned()
        };
        let waited = tokio::time::timeout(PATIENCE, async {
            loop {
                let changed = self.changed.notified();
                if let Some(line) = find() {
                    return line;
                }
                changed.await;
            }
        })
        .await;
        waited.unwrap_or_else(|_| {
            panic!(
                "the server never logged a line with {needles:?}; it logged:\n{}",
                self.lines.lock().unwrap().join("\n")
            )
        })
    }
}

/// How a [`Recorder`] answers what a tool asks its user.
#[derive(Debug, Clone)]
pub enum Answering {
    /// Accepts every request (a confirmation; a form with this content).
    Accept(Value),
    /// Declines every request.
    Decline,
}

/// An MCP client that records `notifications/progress` and what tools ask its user (declaring
/// the elicitation capability, it answers as its [`Answering`] says: by default, it accepts).
#[derive(Clone)]
pub struct Recorder {
    info: ClientConfig,
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    progressed: Arc<Notify>,
    asked: Arc<Mutex<Vec<String>>>,
    answering: Arc<Mutex<Answering>>,
}

impl Recorder {
    pub fn new(version: ProtocolVersion) -> Self {
        let mut info = ClientConfig::default();
        info.protocol_version = version;
        info.capabilities = rmcp::model::ClientCapabilities::builder()
            .enable_elicitation()
            .build();
        Self {
            info,
            progress: Arc::default(),
            progressed: Arc::default(),
            asked: Arc::default(),
            answering: Arc::new(Mutex::new(Answering::Accept(serde_json::json!({})))),
        }
    }

    /// A client that declares the tasks extension: calls of tools that may run as tasks are
    /// answered with a task handle.
    pub fn with_tasks(mut self) -> Self {
        self.info.capabilities = rmcp::model::ClientCapabilities::builder()
            .enable_elicitation()
            .enable_tasks()
            .build();
        self
    }

    /// A client that does not declare the elicitation capability: it cannot be asked.
    pub fn without_elicitation(mut self) -> Self {
        self.info.capabilities = rmcp::model::ClientCapabilities::default();
        self
    }

    /// From now on, answers what tools ask as `answering` says.
    pub fn answer(&self, answering: Answering) {
        *self.answering.lock().unwrap() = answering;
    }

    /// The messages tools asked so far, in order.
    pub fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }

    /// Every progress notification received so far, as `(progress, total, message)`.
    pub fn progress(&self) -> Vec<(f64, Option<f64>, Option<String>)> {
        self.progress
            .lock()
            .unwrap()
            .iter()
            .map(|p| (p.progress, p.total, p.message.clone()))
            .collect()
    }

    /// Waits until at least `count` progress notifications arrived.
    pub async fn wait_for_progress(&self, count: usize) {
        tokio::time::timeout(PATIENCE, async {
            loop {
                let progressed = self.progressed.notified();
                if self.progress.lock().unwrap().len() >= count {
                    return;
                }
                progressed.await;
            }
        })
        .await
        .unwrap_or_else(|_| {
            panic!(
                "fewer than {count} progress notifications: {:?}",
                self.progress()
            )
        });
    }
}

impl ClientHandler for Recorder {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
        self.progressed.notify_waiters();
    }

    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
        let message = match &request {
            ElicitRequestParams::FormElicitationParams { message, .. }
            | ElicitRequestParams::UrlElicitationParams { message, .. } => message.clone(),
            _ => String::new(),
        };
        self.asked.lock().unwrap().push(message);
        let answering = self.answering.lock().unwrap().clone();
        Ok(match answering {
            Answering::Accept(content) => {
                ElicitResult::new(ElicitationAction::Accept).with_content(content)
            }
            Answering::Decline => ElicitResult::new(ElicitationAction::Decline),
        })
    }
}

/// The store served on stdio with `args` after `serve` (e.g. `--as customer_id=1`), and a
/// client connected to it.
pub async fn stdio(scratch: &Scratch, args: &[&str]) -> (Client, ServerLog) {
    stdio_on(scratch.db().as_os_str(), args).await
}

/// The store served on stdio over the database `db` (`--db`: a SQLite path or a
/// `postgres://` URL), and a client connected to it.
pub async fn stdio_on(db: &std::ffi::OsStr, args: &[&str]) -> (Client, ServerLog) {
    stdio_as(db, args, Recorder::new(ProtocolVersion::V_2025_11_25)).await
}

/// [`stdio_on`] with `recorder` as the client (declaring what it declares).
pub async fn stdio_as(
    db: &std::ffi::OsStr,
    args: &[&str],
    recorder: Recorder,
) -> (Client, ServerLog) {
    let mut command = tokio::process::Command::new(BINARY);
    command.arg("--db").arg(db).arg("serve").args(args);
    command.env(STATE_KEYS, TEST_STATE_KEYS);
    let (transport, stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the store binary");
    let log = ServerLog::follow(stderr.expect("piped stderr"));
    // 2026-07-28 discovers the server rather than initializing a session.
    let version = recorder.info.protocol_version.clone();
    let client = if version == ProtocolVersion::V_2026_07_28 {
        let lifecycle = rmcp::ClientLifecycleMode::Discover {
            preferred_versions: vec![version],
        };
        recorder.serve_with_lifecycle(transport, lifecycle).await
    } else {
        recorder.serve(transport).await
    };
    (client.expect("an MCP session over stdio"), log)
}

/// The store served on stdio whose stdin and stdout are one end of a Unix socket pair rather
/// than pipes (the server then falls back to tokio's stdio), and a client on the other end.
#[cfg(unix)]
pub async fn stdio_over_socket(
    scratch: &Scratch,
    args: &[&str],
) -> (Client, tokio::process::Child) {
    use std::os::fd::OwnedFd;
    let (ours, theirs) = std::os::unix::net::UnixStream::pair().expect("a socket pair");
    let theirs_out = theirs.try_clone().expect("a second descriptor");
    let child = tokio::process::Command::new(BINARY)
        .arg("--db")
        .arg(scratch.db())
        .arg("serve")
        .args(args)
        .stdin(Stdio::from(OwnedFd::from(theirs)))
        .stdout(Stdio::from(OwnedFd::from(theirs_out)))
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start the store binary");
    ours.set_nonblocking(true).expect("non-blocking");
    let (read, write) = tokio::net::UnixStream::from_std(ours)
        .expect("a tokio socket")
        .into_split();
    let client = Recorder::new(ProtocolVersion::V_2025_11_25)
        .serve((read, write))
        .await
        .expect("an MCP session over the socket");
    (client, child)
}

/// The store served over streamable HTTP on a free loopback port.
pub struct HttpServer {
    process: tokio::process::Child,
    pub url: String,
    pub log: ServerLog,
}

/// The variable the store reads its request-state keys from.
pub const STATE_KEYS: &str = "TOOLSPEC_REQUEST_STATE_KEYS";

/// The request-state keys every store a test starts shares (a state sealed by one process
/// opens on another over the same database, as replicas'): one fixed key, for tests only.
pub const TEST_STATE_KEYS: &str = "test:dGhlLXRlc3RzLW9ubHkta2V5LW5ldmVyLWRlcGxveSE";

/// The tokens file every HTTP test uses.
pub const TOKENS: &str = r#"{
  "ada-token": { "id": "ada", "ambient": { "customer_id": 1 },
                 "scopes": ["orders:read", "orders:write", "payments:refund"] },
  "grace-token": { "id": "grace", "ambient": { "customer_id": 2 }, "scopes": ["orders:read"] }
}"#;

impl HttpServer {
    pub async fn start(scratch: &Scratch) -> Self {
        Self::start_with(scratch, TOKENS, &[], None).await
    }

    /// The store with its own tokens file, more `serve` arguments, and optionally an
    /// open-file limit (`ulimit -n`).
    pub async fn start_with(
        scratch: &Scratch,
        tokens: &str,
        args: &[&str],
        open_files: Option<u32>,
    ) -> Self {
        Self::start_on(scratch.db().as_os_str(), scratch, tokens, args, open_files).await
    }

    /// [`start_with`](Self::start_with) on the database `db` (a SQLite path or a
    /// `postgres://` URL); `scratch` holds the tokens file.
    pub async fn start_on(
        db: &std::ffi::OsStr,
        scratch: &Scratch,
        tokens: &str,
        args: &[&str],
        open_files: Option<u32>,
    ) -> Self {
        let tokens = scratch.file("tokens.json", tokens);
        let mut command = match open_files {
            Some(limit) => {
                let mut sh = tokio::process::Command::new("sh");
                sh.arg("-c")
                    .arg(format!("ulimit -n {limit} && exec \"$0\" \"$@\""))
                    .arg(BINARY);
                sh
            }
            None => tokio::process::Command::new(BINARY),
        };
        let mut process = command
            .arg("--db")
            .arg(db)
            .args(["serve", "--http", "127.0.0.1:0", "--tokens"])
            .arg(tokens)
            .args(args)
            .env(STATE_KEYS, TEST_STATE_KEYS)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start the store binary");
        let log = ServerLog::follow(process.stderr.take().expect("piped stderr"));
        let line = log.wait_for(&["MCP endpoint: "]).await;
        let url = line
            .split_once("MCP endpoint: ")
            .map(|(_, url)| url.trim().to_owned())
            .expect("the endpoint line names the URL");
        Self { process, url, log }
    }

    /// Sends the server `signal` and waits for it to exit.
    pub async fn stop_with(mut self, signal: &str) -> std::process::ExitStatus {
        let pid = self.pid().to_string();
        let sent = tokio::process::Command::new("kill")
            .args([signal, &pid])
            .status()
            .await
            .expect("kill runs");
        assert!(sent.success(), "kill {signal} {pid}");
        self.process.wait().await.expect("the server exits")
    }

    /// Kills the server with `-9` once `pause` has passed (in a task of its own).
    pub fn kill_after(&self, pause: Duration) -> tokio::task::JoinHandle<()> {
        let pid = self.pid().to_string();
        tokio::spawn(async move {
            tokio::time::sleep(pause).await;
            let _ = tokio::process::Command::new("kill")
                .args(["-9", &pid])
                .status()
                .await;
        })
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.process.id().expect("the server is running")
    }

    /// The `host:port` the server listens on.
    pub fn address(&self) -> String {
        let rest = self.url.trim_start_matches("http://");
        rest.split('/').next().unwrap_or(rest).to_owned()
    }

    /// How many file descriptors the server holds open.
    pub fn open_descriptors(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.pid()))
            .map(|dir| dir.count())
            .unwrap_or(0)
    }

    /// The server's resident memory, in KiB.
    pub fn rss_kib(&self) -> u64 {
        rss_kib(self.pid())
    }

    /// A client authenticated with `token`: `version` 2026-07-28 uses the stateless
    /// discover lifecycle, older versions an `initialize` handshake and a session.
    pub async fn client(&self, token: &str, version: ProtocolVersion) -> Client {
        self.try_client(token, version)
            .await
            .expect("an MCP session over HTTP")
    }

    pub async fn try_client(
        &self,
        token: &str,
        version: ProtocolVersion,
    ) -> Result<Client, rmcp::service::ClientInitializeError> {
        self.client_as(token, Recorder::new(version)).await
    }

    /// A client authenticated with `token` that is `recorder` (declaring what it declares).
    pub async fn client_as(
        &self,
        token: &str,
        recorder: Recorder,
    ) -> Result<Client, rmcp::service::ClientInitializeError> {
        let version = recorder.info.protocol_version.clone();
        let config = StreamableHttpClientTransportConfig::with_uri(self.url.as_str())
            .auth_header(token.to_owned());
        let transport = StreamableHttpClientTransport::from_config(config);
        if version == ProtocolVersion::V_2026_07_28 {
            recorder
                .serve_with_lifecycle(
                    transport,
                    rmcp::ClientLifecycleMode::Discover {
                        preferred_versions: vec![version],
                    },
                )
                .await
        } else {
            recorder.serve(transport).await
        }
    }
}

/// A process's resident memory (`VmRSS`), in KiB.
pub fn rss_kib(pid: u32) -> u64 {
    memory_kib(pid, "VmRSS:")
}

/// A process's peak resident memory (`VmHWM`), in KiB.
pub fn peak_rss_kib(pid: u32) -> u64 {
    memory_kib(pid, "VmHWM:")
}

/// One line of `/proc/PID/status`, in KiB.
fn memory_kib(pid: u32, key: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(key))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The records of `tool` in the store's database at `db` (a SQLite path or a `postgres://`
/// URL), newest first.
pub async fn records(db: &str, tool: &str) -> Vec<toolspec::audit::AuditRecord> {
    let location: toolspec_store::Location = db.parse().expect("a database");
    let store = toolspec_store::Store::open(&location)
        .await
        .expect("the store opens");
    let query = toolspec::audit::AuditQuery {
        tool: Some(tool.to_owned()),
        limit: toolspec::audit::AuditQuery::MAX_LIMIT,
        ..toolspec::audit::AuditQuery::default()
    };
    let page = query
        .read(&store.database())
        .await
        .expect("the trail reads");
    store.close().await;
    page.records
}

/// The store binary, for tests that drive it by hand.
pub fn binary() -> &'static str {
    BINARY
}

/// Calls `tool` with `arguments` (a JSON object).
pub async fn call(
    client: &Client,
    tool: &str,
    arguments: Value,
) -> Result<CallToolResult, ServiceError> {
    client.call_tool(params(tool, arguments)).await
}

/// Calls `tool` and expects a tool result (success or failure), not a protocol error.
pub async fn result(client: &Client, tool: &str, arguments: Value) -> CallToolResult {
    call(client, tool, arguments.clone())
        .await
        .unwrap_or_else(|e| panic!("{tool}({arguments}) was a protocol error: {e}"))
}

pub fn params(tool: &str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object");
    };
    CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments)
}

/// Starts a call whose progress is reported and which can be cancelled.
pub async fn start_call(
    client: &Client,
    tool: &str,
    arguments: Value,
) -> RequestHandle<RoleClient> {
    client
        .send_request_with_option(
            ClientRequest::CallToolRequest(Request::new(params(tool, arguments))),
            PeerRequestOptions::no_options(),
        )
        .await
        .expect("the request is sent")
}

/// The tool result a started call ended with.
pub async fn finish_call(handle: RequestHandle<RoleClient>) -> CallToolResult {
    match handle.await_response().await.expect("a response") {
        ServerResult::CallToolResult(result) => result,
        other => panic!("not a tool result: {other:?}"),
    }
}

/// The text of a result's only content block.
pub fn text(result: &CallToolResult) -> &str {
    assert_eq!(result.content.len(), 1, "one content block: {result:?}");
    &result.content[0].as_text().expect("a text block").text
}

/// The JSON-RPC error code and message of a protocol error.
pub fn protocol_error(error: ServiceError) -> (i32, String) {
    match error {
        ServiceError::McpError(data) => (data.code.0, data.message.into_owned()),
        other => panic!("not a JSON-RPC error: {other}"),
    }
}

/// Every listed tool's name, in listing order.
pub async fn names(client: &Client) -> Vec<String> {
    client
        .list_tools(None)
        .await
        .expect("tools/list")
        .tools
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect()
}

/// Arguments of an order the store can place (one enamel mug).
pub fn one_mug() -> Value {
    json!({ "lines": [{ "sku": "MUG-001", "quantity": 1 }] })
}

/// Sixteen `orders_get` calls in flight on one session (Ada's orders 1–4, four times each),
/// each answered with its own order.
pub async fn sixteen_concurrent_gets(client: &Client) {
    let ids: Vec<i64> = (0..16).map(|i| 1 + i % 4).collect();
    let results = futures_util::future::join_all(
        ids.iter()
            .map(|id| result(client, "orders_get", json!({ "order_id": id }))),
    )
    .await;
    for (id, result) in ids.iter().zip(results) {
        assert_eq!(result.structured_content.unwrap()["order"]["id"], *id);
    }
}

/// How long a task may take to end here: a run, or a lease to lapse (10 s) and a run.
pub const TASK_PATIENCE: Duration = Duration::from_secs(45);

/// A client of `server`, authenticated with `token`, that declares the tasks extension.
pub async fn tasks_client(
    server: &HttpServer,
    token: &str,
    version: rmcp::model::ProtocolVersion,
) -> Client {
    let recorder = Recorder::new(version).with_tasks();
    server
        .client_as(token, recorder)
        .await
        .expect("an MCP client with the tasks extension")
}

/// Calls `tool`, which must answer a task handle: its id.
pub async fn submit(client: &Client, tool: &str, arguments: Value) -> String {
    let answer = client
        .call_tool_once(params(tool, arguments))
        .await
        .expect("a tools/call answer");
    match answer {
        rmcp::model::CallToolResponse::Task(created) => {
            assert_eq!(created.task.status, rmcp::model::TaskStatus::Working);
            assert!(
                created.task.ttl_ms.is_some_and(|ttl| ttl > 0),
                "{created:?}"
            );
            created.task.task_id
        }
        other => panic!("expected a task handle, got {other:?}"),
    }
}

pub async fn get_task(client: &Client, id: &str) -> rmcp::model::GetTaskResult {
    client
        .get_task(rmcp::model::GetTaskParams::new(id))
        .await
        .expect("tasks/get answers")
}

/// Polls task `id` until it ends.
pub async fn until_ended(client: &Client, id: &str) -> rmcp::model::GetTaskResult {
    let give_up = std::time::Instant::now() + TASK_PATIENCE;
    loop {
        let task = get_task(client, id).await;
        if task.task.status().is_terminal() {
            return task;
        }
        assert!(
            std::time::Instant::now() < give_up,
            "task {id} never ended: {task:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The store on stdio, driven line by line.
pub struct RawStdio {
    pub child: tokio::process::Child,
    input: tokio::process::ChildStdin,
    output: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

impl RawStdio {
    /// The store serving `customer_id=1`, initialized with protocol 2025-11-25.
    pub async fn start(scratch: &Scratch) -> Self {
        let mut child = tokio::process::Command::new(binary())
            .arg("--db")
            .arg(scratch.db())
            .args(["serve", "--as", "customer_id=1"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("start the store binary");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut raw = Self {
            child,
            input,
            output,
        };
        let initialize = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": { "name": "raw", "version": "0" }
            }
        });
        raw.send(&initialize.to_string()).await;
        let answer = raw.answer().await;
        assert!(answer["result"]["serverInfo"].is_object(), "{answer}");
        raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        raw
    }

    pub async fn send(&mut self, line: &str) {
        let input = &mut self.input;
        input.write_all(line.as_bytes()).await.unwrap();
        input.write_all(b"\n").await.unwrap();
        input.flush().await.unwrap();
    }

    /// The next line the server writes, as JSON.
    pub async fn answer(&mut self) -> Value {
        let line = self.line().await.expect("a line");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// The next line the server writes, as it wrote it; `None` once it closed its output.
    pub async fn line(&mut self) -> Option<String> {
        tokio::time::timeout(PATIENCE, self.output.next_line())
            .await
            .expect("a line in time")
            .unwrap()
    }
}
