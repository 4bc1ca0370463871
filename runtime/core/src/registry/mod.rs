//! The tools of one crate, bound to their handlers: lookup by canonical name, by adapter, and
//! by an adapter's own name for a tool (both indexed once, when the registry is built); each
//! tool's effective settings per adapter; the hooks and the audit trail its calls go through.
//! Lookup and building only: calls and explanations are `pipeline`'s (which adds
//! `RegisteredTool::invoke_with` and the rest, and the builder's `tool` and `explain`).
//!
//! A registry holds each tool type-erased: a generated tool's [`Stages`], or the built-in
//! explain tool ([`Imp::Explain`]), which the pipeline runs itself. The registry knows no
//! adapter and no wire format.

#[cfg_attr(
    not(feature = "mcp"),
    allow(
        dead_code,
        reason = "what the adapters share; the MCP adapter's `Listing` is what reads all of it"
    )
)]
pub(crate) mod catalog;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;

use crate::call::Stages;
use crate::call::options::{Rules, UndeclaredKeys};
use crate::durable::trail::AuditTrail;
use crate::model::caller::Caller;
use crate::model::descriptor::{Descriptor, SharedDescriptor, Text, ToolKind};
use crate::model::failure::ToolError;
use crate::model::hooks::Hook;
use crate::model::limits::Limits;
use crate::model::project::Project;
use crate::model::rate::{Limiter, Permit, RateLimit, Refusal, task_request_limit};
use crate::model::registry_error::{CallerMismatch, RegistryError};
use crate::model::request_state::{Sealing, StateKeys};
use crate::storage::Storage;
use toolspec_vocab::settings::Settings;

/// The caller of the requests without a caller id: they share one budget.
#[cfg_attr(
    not(any(feature = "mcp", feature = "http")),
    allow(dead_code, reason = "the adapters that read tasks ask it")
)]
static ANONYMOUS: String = String::new();

/// How a registry holds one tool.
pub(crate) enum Imp {
    /// A tool of the crate: its own stages, run by the pipeline.
    Tool(Box<dyn Stages>),
    /// The built-in explain tool, which the pipeline runs itself.
    Explain,
    /// The built-in task status tool, which the pipeline runs itself.
    TaskStatus,
}

struct Entry {
    descriptor: SharedDescriptor,
    imp: Imp,
    /// The tool's budget per caller, in this process (`None`: no limit).
    limiter: Option<Limiter>,
}

/// One registered tool, borrowed from its registry.
#[derive(Clone, Copy)]
pub struct RegisteredTool<'r> {
    registry: &'r Registry,
    entry: &'r Entry,
    /// The tool's position in the registry.
    slot: usize,
}

impl<'r> RegisteredTool<'r> {
    /// The tool's position in its registry: [`Registry::at`] finds it again without a lookup.
    #[cfg_attr(
        not(any(
            feature = "mcp",
            feature = "http",
            feature = "openai",
            feature = "anthropic",
            feature = "gemini",
            feature = "rig"
        )),
        allow(
            dead_code,
            reason = "the catalogs' way back to a tool: unused without an adapter"
        )
    )]
    pub(crate) fn slot(&self) -> usize {
        self.slot
    }

    /// Everything known about the tool at build time, as the registry holds it (it derefs to
    /// the [`Descriptor`]; a clone keeps it past this borrow).
    pub fn descriptor(&self) -> &'r SharedDescriptor {
        &self.entry.descriptor
    }

    /// The canonical name.
    pub fn name(&self) -> &'r str {
        &self.entry.descriptor.name
    }

    /// The tool's name on `adapter`, if it is a member.
    pub fn name_for(&self, adapter: &str) -> Option<&'r str> {
        self.entry.descriptor.name_for(adapter)
    }

    /// Whether this is the built-in explain tool.
    pub fn is_explain(&self) -> bool {
        self.entry.descriptor.kind == ToolKind::Explain
    }

    /// The tool's effective settings on `adapter` (None unless it is a member).
    pub fn settings(&self, adapter: &str) -> Option<Settings<'r, Text>> {
        let binding = self.entry.descriptor.binding(adapter)?;
        let decl = self.registry.project.adapter(adapter)?;
        Some(Settings::new(decl, &binding.settings))
    }

    /// The registry the tool is in.
    pub(crate) fn registry(&self) -> &'r Registry {
        self.registry
    }

    /// How the registry holds the tool.
    pub(crate) fn imp(&self) -> &'r Imp {
        &self.entry.imp
    }

    /// The tool's budget per caller, when it has one.
    pub(crate) fn limiter(&self) -> Option<&'r Limiter> {
        self.entry.limiter.as_ref()
    }
}

impl fmt::Debug for RegisteredTool<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegisteredTool")
            .field("name", &self.name())
            .finish()
    }
}

/// Assembles a [`Registry`] from operations: what the generated `registry()` does (the
/// generated code's door, not an adopter's). A registry is configured one way, once built: its
/// `with_*` methods.
#[doc(hidden)]
pub struct RegistryBuilder {
    project: &'static Project,
    entries: Vec<Entry>,
    storage: Option<Arc<dyn Storage>>,
}

impl RegistryBuilder {
    /// The database `ref` fields load their records from, and the audit trail, `once` and
    /// `lock` keep theirs in (the generated `registry()` sets it when the project needs one):
    /// `toolspec::Database`, or any other [`Storage`].
    pub fn database(mut self, database: impl Storage) -> Self {
        self.storage = Some(Arc::new(database));
        self
    }

    /// Adds a tool held as `imp` under `descriptor` (the pipeline adds the crate's tools and
    /// the built-in explain tool so).
    pub(crate) fn add(mut self, descriptor: SharedDescriptor, imp: Imp) -> Self {
        let limiter = descriptor.rate_limit.map(Limiter::new);
        self.entries.push(Entry {
            descriptor,
            imp,
            limiter,
        });
        self
    }

    /// Checks names and adapters, then builds.
    pub fn build(self) -> Result<Registry, RegistryError> {
        let mut seen: BTreeMap<(&str, &str), &str> = BTreeMap::new();
        for entry in &self.entries {
            let d = &*entry.descriptor;
            for (adapter, name) in names(d) {
                check_adapter(self.project, d, adapter)?;
                if let Some(first) = seen.insert((adapter, name), &d.spec) {
                    return Err(duplicate(adapter, name, first, d));
                }
            }
        }
        Ok(self.build_trusted())
    }

    /// Builds without the checks `build` makes: for generated code, whose compiler made them.
    pub(crate) fn build_trusted(mut self) -> Registry {
        let (by_name, by_adapter) = index(&mut self.entries);
        let undeclared = if self.project.drop_undeclared_keys {
            UndeclaredKeys::Drop
        } else {
            UndeclaredKeys::Reject
        };
        // Calls are recorded when some tool's policy says so and there is a database to record
        // them in (the generated `registry()` asks for one then).
        let audited = self.entries.iter().any(|e| e.descriptor.audit.enabled);
        let audit = match &self.storage {
            Some(storage) if audited => {
                Some(AuditTrail::shared(Arc::clone(storage), &self.project.audit))
            }
            _ => None,
        };
        let task_tools =
            self.storage.is_some() && self.entries.iter().any(|e| e.descriptor.task.is_some());
        let task_status = (self.entries.iter())
            .map(|e| &e.descriptor)
            .find(|d| d.kind == ToolKind::TaskStatus)
            .cloned();
        let registry = Registry {
            task_tools,
            task_status,
            project: self.project,
            entries: self.entries,
            by_name,
            by_adapter,
            hooks: Vec::new(),
            audit,
            rules: Rules {
                undeclared,
                limits: Limits::DEFAULT,
                storage: self.storage,
                tasks: self.project.tasks,
                sealing: Arc::default(),
                shared_budgets: false,
                clock: crate::model::clock::Clock::system(),
            },
            worker: std::sync::atomic::AtomicBool::new(false),
            served_tasks: tokio::sync::watch::Sender::new(std::collections::BTreeSet::new()),
            read_only: false,
            task_requests: Some(Limiter::new(task_request_limit(
                self.project.tasks.per_caller,
            ))),
        };
        match self.project.read_only {
            true => registry.read_only(),
            false => registry,
        }
    }
}

/// A descriptor's names: its canonical one (adapter `""`), then its name on each adapter.
fn names(d: &Descriptor) -> impl Iterator<Item = (&str, &str)> {
    let on_adapters =
        (d.adapters.iter()).map(|b| (&*b.adapter, b.name.as_deref().unwrap_or(&d.name)));
    std::iter::once(("", &*d.name)).chain(on_adapters)
}

/// Refuses `adapter` (`""`: none) when the project does not declare it.
fn check_adapter(project: &Project, d: &Descriptor, adapter: &str) -> Result<(), RegistryError> {
    if adapter.is_empty() || project.adapter(adapter).is_some() {
        return Ok(());
    }
    Err(RegistryError::UnknownAdapter {
        tool: d.name.to_string(),
        adapter: adapter.into(),
    })
}

/// `d` would take `name` on `adapter` from the tool of spec `first`.
fn duplicate(adapter: &str, name: &str, first: &str, d: &Descriptor) -> RegistryError {
    RegistryError::DuplicateName {
        adapter: adapter.into(),
        name: name.into(),
        specs: [first.into(), d.spec.to_string()],
    }
}

/// Adapter → the tools' names there → position in the registry's entries. The keys are the
/// descriptors' own texts, cloned: free for a baked descriptor's, whose texts are borrowed.
type ByAdapter = HashMap<Text, HashMap<Text, usize>>;

/// Sorts `entries` by canonical name and indexes them by it and by each adapter's name.
fn index(entries: &mut [Entry]) -> (HashMap<Text, usize>, ByAdapter) {
    entries.sort_by(|a, b| a.descriptor.name.cmp(&b.descriptor.name));
    let mut by_name = HashMap::with_capacity(entries.len());
    let mut by_adapter = ByAdapter::new();
    for (i, entry) in entries.iter().enumerate() {
        let d = &*entry.descriptor;
        by_name.insert(d.name.clone(), i);
        index_adapter_names(&mut by_adapter, d, i);
    }
    (by_name, by_adapter)
}

/// Indexes `d`'s (adapter, name there) pairs at `slot`, as `RegisteredTool::name_for` reads
/// them: an adapter's first binding counts, and a name already indexed keeps its tool.
fn index_adapter_names(by_adapter: &mut ByAdapter, d: &Descriptor, slot: usize) {
    let firsts = (d.adapters.iter()).filter(|binding| {
        d.binding(&binding.adapter)
            .is_some_and(|first| std::ptr::eq(first, *binding))
    });
    for binding in firsts {
        let name = binding.name.as_ref().unwrap_or(&d.name);
        let names = by_adapter.entry(binding.adapter.clone()).or_default();
        if !names.contains_key(&**name) {
            names.insert(name.clone(), slot);
        }
    }
}

/// The tools of one crate with their handlers.
pub struct Registry {
    project: &'static Project,
    entries: Vec<Entry>,
    /// Canonical name → position in `entries`.
    by_name: HashMap<Text, usize>,
    /// Adapter → the tool's name there → position in `entries`.
    by_adapter: ByAdapter,
    hooks: Vec<Arc<dyn Hook>>,
    /// Where calls are recorded, when any tool's audit policy is on.
    audit: Option<AuditTrail>,
    rules: Rules,
    /// Whether some tool declares `task:` and there is a storage to keep tasks in.
    task_tools: bool,
    /// The built-in task status tool, when the registry has it.
    task_status: Option<SharedDescriptor>,
    /// Whether this process's task worker was started (`Registry::start_tasks`).
    worker: std::sync::atomic::AtomicBool,
    /// The tools whose tasks the worker runs: those of the servers it was started for.
    served_tasks: tokio::sync::watch::Sender<std::collections::BTreeSet<Text>>,
    /// Whether it holds only tools that read ([`Registry::read_only`]).
    read_only: bool,
    /// Each caller's budget of task requests (reading, listing, cancelling its tasks), in this
    /// process (`None`: no limit).
    task_requests: Option<Limiter>,
}

impl Registry {
    /// Starts a registry for `project` (the generated `PROJECT`, or [`Project::DEFAULT`]): the
    /// generated `registry()`'s way in.
    #[doc(hidden)]
    pub fn builder(project: &'static Project) -> RegistryBuilder {
        RegistryBuilder {
            project,
            entries: Vec::new(),
            storage: None,
        }
    }

    /// Adds a tool held as `imp` under `descriptor` to the built registry, with the checks
    /// [`RegistryBuilder::build`] makes: a name another tool has (canonical, or on an
    /// adapter) and an adapter the project does not declare are refused.
    pub(crate) fn insert(
        mut self,
        descriptor: SharedDescriptor,
        imp: Imp,
    ) -> Result<Self, RegistryError> {
        for (adapter, name) in names(&descriptor) {
            check_adapter(self.project, &descriptor, adapter)?;
            let taken = match adapter {
                "" => self.by_name.get(name),
                _ => self
                    .by_adapter
                    .get(adapter)
                    .and_then(|names| names.get(name)),
            };
            if let Some(&i) = taken {
                return Err(duplicate(
                    adapter,
                    name,
                    &self.entries[i].descriptor.spec,
                    &descriptor,
                ));
            }
        }
        if self.read_only && !descriptor.is_read_only() {
            return Err(RegistryError::NotReadOnly {
                tool: descriptor.name.to_string(),
            });
        }
        let limiter = descriptor.rate_limit.map(Limiter::new);
        // In its place by name, as `index` keeps them; the tools after it move one place up
        // (adding a tool costs one pass over the indexes, not a sort and two new ones).
        let at = self
            .entries
            .partition_point(|entry| *entry.descriptor.name < *descriptor.name);
        let positions = (self.by_name.values_mut())
            .chain(self.by_adapter.values_mut().flat_map(HashMap::values_mut));
        for position in positions.filter(|position| **position >= at) {
            *position += 1;
        }
        self.by_name.insert(descriptor.name.clone(), at);
        index_adapter_names(&mut self.by_adapter, &descriptor, at);
        let storage = self.rules.storage.as_ref();
        if let (None, true, Some(storage)) = (&self.audit, descriptor.audit.enabled, storage) {
            self.audit = Some(AuditTrail::shared(Arc::clone(storage), &self.project.audit));
        }
        self.task_tools |= storage.is_some() && descriptor.task.is_some();
        self.entries.insert(
            at,
            Entry {
                descriptor,
                imp,
                limiter,
            },
        );
        Ok(self)
    }

    /// Adds a hook run around every call.
    pub fn with_hook(mut self, hook: impl Hook) -> Self {
        self.hooks.push(Arc::new(hook));
        self
    }

    /// Bounds every call's arguments and errors by `limits` (default: [`Limits::DEFAULT`]).
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.rules.limits = limits;
        self
    }

    /// Gives every tool `limit` as its budget per caller instead of its spec's (`None`: no
    /// limit at all): for a deployment whose callers the specs could not foresee, and for
    /// load tests.
    pub fn with_rate_limit(mut self, limit: Option<RateLimit>) -> Self {
        for entry in &mut self.entries {
            entry.limiter = limit.map(Limiter::new);
        }
        self
    }

    /// Gives each caller `limit` as its budget of task requests — reading, listing and
    /// cancelling its tasks, over MCP (`tasks/get`, `tasks/cancel`, `tasks/update`) and the
    /// HTTP API (`GET`/`DELETE /tasks/{id}`, `GET /tasks`) alike — instead of the default
    /// ([`task_request_limit`] of the project's `tasks.per_caller`: 200 a second, in bursts of
    /// 200, for the default 100 unfinished tasks); `None` lifts it. A request past it answers
    /// `rate_limited` with when to retry. Kept in this process, as tools' budgets are by
    /// default.
    pub fn with_task_request_limit(mut self, limit: Option<RateLimit>) -> Self {
        self.task_requests = limit.map(Limiter::new);
        self
    }

    /// Admits one task request of `caller` (a read, a listing, a cancel) within its budget,
    /// or answers `rate_limited` with when to retry; the permit is its place among the
    /// caller's task requests running.
    #[cfg_attr(
        not(any(feature = "mcp", feature = "http")),
        allow(dead_code, reason = "the adapters that read tasks ask it")
    )]
    pub(crate) fn admit_task_request(&self, caller: &Caller) -> Result<Option<Permit>, ToolError> {
        let Some(limiter) = &self.task_requests else {
            return Ok(None);
        };
        let id = caller.id.as_ref().unwrap_or(&ANONYMOUS);
        limiter.admit(id).map(Some).map_err(|refusal| {
            let limit = limiter.limit();
            let (why, wait) = match refusal {
                Refusal::TooFast(wait) => (
                    format!(
                        "Too many task requests: a caller may make {} every {:?} (reading, \
                         listing and cancelling its tasks)",
                        limit.calls,
                        limit.period()
                    ),
                    wait,
                ),
                Refusal::TooMany(running) => (
                    format!("Too many task requests: {running} of yours are already running"),
                    std::time::Duration::from_secs(1),
                ),
            };
            ToolError::rate_limited(None, &why, wait)
        })
    }

    /// Gives handlers `clock` as their "now" ([`Context::now`](crate::Context::now)) instead of
    /// the system clock: tests pin it ([`Clock::fixed`](crate::Clock::fixed)). What the runtime
    /// itself times — audit records, rate limits, expiries — keeps the system clock.
    pub fn with_clock(mut self, clock: crate::model::clock::Clock) -> Self {
        self.rules.clock = clock;
        self
    }

    /// Seals the request states of round trips (a tool's `confirm` and `ask`) with `keys`
    /// (the first seals, every one opens) instead of a key made for this process: what every
    /// replica of a deployment must share, so that a state sealed by one opens on another, and
    /// after a restart.
    pub fn with_request_state_keys(mut self, keys: StateKeys) -> Self {
        self.rules.sealing = Arc::new(Sealing {
            keys,
            configured: true,
            spent: Default::default(),
        });
        self
    }

    /// Keeps every tool's rate budget per caller in the registry's database, which every
    /// replica on it shares, instead of in this process: a caller's budget is then the same
    /// whichever replica it calls. Each call costs a statement on the database (the runtime
    /// docs measure it); a database that cannot be reached falls back to this process's
    /// budget. The calls in flight are still bounded per process. Without a database, nothing
    /// changes.
    pub fn with_shared_rate_limits(mut self) -> Self {
        self.rules.shared_budgets = self.rules.storage.is_some();
        self
    }

    /// Whether this registry may start as it is: a registry over PostgreSQL — a database
    /// several replicas share, any of which a round trip's client may come back to — whose
    /// tools ask their user (`confirm`, `ask`) needs request-state keys every replica holds
    /// ([`with_request_state_keys`](Self::with_request_state_keys)); a key made for this
    /// process would refuse every state another replica sealed. Servers call it before they
    /// serve.
    pub fn check_request_state_keys(&self) -> Result<(), RegistryError> {
        let shared = self
            .rules
            .storage
            .as_deref()
            .is_some_and(|s| s.kind() == "postgres");
        if self.rules.sealing.configured || !shared {
            return Ok(());
        }
        let tools: Vec<String> = self
            .entries
            .iter()
            .map(|e| &e.descriptor)
            .filter(|d| d.asks_user())
            .map(|d| d.name.to_string())
            .collect();
        match tools.is_empty() {
            true => Ok(()),
            false => Err(RegistryError::MissingStateKeys { tools }),
        }
    }

    /// The audit trail calls are recorded in: there is one when a tool's audit policy is on and
    /// the registry has a database.
    pub fn audit(&self) -> Option<&AuditTrail> {
        self.audit.as_ref()
    }

    /// Waits until every audit record queued so far is written: call it before the process
    /// exits (on SIGTERM, ctrl-c, a server's shutdown), so no record is lost.
    pub async fn flush_audit(&self) {
        if let Some(trail) = &self.audit {
            trail.flush().await;
        }
    }

    /// The limits every call's arguments and errors are held to.
    pub fn limits(&self) -> &Limits {
        &self.rules.limits
    }

    /// This registry for a read-only deployment: only the tools that read
    /// ([`Descriptor::is_read_only`]: query tools, the built-in ones, and tools hinted
    /// `read_only` on every adapter) are kept, so that every adapter built from it lists,
    /// explains and calls only those, and the HTTP API's OpenAPI document leaves out the
    /// others; a tool added later that may write is refused. What the kept tools do with a
    /// database is the database's to refuse: give their handlers read-only connections
    /// (`toolspec::sql::read_only`).
    pub fn read_only(mut self) -> Self {
        self.entries.retain(|entry| entry.descriptor.is_read_only());
        (self.by_name, self.by_adapter) = index(&mut self.entries);
        let kept = |d: &Descriptor| (self.entries.iter()).any(|e| std::ptr::eq(&*e.descriptor, d));
        self.task_status = self.task_status.filter(|d| kept(d));
        self.task_tools &= self.entries.iter().any(|e| e.descriptor.task.is_some());
        self.read_only = true;
        self
    }

    /// Whether it serves a read-only deployment ([`read_only`](Self::read_only)).
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// The project configuration the tools were compiled with.
    pub fn project(&self) -> &'static Project {
        self.project
    }

    fn handle(&self, slot: usize) -> RegisteredTool<'_> {
        RegisteredTool {
            registry: self,
            entry: &self.entries[slot],
            slot,
        }
    }

    /// The tool at position `slot` (see [`RegisteredTool::slot`]).
    #[cfg_attr(
        not(any(
            feature = "mcp",
            feature = "http",
            feature = "openai",
            feature = "anthropic",
            feature = "gemini",
            feature = "rig"
        )),
        allow(
            dead_code,
            reason = "the catalogs' way back to a tool: unused without an adapter"
        )
    )]
    pub(crate) fn at(&self, slot: usize) -> Option<RegisteredTool<'_>> {
        (slot < self.entries.len()).then(|| self.handle(slot))
    }

    /// The tool with canonical name `name`.
    pub fn get(&self, name: &str) -> Option<RegisteredTool<'_>> {
        self.by_name.get(name).map(|&i| self.handle(i))
    }

    /// Every tool, sorted by canonical name (the explain tool included).
    pub fn tools(&self) -> impl ExactSizeIterator<Item = RegisteredTool<'_>> {
        (0..self.entries.len()).map(|i| self.handle(i))
    }

    /// The members of `adapter`, sorted by their name on that adapter.
    pub fn tools_for(&self, adapter: &str) -> Vec<RegisteredTool<'_>> {
        let mut members: Vec<(&str, RegisteredTool<'_>)> = self
            .tools()
            .filter_map(|t| t.name_for(adapter).map(|name| (name, t)))
            .collect();
        members.sort_by_key(|(name, _)| *name);
        members.into_iter().map(|(_, t)| t).collect()
    }

    /// The member of `adapter` that the adapter calls `name`.
    pub fn find(&self, adapter: &str, name: &str) -> Option<RegisteredTool<'_>> {
        let names = self.by_adapter.get(adapter)?;
        names.get(name).map(|&slot| self.handle(slot))
    }

    /// Why `caller` could not call some tools of `adapter`: each tool it may call there whose
    /// ambient fields its context does not give (missing, or not of their type). A server
    /// whose caller is fixed (MCP over stdio) checks this before it serves, so that the
    /// mistake shows at start rather than as an internal error in the first call.
    pub fn check_caller(&self, adapter: &str, caller: &Caller) -> Result<(), CallerMismatch> {
        let problems: Vec<String> = self
            .entries
            .iter()
            .filter(|e| e.descriptor.is_member(adapter))
            .filter(|e| caller.scopes.allow_tool(&e.descriptor))
            .filter_map(|e| match &e.imp {
                Imp::Tool(stages) => stages.check_ambient(&caller.ambient).err(),
                Imp::Explain | Imp::TaskStatus => None,
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(CallerMismatch::new(problems))
        }
    }

    /// The effective settings of tool `tool` on `adapter` (None unless it is a member).
    pub fn settings(&self, tool: &str, adapter: &str) -> Option<Settings<'_, Text>> {
        self.get(tool)?.settings(adapter)
    }

    /// The tool `name` names through `adapter` (its name there, members only), or by its
    /// canonical name without one.
    pub(crate) fn lookup(&self, adapter: Option<&str>, name: &str) -> Option<RegisteredTool<'_>> {
        match adapter {
            Some(adapter) => self.find(adapter, name),
            None => self.get(name),
        }
    }

    /// What the registry holds every call to.
    pub(crate) fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The built-in task status tool's name on `adapter`, when it is a member there.
    pub fn task_status_tool(&self, adapter: &str) -> Option<&str> {
        self.task_status.as_ref()?.name_for(adapter)
    }

    /// Whether some tool declares `task:` and there is a storage to keep tasks in.
    pub(crate) fn task_tools(&self) -> bool {
        self.task_tools
    }

    /// Whether this process's task worker was started.
    pub(crate) fn worker_started(&self) -> &std::sync::atomic::AtomicBool {
        &self.worker
    }

    /// The tools whose tasks this process's worker runs (canonical names).
    pub(crate) fn served_tasks(
        &self,
    ) -> &tokio::sync::watch::Sender<std::collections::BTreeSet<Text>> {
        &self.served_tasks
    }

    /// The hooks run around every call.
    pub(crate) fn hooks(&self) -> &[Arc<dyn Hook>] {
        &self.hooks
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.entries.iter().map(|t| &*t.descriptor.name))
            .finish()
    }
}

/// Used by generated `registry()` functions.
#[doc(hidden)]
pub fn generated_registry(builder: RegistryBuilder) -> Registry {
    builder.build_trusted()
}
