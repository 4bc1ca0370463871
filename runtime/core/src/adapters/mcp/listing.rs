//! The MCP listing: each member tool projected once to what `tools/list` shows,
//! kept as the JSON text it serializes to, its rmcp [`Tool`] built again only when something
//! asks for one (a `tools/list` no transport gave a slot, rmcp's check of a call's
//! `Mcp-Param-*` headers); and [`ToolsSlot`], through which a transport that writes
//! `tools/list` results itself (stdio, stateless HTTP, a session's SSE events) is handed a
//! caller's page as one JSON value joined once from those texts ([`PreparedPages`]); stdio
//! writes the response as a [`Page`], the typed result with that value as its tools.
//!
//! It declares and pages; who may see a tool is the catalog's rule, who is asking the
//! transport's.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use rmcp::model::{
    JsonObject, JsonRpcVersion2_0, MetaObject, RequestId, ServerJsonRpcMessage, Tool,
    ToolAnnotations,
};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::model::caller::{Caller, Scopes};
use crate::model::descriptor::{Descriptor, SharedDescriptor, ToolKind};
use crate::registry::Registry;
use crate::registry::catalog::{Catalog, Member};
use toolspec_vocab::descriptor::Text;
use toolspec_vocab::settings::PresentAs;
use toolspec_vocab::{Dialect, hints};

/// The adapter's name in specs (`tool: {mcp: …}`) and in the registry.
#[doc(hidden)]
pub const ADAPTER: &str = "mcp";

/// `_meta` key carrying a tool's tags.
#[doc(hidden)]
pub const META_TAGS: &str = "toolspec/tags";
/// `_meta` key carrying a tool's spec version.
#[doc(hidden)]
pub const META_VERSION: &str = "toolspec/version";

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

/// One descriptor as an rmcp tool named `name`.
fn declare(tool: &Descriptor, name: Text) -> Tool {
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
    wrapped
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
/// and `present_as`, found by MCP name. `McpServer` serves from it.
#[doc(hidden)]
pub type Listing = Catalog<Listed>;

impl Listing {
    /// Every MCP member of `registry`.
    pub fn mcp(registry: &Registry) -> Self {
        Catalog::of(registry, ADAPTER, |registered| {
            Listed::new(registered.descriptor())
        })
    }

    /// These descriptors (those that are MCP members), each presented as given.
    pub fn from_descriptors(
        descriptors: impl IntoIterator<Item = (impl Into<SharedDescriptor>, PresentAs)>,
    ) -> Self {
        Catalog::new(
            descriptors
                .into_iter()
                .filter_map(|(descriptor, present_as)| {
                    let descriptor = descriptor.into();
                    let name = descriptor.name_text_for(ADAPTER)?;
                    let listed = Listed::new(&descriptor)?;
                    Some(Member::new(name, descriptor, present_as, listed))
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
        let mut tools = Vec::new();
        let next = self.each_on_page(caller, offset, size, |listed| {
            tools.push(listed.tool().clone());
        });
        (tools, next)
    }

    /// The same page as [`page`](Self::page), as the JSON array `tools/list` carries: the
    /// tools' prepared texts joined, nothing serialized.
    pub fn page_json(
        &self,
        caller: &Caller,
        offset: usize,
        size: Option<usize>,
    ) -> (Vec<u8>, Option<usize>) {
        let mut json = vec![b'['];
        let next = self.each_on_page(caller, offset, size, |listed| {
            if json.len() > 1 {
                json.push(b',');
            }
            json.extend_from_slice(listed.json().as_bytes());
        });
        json.push(b']');
        (json, next)
    }

    /// Gives `each` the tools of a page; returns the offset of the next page, if any.
    fn each_on_page(
        &self,
        caller: &Caller,
        offset: usize,
        size: Option<usize>,
        mut each: impl FnMut(&Listed),
    ) -> Option<usize> {
        let mut visible = self.visible(Some(caller)).skip(offset);
        let mut taken = 0;
        for member in visible.by_ref().take(size.unwrap_or(usize::MAX)) {
            each(&member.declaration);
            taken += 1;
        }
        visible.next().is_some().then(|| offset + taken)
    }
}

/// A tool as `tools/list` shows it: its JSON text, serialized once, and the rmcp [`Tool`]
/// built again from its descriptor the first time something asks for it (most tools never
/// are: a listing of a thousand tools holds about a kilobyte of text per tool, where rmcp's
/// trees of JSON maps take ten times that).
#[derive(Debug, Clone)]
#[doc(hidden)]
pub struct Listed {
    json: Box<str>,
    descriptor: SharedDescriptor,
    /// Its MCP name.
    name: Text,
    tool: OnceLock<Tool>,
}

impl Listed {
    /// `descriptor` as MCP lists it, or `None` when the tool is not a member of the MCP
    /// adapter.
    pub fn new(descriptor: &SharedDescriptor) -> Option<Self> {
        let name = descriptor.name_text_for(ADAPTER)?;
        let tool = declare(descriptor, name.clone());
        // An rmcp `Tool` is strings and JSON maps: serializing it cannot fail.
        let json = serde_json::to_string(&tool).ok()?;
        Some(Self {
            json: json.into_boxed_str(),
            descriptor: descriptor.clone(),
            name,
            tool: OnceLock::new(),
        })
    }

    /// The tool as JSON text, as `tools/list` carries it.
    pub fn json(&self) -> &str {
        &self.json
    }

    /// The tool as rmcp's type, built the first time it is asked for.
    pub fn tool(&self) -> &Tool {
        self.tool
            .get_or_init(|| declare(&self.descriptor, self.name.clone()))
    }
}

/// Pages of tools already joined, by the scopes of the callers they were joined for and by
/// offset: a listing never changes while the server runs, so each caller's `tools/list` is
/// copied from the prepared texts once and then served as it is. The cache holds at most
/// [`CACHED_BYTES`] (always the page just joined); past that it starts again.
#[derive(Debug, Default)]
pub(crate) struct PreparedPages(Mutex<Pages>);

type Pages = HashMap<Scopes, HashMap<usize, PreparedPage>>;

/// How many bytes of joined pages [`PreparedPages`] keeps.
pub(crate) const CACHED_BYTES: usize = 8 << 20;

/// A page of tools as a transport writes it: their JSON array, and the offset of the next
/// page if any remain.
#[derive(Debug, Clone)]
pub(crate) struct PreparedPage {
    pub(crate) tools: Arc<RawValue>,
    pub(crate) next: Option<usize>,
}

impl PreparedPages {
    /// The page of `listing` that `caller` sees from `offset` on, at most `size` tools.
    pub(crate) fn page(
        &self,
        listing: &Listing,
        caller: &Caller,
        offset: usize,
        size: Option<usize>,
    ) -> PreparedPage {
        let scopes = &caller.scopes;
        if let Some(page) = self.lock().get(scopes).and_then(|pages| pages.get(&offset)) {
            return page.clone();
        }
        let (tools, next) = listing.page_json(caller, offset, size);
        let page = PreparedPage {
            tools: joined(tools),
            next,
        };
        let mut pages = self.lock();
        let held: usize = pages
            .values()
            .flat_map(HashMap::values)
            .map(|page| page.tools.get().len())
            .sum();
        if held + page.tools.get().len() > CACHED_BYTES {
            pages.clear();
        }
        pages
            .entry(scopes.clone())
            .or_default()
            .insert(offset, page.clone());
        page
    }

    fn lock(&self) -> MutexGuard<'_, Pages> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Where a transport that writes `tools/list` results itself wants the page's tools: the
/// server puts their JSON array here and answers rmcp with an empty list, and the transport
/// writes the response as a [`Page`] with them. A transport puts one in a request's
/// extensions (stdio: the message's; HTTP: the request's parts) only where it writes the
/// response itself.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolsSlot(Arc<Mutex<Option<Arc<RawValue>>>>);

impl ToolsSlot {
    /// Hands over the page's tools as a JSON array.
    pub(crate) fn fill(&self, tools: Arc<RawValue>) {
        *self.lock() = Some(tools);
    }

    /// The tools the server put here, once.
    pub(crate) fn take(&self) -> Option<Arc<RawValue>> {
        self.lock().take()
    }

    /// Whether the server put tools here.
    #[cfg(test)]
    pub(crate) fn is_filled(&self) -> bool {
        self.lock().is_some()
    }

    fn lock(&self) -> MutexGuard<'_, Option<Arc<RawValue>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The JSON array of a page's tools, joined from texts each serialized by serde_json.
fn joined(tools: Vec<u8>) -> Arc<RawValue> {
    let text = String::from_utf8(tools).expect("serde_json writes UTF-8");
    Arc::from(RawValue::from_string(text).expect("tools serialized by serde_json join to JSON"))
}

/// A `tools/list` response whose tools are a prepared page: the JSON-RPC response rmcp's
/// service made (its id, its result shaped for the session), with the page as the result's
/// `tools` rather than the empty list the server gave rmcp. A typed value, serialized: what
/// else the result holds is read from rmcp's typed result, not from its bytes.
#[derive(Serialize)]
pub(crate) struct Page<'a> {
    jsonrpc: JsonRpcVersion2_0,
    id: &'a RequestId,
    result: PageResult<'a>,
}

#[derive(Serialize)]
struct PageResult<'a> {
    tools: &'a RawValue,
    #[serde(flatten)]
    rest: Map<String, Value>,
}

impl Page<'_> {
    /// The JSON text answering with `message`, a `tools/list` result, and `tools` in it; any
    /// other message is written as it is.
    pub(crate) fn json(
        message: &ServerJsonRpcMessage,
        tools: &RawValue,
    ) -> serde_json::Result<Vec<u8>> {
        let mut text = Vec::with_capacity(tools.get().len() + 256);
        match message {
            ServerJsonRpcMessage::Response(response) => {
                let Value::Object(mut rest) = serde_json::to_value(&response.result)? else {
                    return Err(serde::ser::Error::custom("a result is a JSON object"));
                };
                rest.remove("tools");
                let page = Page {
                    jsonrpc: JsonRpcVersion2_0,
                    id: &response.id,
                    result: PageResult { tools, rest },
                };
                serde_json::to_writer(&mut text, &page)?;
            }
            _ => serde_json::to_writer(&mut text, message)?,
        }
        Ok(text)
    }

    /// The same, as a line of newline-delimited JSON.
    pub(crate) fn line(
        message: &ServerJsonRpcMessage,
        tools: &RawValue,
    ) -> serde_json::Result<Vec<u8>> {
        let mut line = Self::json(message, tools)?;
        line.push(b'\n');
        Ok(line)
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use serde_json::json;

    use super::*;
    use crate::model::descriptor::{AdapterBinding, DescriptorParts};

    /// One descriptor as the listing declares it, or `None` when the tool is not a member of
    /// the MCP adapter.
    fn wrap(tool: &Descriptor) -> Option<Tool> {
        Some(declare(tool, tool.name_text_for(ADAPTER)?))
    }

    fn mcp() -> Cow<'static, [AdapterBinding]> {
        Cow::Owned(vec![AdapterBinding {
            adapter: "mcp".into(),
            name: Some("mcp_name".into()),
            ..AdapterBinding::member("")
        }])
    }

    fn tool(hints: &[&'static str]) -> Descriptor {
        Descriptor::baked(DescriptorParts {
            name: "canonical".into(),
            kind: ToolKind::Action,
            hints: hints.iter().map(|&h| Cow::Borrowed(h)).collect(),
            tags: vec!["a".into(), "b".into()].into(),
            version: Some(3),
            ..Descriptor::explain(
                "canonical".into(),
                mcp(),
                crate::model::descriptor::AuditPolicy::OFF,
            )
            .0
        })
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
            let closed = Descriptor::baked(DescriptorParts {
                kind,
                ..tool(&[]).0
            });
            let wrapped = serde_json::to_value(wrap(&closed).unwrap().annotations).unwrap();
            assert_eq!(wrapped, hints(false, false, false, false), "{kind:?}");
            let open = Descriptor::baked(DescriptorParts {
                kind,
                ..tool(&["open_world"]).0
            });
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
        let outsider = Descriptor::baked(DescriptorParts {
            adapters: Cow::Borrowed(&[]),
            ..tool(&[]).0
        });
        assert!(wrap(&outsider).is_none());
    }

    #[test]
    fn the_mcp_options_title_description_and_hints_are_what_mcp_lists() {
        let own = Descriptor::baked(DescriptorParts {
            adapters: Cow::Owned(vec![AdapterBinding {
                adapter: "mcp".into(),
                title: Some("Health check".into()),
                description: Some("Answers whether the service is up.".into()),
                hints: Some(vec!["read_only".into()].into()),
                ..AdapterBinding::member("")
            }]),
            ..tool(&["destructive"]).0
        });
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
        let silent = Descriptor::baked(DescriptorParts {
            output_schema: r#"{"type":"object","properties":{},"additionalProperties":false}"#
                .into(),
            ..tool(&[]).0
        });
        assert!(silent.exposes_nothing());
        let wrapped = serde_json::to_value(wrap(&silent).unwrap()).unwrap();
        assert!(wrapped.get("outputSchema").is_none(), "{wrapped:#}");
        assert!(!tool(&[]).exposes_nothing());
    }

    #[test]
    fn the_listing_filters_by_scope_and_finds_by_mcp_name() {
        let open = tool(&[]);
        let guarded = Descriptor::baked(DescriptorParts {
            name: "guarded".into(),
            scopes: vec!["orders:write".into()].into(),
            adapters: vec![AdapterBinding {
                adapter: "mcp".into(),
                name: Some("a_guarded".into()),
                ..AdapterBinding::member("")
            }]
            .into(),
            ..open.clone().0
        });
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
                .map(|member| member.declaration.tool().name.as_ref()),
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

    /// The response a transport writes for a page of prepared tools (a [`Page`]) reads as the
    /// response rmcp writes for the same page of `Tool`s.
    #[test]
    fn a_prepared_page_reads_as_rmcps_response_for_the_same_tools() {
        use rmcp::model::{JsonRpcResponse, ListToolsResult, NumberOrString, ServerResult};
        let descriptors: Vec<(Descriptor, PresentAs)> = (0..5)
            .map(|i| {
                let hints: &[&'static str] = if i % 2 == 0 { &["destructive"] } else { &[] };
                let binding = AdapterBinding {
                    adapter: "mcp".into(),
                    name: Some(format!("tool_{i}").into()),
                    ..AdapterBinding::member("")
                };
                let descriptor = Descriptor::baked(DescriptorParts {
                    name: format!("tool_{i}").into(),
                    scopes: if i == 3 {
                        vec!["admin".into()].into()
                    } else {
                        Default::default()
                    },
                    adapters: vec![binding].into(),
                    ..tool(hints).0
                });
                (descriptor, PresentAs::Structured)
            })
            .collect();
        let listing = Listing::from_descriptors(descriptors);
        let message = |result: ListToolsResult| {
            ServerJsonRpcMessage::Response(JsonRpcResponse {
                jsonrpc: JsonRpcVersion2_0,
                id: NumberOrString::Number(7),
                result: ServerResult::ListToolsResult(result),
            })
        };
        let read = |bytes: &[u8]| serde_json::from_slice::<Value>(bytes).unwrap();
        let reader = Caller::new("reader");
        for (caller, offset, size) in [
            (&Caller::default(), 0, None),
            (&reader, 0, None),
            (&reader, 1, Some(2)),
            (&reader, 9, Some(2)),
        ] {
            let (tools, next) = listing.page(caller, offset, size);
            let mut result = ListToolsResult::with_all_items(tools);
            result.next_cursor = next.map(|n| n.to_string());
            result.ttl_ms = Some(60_000);
            let expected = read(&serde_json::to_vec(&message(result)).unwrap());

            let (json, next) = listing.page_json(caller, offset, size);
            let mut result = ListToolsResult::with_all_items(Vec::new());
            result.next_cursor = next.map(|n| n.to_string());
            result.ttl_ms = Some(60_000);
            let tools = joined(json);
            let line = Page::line(&message(result.clone()), &tools).unwrap();
            assert_eq!(line.last(), Some(&b'\n'), "one line");
            assert_eq!(read(&line), expected, "offset {offset}, size {size:?}");

            let slot = ToolsSlot::default();
            slot.fill(tools);
            assert!(slot.is_filled());
            assert!(slot.take().is_some());
            assert!(!slot.is_filled(), "a slot is taken once");
        }
    }
}
