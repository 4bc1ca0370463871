//! The HTTP API's OpenAPI 3.1 document, derived from the checked project like the provider
//! dialects: one operation per member of the `http` adapter (`POST /tools/{name}`, and `GET`
//! with query parameters for a `read_only` tool), its explain operation, and `GET /tools`.
//!
//! Request bodies are the tools' canonical input schemas (JSON Schema 2020-12, which OpenAPI
//! 3.1 speaks), or what a narrowing shows the `http` adapter; responses are the output schema
//! on success and the one error shape `{error, message, details}` under each status the call
//! can end with (the statuses of `toolspec_vocab::http`, which the router follows). The named
//! types every schema refers to (`$defs`) become `components/schemas`, shared when tools
//! define them alike. Security is a bearer token, each operation naming its tool's scopes.
//!
//! Every `integer` of a tool's schemas that has no `format` of its own is `format: int64`,
//! OpenAPI's registered format for what the runtime takes (it refuses integers past `i64`): the
//! schemas state only a spec's own bounds, and this says the rest in OpenAPI's words, for
//! client generators and test tools alike.

mod components;
mod parts;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};
use toolspec_vocab::auth::MissingScope;
use toolspec_vocab::{adapters, codes, hints, http, query};

use crate::openapi::components::Components;
use crate::openapi::parts::{
    RATE_LIMITED, describe, error_schema, explanation_schema, failure, int64, is_scalar,
    json_content, object, rate_limited, retry_after, task_schema, truncated_header,
};
use crate::project::{Project, Tool};

/// The version of the document's `info`.
const INFO_VERSION: &str = "1";

impl Project {
    /// The HTTP API's OpenAPI 3.1 document (`toolspec schema --dialect openapi`, served at
    /// `/openapi.json`).
    pub fn openapi(&self) -> Value {
        // Read back from its text: the text is what the build writes.
        serde_json::from_str(&self.openapi_json()).unwrap_or_default()
    }

    /// The OpenAPI document as JSON text. Each path's item is serialized as soon as it is
    /// built and then dropped: a large project's document (6 MB for 1,000 tools) is never one
    /// tree of values, which cost as much to free as to build.
    pub fn openapi_json(&self) -> String {
        let mut components = Components::default();
        let mut paths = Paths::default();
        let mut members: Vec<(&str, &Tool)> = self
            .tools
            .iter()
            .filter_map(|t| Some((t.http_name()?, t)))
            .collect();
        members.sort_by_key(|(name, _)| *name);
        let challenge = self.config.auth.on_missing_scope == MissingScope::Challenge;
        for (name, tool) in &members {
            let operation = Operation {
                name,
                tool,
                challenge,
            };
            let mut item = Map::new();
            item.insert("post".into(), operation.post(&mut components));
            if let Some(get) = operation.get(&mut components) {
                item.insert("get".into(), get);
            }
            paths.push(&format!("/tools/{name}"), &item.into());
            let explain = object("post", operation.explain());
            paths.push(&format!("/tools/{name}/explain"), &explain);
            if asks(&tool.spec) {
                let resume = object("post", operation.resume(&mut components));
                paths.push(&format!("/tools/{name}/continue"), &resume);
            }
        }
        paths.push("/tools", &json!({ "get": list_operation() }));
        let tasks = members.iter().any(|(_, t)| t.spec.task.is_some());
        if tasks {
            paths.push("/tasks", &json!({ "get": tasks_operation() }));
            paths.push("/tasks/{id}", &task_item());
        }
        let scopes: BTreeSet<&str> = members
            .iter()
            .flat_map(|(_, t)| &t.spec.scopes)
            .map(String::as_str)
            .collect();
        let mut schemas = components.schemas;
        schemas.insert("Error".into(), error_schema(None));
        schemas.insert("Explanation".into(), explanation_schema());
        if tasks {
            schemas.insert("Task".into(), task_schema());
        }
        if members.iter().any(|(_, t)| t.spec.result_cap.is_some()) {
            let notice = toolspec_vocab::result_cap::TRUNCATION_SCHEMA;
            schemas.insert(
                "Truncation".into(),
                serde_json::from_str(notice).unwrap_or_default(),
            );
        }
        let scopes = if scopes.is_empty() {
            "none".to_owned()
        } else {
            scopes.into_iter().collect::<Vec<_>>().join(", ")
        };
        let document = json!({
            "openapi": "3.1.0",
            "info": {
                "title": self.name.as_deref().filter(|n| !n.is_empty()).unwrap_or("Tools"),
                "version": INFO_VERSION,
                "description": format!(
                    "Every tool of the `{}` adapter. Scopes the tools require: {scopes}.",
                    adapters::HTTP,
                ),
            },
            "paths": null,
            "components": {
                "schemas": null,
                "securitySchemes": {
                    "bearer": { "type": "http", "scheme": "bearer" }
                }
            },
            "security": [{ "bearer": [] }],
        })
        .to_string();
        // The two `null`s stand where the schemas and the paths go: a key followed by `null`
        // cannot occur inside a JSON string (its quotes would be escaped there), and both are
        // found in the skeleton before anything of a tool's (a `default` may hold such a key)
        // is put in.
        let schemas = Value::from(schemas).to_string();
        let document =
            document.replacen(r#""schemas":null"#, &format!(r#""schemas":{schemas}"#), 1);
        let paths = paths.finish();
        match document.split_once(r#""paths":null"#) {
            Some((head, tail)) => [head, r#""paths":"#, &paths, tail].concat(),
            None => document,
        }
    }
}

/// The document's `paths` object, written as each path's item is built.
#[derive(Default)]
struct Paths {
    json: Vec<u8>,
}

impl Paths {
    fn push(&mut self, path: &str, item: &Value) {
        self.json
            .push(if self.json.is_empty() { b'{' } else { b',' });
        // Neither a string nor a tree of JSON values fails to serialize into memory.
        let _ = serde_json::to_writer(&mut self.json, path);
        self.json.push(b':');
        let _ = serde_json::to_writer(&mut self.json, item);
    }

    fn finish(mut self) -> String {
        if self.json.is_empty() {
            self.json.push(b'{');
        }
        self.json.push(b'}');
        // serde_json writes UTF-8.
        String::from_utf8(self.json).unwrap_or_default()
    }
}

impl Tool {
    /// The tool's name on the `http` adapter, when it is a member.
    fn http_name(&self) -> Option<&str> {
        self.http().map(|b| b.name.as_str())
    }

    /// What the `http` adapter accepts: a narrowing's input schema, or the canonical one;
    /// for a query tool, with the paging arguments as the runtime takes them (any `sort`,
    /// the default for one it does not know; any `limit` and `offset`, clamped into range;
    /// `null` for any of them, as if left out).
    /// The tool's binding to the HTTP API (its own title, description and hints there).
    fn http(&self) -> Option<&crate::analyze::membership::Binding> {
        self.bindings.iter().find(|b| b.adapter == adapters::HTTP)
    }

    fn http_input(&self) -> Value {
        let view = self.views.get(adapters::HTTP).and_then(|schemas| {
            schemas
                .iter()
                .find(|(d, _)| *d == toolspec_vocab::Dialect::Mcp)
        });
        let mut input = view
            .map_or(&self.input_schema, |(_, schema)| schema)
            .clone();
        int64(&mut input);
        if let Some(query) = &self.spec.query
            && let Some(properties) = input["properties"].as_object_mut()
        {
            // A text filter never holds the NUL character (no PostgreSQL text can): the
            // runtime refuses it, and the document says so.
            let texts = query
                .filters
                .iter()
                .filter(|f| f.ty == query::ColumnType::String);
            for filter in texts {
                if let Some(schema) = properties.get_mut(filter.name.value.as_str()) {
                    let text = match schema.get("items") {
                        Some(_) => &mut schema["items"],
                        None => schema,
                    };
                    if let Value::Object(text) = text {
                        text.entry("pattern").or_insert(json!(NO_NUL));
                    }
                }
            }
            let lenient = [
                (
                    query::SORT,
                    "string",
                    "any other value sorts by the default",
                ),
                (query::LIMIT, "integer", "clamped to the page size limits"),
                (query::OFFSET, "integer", "a negative one counts as 0"),
            ];
            for (name, ty, note) in lenient {
                if let Some(Value::Object(schema)) = properties.get_mut(name) {
                    for keyword in ["enum", "minimum", "maximum", "format"] {
                        schema.remove(keyword);
                    }
                    // `null` is as good as leaving it out.
                    schema.insert("type".into(), json!([ty, "null"]));
                    let said = schema
                        .get("description")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let description = format!("{said} ({note})").trim().to_owned();
                    schema.insert("description".into(), description.into());
                }
            }
        }
        input
    }
}

/// A text without the NUL character.
const NO_NUL: &str = "^[^\\u0000]*$";

/// One tool's operations.
struct Operation<'a> {
    name: &'a str,
    tool: &'a Tool,
    challenge: bool,
}

impl Operation<'_> {
    fn post(&self, components: &mut Components) -> Value {
        let input = components.take(self.tool.http_input());
        let required = input["required"].as_array().is_some_and(|r| !r.is_empty());
        let mut operation = self.common(self.name.to_owned());
        operation.insert(
            "requestBody".into(),
            // An empty body is `{}`.
            json_content("required", required.into(), input),
        );
        if let Some(prefer) = self.prefer() {
            operation.insert("parameters".into(), json!([prefer]));
        }
        let responses = self.responses(components, true, false);
        operation.insert("responses".into(), responses.into());
        operation.into()
    }

    /// `POST /tools/{name}/continue`, for a tool that asks its user: the arguments as first
    /// sent, the sealed state and the user's responses; it answers as the tool does, or with
    /// the refusal of its state or of the user.
    fn resume(&self, components: &mut Components) -> Value {
        let input = components.take(self.tool.http_input());
        let response = json!({
            "type": "object",
            "properties": {
                "action": { "enum": ["accept", "decline", "cancel"] },
                "content": { "type": "object" }
            },
            "required": ["action"]
        });
        let mut body = json!({
            "type": "object",
            "properties": {
                "arguments": null,
                "request_state": {
                    "type": "string",
                    "description": "The `request_state` the call answered (`input_required`'s details)."
                },
                "responses": {
                    "type": "object",
                    "description": "The user's response to each request, by its key (`confirm`, or a form's name).",
                    "additionalProperties": response
                }
            },
            "required": ["arguments"],
            "additionalProperties": false
        });
        body["properties"]["arguments"] = input;
        let mut operation = self.common(format!("{}_continue", self.name));
        operation.insert(
            "summary".into(),
            json!(format!(
                "Continue a call of `{}` with its user's answers",
                self.name
            )),
        );
        operation.insert(
            "requestBody".into(),
            json_content("required", true.into(), body),
        );
        let responses = self.responses(components, true, true);
        operation.insert("responses".into(), responses.into());
        operation.into()
    }

    /// `GET` with one query parameter per scalar argument, for a `read_only` tool whose
    /// required arguments are all scalars.
    fn get(&self, components: &mut Components) -> Option<Value> {
        let spec = &self.tool.spec;
        let read_only = match self.tool.http().and_then(|b| b.hints.as_ref()) {
            Some(own) => own.iter().any(|h| h == hints::READ_ONLY),
            None => spec.hints.iter().any(|h| h.value == hints::READ_ONLY),
        };
        if !read_only {
            return None;
        }
        let input = self.tool.http_input();
        let required: BTreeSet<&str> = input["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let mut parameters = Vec::new();
        for (key, schema) in input["properties"].as_object().into_iter().flatten() {
            let is_required = required.contains(key.as_str());
            if !is_scalar(schema) {
                if is_required {
                    return None;
                }
                continue;
            }
            let schema = components.take(schema.clone());
            let mut parameter = json!({
                "name": key,
                "in": "query",
                "required": is_required,
                "schema": schema,
            });
            if let Some(description) = schema.get("description") {
                parameter["description"] = description.clone();
            }
            parameters.push(parameter);
        }
        parameters.extend(self.prefer());
        let mut operation = self.common(format!("{}_get", self.name));
        operation.insert("parameters".into(), parameters.into());
        let responses = self.responses(components, false, false);
        operation.insert("responses".into(), responses.into());
        Some(operation.into())
    }

    fn explain(&self) -> Value {
        let mut responses = Map::new();
        responses.insert(
            "200".into(),
            json!({
                "description": "Whether the call could run, and why not (nothing is run).",
                "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Explanation" } } }
            }),
        );
        self.transport_responses(&mut responses, true);
        let not_found = failure(describe(http::NOT_FOUND), &[codes::UNKNOWN_TOOL]);
        responses.insert(http::NOT_FOUND.to_string(), not_found);
        // A body that is not a JSON object (the arguments' own errors are in the explanation).
        let invalid = failure(describe(http::INVALID), &[codes::INVALID_ARGUMENTS]);
        responses.insert(http::INVALID.to_string(), invalid);
        // Explaining runs the guards: it spends the tool's budget like a call.
        if self.tool.spec.rate_limit.is_some() {
            responses.insert(http::RATE_LIMITED.to_string(), rate_limited());
        }
        let mut operation = json!({
            "operationId": format!("{}_explain", self.name),
            "summary": format!("Explain a call of `{}` without running it", self.name),
            "tags": self.tool.spec.tags,
            "security": self.security(),
            "requestBody": {
                "required": false,
                "content": { "application/json": { "schema": { "type": "object" } } }
            },
            "responses": null,
        });
        operation["responses"] = responses.into();
        operation
    }

    /// The `Prefer` header a tool that may run as a task reads.
    fn prefer(&self) -> Option<Value> {
        let task = self.tool.spec.task.as_ref()?;
        let description = match task.is_required() {
            true => {
                "This tool always runs as a task (`202 Accepted`), whatever the request prefers."
            }
            false => {
                "`respond-async` stores the call as a task and answers `202 Accepted` at once."
            }
        };
        Some(json!({
            "name": "Prefer",
            "in": "header",
            "required": false,
            "description": description,
            "schema": { "type": "string", "enum": ["respond-async"] }
        }))
    }

    fn common(&self, operation_id: String) -> Map<String, Value> {
        let spec = &self.tool.spec;
        let mut operation = Map::new();
        operation.insert("operationId".into(), operation_id.into());
        let http = self.tool.http();
        let summary = http
            .and_then(|b| b.title.clone())
            .or_else(|| spec.title.clone())
            .unwrap_or_else(|| spec.description.clone());
        operation.insert("summary".into(), summary.into());
        let description = http
            .and_then(|b| {
                b.view
                    .as_ref()
                    .map(|v| &v.description)
                    .or(b.description.as_ref())
            })
            .unwrap_or(&self.tool.description);
        operation.insert("description".into(), description.clone().into());
        if !spec.tags.is_empty() {
            operation.insert("tags".into(), json!(spec.tags));
        }
        operation.insert("security".into(), self.security());
        operation
    }

    fn security(&self) -> Value {
        json!([{ "bearer": self.tool.spec.scopes }])
    }

    /// Success, then every failure the call can end with, by status.
    /// The responses of a call (`continuing`: of its continuation, which may also find its
    /// state or its user refusing it).
    fn responses(
        &self,
        components: &mut Components,
        with_body: bool,
        continuing: bool,
    ) -> Map<String, Value> {
        let spec = &self.tool.spec;
        let mut responses = Map::new();
        let mut output = self.tool.output_schema.clone();
        int64(&mut output);
        let output = components.take(output);
        // A tool whose task is `required` always answers with a task.
        if !spec.task.is_some_and(|t| t.is_required()) {
            let mut ok = json_content("description", "The tool's exposed values.".into(), output);
            if let Some(cap) = spec.result_cap {
                ok["headers"] = truncated_header(cap);
            }
            responses.insert("200".into(), ok);
        }
        if let Some(task) = &spec.task {
            let when = match task.is_required() {
                true => "The call was stored as a task (this tool always runs as one)",
                false => "The call was stored as a task (the request preferred `respond-async`)",
            };
            responses.insert(
                http::ACCEPTED.to_string(),
                json!({
                    "description": format!(
                        "{when}: read it at `Location` until it ends; its `result` is then this \
                         tool's exposed values, or its `error` one of the failures below."
                    ),
                    "headers": {
                        "Location": {
                            "description": "Where the task is read (`GET`) and cancelled (`DELETE`).",
                            "schema": { "type": "string" }
                        }
                    },
                    "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Task" } } }
                }),
            );
        }
        let query = spec.query.is_some();
        let mut by_status: BTreeMap<u16, BTreeSet<&str>> = BTreeMap::new();
        let mut add = |code: &'static str| {
            if let Some(status) = http::builtin_status(code) {
                by_status.entry(status).or_default().insert(code);
            }
        };
        add(codes::INVALID_ARGUMENTS);
        add(codes::UNKNOWN_TOOL);
        add(codes::TIMEOUT);
        add(codes::INTERNAL_ERROR);
        // Any call may find its database (or its audit trail) down: a handler's too.
        add(codes::UNAVAILABLE);
        if query {
            add(codes::QUERY_FAILED);
        }
        if spec.lock.is_some() {
            add(codes::LOCKED);
        }
        if spec.once.is_some() {
            add(codes::IN_PROGRESS);
        }
        if spec.task.is_some() {
            add(codes::TOO_MANY_TASKS);
        }
        if spec.rate_limit.is_some() {
            add(codes::RATE_LIMITED);
        }
        if spec.result_cap.is_some() {
            add(codes::RESULT_TOO_LARGE);
        }
        if spec.expects.iter().any(|f| f.reference.is_some()) {
            add(codes::NOT_FOUND);
        }
        if asks(spec) {
            add(codes::INPUT_REQUIRED);
        }
        if continuing {
            add(codes::DECLINED);
            add(codes::INVALID_REQUEST_STATE);
            add(codes::REQUEST_STATE_EXPIRED);
        }
        for guard in &spec.guards {
            by_status
                .entry(http::GUARD_FAILED)
                .or_default()
                .insert(&guard.name.value);
        }
        for error in &spec.errors {
            let code = error.code.value.as_str();
            let status = http::status(code, Some(self.tool.http_status(code)), false);
            by_status.entry(status).or_default().insert(code);
        }
        for (status, codes) in by_status {
            let codes: Vec<&str> = codes.into_iter().collect();
            let in_progress = codes.contains(&codes::IN_PROGRESS);
            let rate_limited = codes.contains(&codes::RATE_LIMITED);
            let description = match status {
                http::IN_PROGRESS if in_progress => {
                    "A call with the same key is still running (`in_progress`: retry after \
                     `Retry-After` seconds), or a declared error code."
                }
                http::RATE_LIMITED if rate_limited && codes.contains(&codes::TOO_MANY_TASKS) => {
                    "The caller is over the tool's rate limit (`rate_limited`: retry after \
                     `Retry-After` seconds), or at one of its bounds of tasks: unfinished, kept, \
                     bytes of results kept (`too_many_tasks`)."
                }
                http::RATE_LIMITED if rate_limited => RATE_LIMITED,
                http::DECLINED if codes.contains(&codes::DECLINED) => {
                    "The user declined what the call asked (`declined`: nothing was done), or a \
                     declared error code."
                }
                http::INVALID_REQUEST_STATE if codes.contains(&codes::INVALID_REQUEST_STATE) => {
                    "The request state is not one this server issued for this caller, tool and \
                     arguments, was altered, or was used already (`invalid_request_state`: \
                     nothing was done; call the tool again)."
                }
                http::INTERNAL if codes.contains(&codes::RESULT_TOO_LARGE) => {
                    "The tool failed unexpectedly, or its answer does not fit its result cap even \
                     cut (`result_too_large`: ask for less)."
                }
                _ => describe(status),
            };
            let mut response = failure(description, &codes);
            if status == http::UNAVAILABLE || in_progress || rate_limited {
                response["headers"] = retry_after();
            }
            responses.insert(status.to_string(), response);
        }
        self.transport_responses(&mut responses, with_body);
        responses
    }

    /// What the API itself may answer: credentials, scopes, body size.
    fn transport_responses(&self, responses: &mut Map<String, Value>, with_body: bool) {
        responses.insert(
            http::UNAUTHORIZED.to_string(),
            failure(describe(http::UNAUTHORIZED), &[]),
        );
        if self.challenge && !self.tool.spec.scopes.is_empty() {
            responses.insert(
                http::FORBIDDEN.to_string(),
                failure(describe(http::FORBIDDEN), &[]),
            );
        }
        if with_body {
            responses.insert(
                http::PAYLOAD_TOO_LARGE.to_string(),
                failure(describe(http::PAYLOAD_TOO_LARGE), &[]),
            );
        }
    }
}

/// Whether `spec` may ask its user (`confirm`, `ask`).
fn asks(spec: &crate::spec::ToolSpec) -> bool {
    spec.confirm.is_some() || !spec.ask.is_empty()
}

/// `GET /tools`: the tools the caller may call.
fn list_operation() -> Value {
    json!({
        "operationId": "list_tools",
        "summary": "The tools this caller may call",
        "responses": {
            "200": listed(
                "Each tool with its name, description, hints and input schema.",
                "tools",
                json!({ "type": "object" }),
            ),
            "401": failure(describe(http::UNAUTHORIZED), &[]),
        }
    })
}

/// A `200` answer holding one list, `{key: [items…]}`.
fn listed(description: &str, key: &str, items: Value) -> Value {
    json!({
        "description": description,
        "content": { "application/json": { "schema": {
            "type": "object",
            "properties": { key: { "type": "array", "items": items } },
            "required": [key]
        } } }
    })
}

/// `GET /tasks`: the caller's unfinished tasks.
fn tasks_operation() -> Value {
    json!({
        "operationId": "list_tasks",
        "summary": "The caller's unfinished tasks, newest first",
        "responses": {
            "200": listed(
                "Each unfinished task of the caller.",
                "tasks",
                json!({ "$ref": "#/components/schemas/Task" }),
            ),
            "401": failure(describe(http::UNAUTHORIZED), &[]),
            "503": failure(describe(http::UNAVAILABLE), &[codes::UNAVAILABLE]),
        }
    })
}

/// `GET` and `DELETE /tasks/{id}`: one task of the caller, read or cancelled.
fn task_item() -> Value {
    let parameter = json!({
        "name": "id",
        "in": "path",
        "required": true,
        "description": "The task's id, as the call that stored it answered.",
        "schema": { "type": "string", "pattern": "^[0-9a-f]{32}$" }
    });
    let responses = |ok: &str| {
        json!({
            "200": {
                "description": ok,
                "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Task" } } }
            },
            "400": failure("The id is not a task id.", &["invalid_task_id"]),
            "401": failure(describe(http::UNAUTHORIZED), &[]),
            "404": failure(
                "No task of this caller has the id (it never existed, its retention passed, or it is another caller's).",
                &[codes::UNKNOWN_TASK],
            ),
            "500": failure(describe(http::INTERNAL), &[codes::INTERNAL_ERROR]),
            "503": failure(describe(http::UNAVAILABLE), &[codes::UNAVAILABLE]),
        })
    };
    json!({
        "get": {
            "operationId": "get_task",
            "summary": "A task: its status, its progress while it runs, then its result or error",
            "parameters": [parameter],
            "responses": responses("The task as it is now."),
        },
        "delete": {
            "operationId": "cancel_task",
            "summary": "Cancels a task that has not ended (nothing changes for one that has)",
            "parameters": [parameter],
            "responses": responses("The task once cancelled, or as it ended."),
        }
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn the_document_is_titled_with_the_projects_name() {
        let files = [("ping.yaml", "description: Ping.\n")];
        let project = crate::project::from_files(&files);
        assert_eq!(project.openapi()["info"]["title"], "Tools", "no name known");
        let named = project.with_name(Some("helpdesk".to_owned()));
        assert_eq!(named.openapi()["info"]["title"], "helpdesk");
    }

    #[test]
    fn integers_are_int64_where_no_format_says_otherwise() {
        let files = [
            (
                "notes/add.yaml",
                "description: Add.\nexpects:\n  n: { type: integer, minimum: 1 }\n  \
                 maybe: { type: integer, nullable: true, optional: true }\n  \
                 ratio: { type: number }\n  \
                 small: { optional: true, shape: { type: integer, format: int32 } }\n  \
                 counter: { type: Counter, optional: true }\n\
                 exposes:\n  total: { type: integer }\n",
            ),
            (
                "types.yaml",
                "types:\n  Counter:\n    type: object\n    fields:\n      hits: { type: integer }\n",
            ),
        ];
        let project = crate::project::from_files(&files);
        assert!(!project.has_errors(), "{}", project.render_diagnostics());
        let document = project.openapi();
        let post = &document["paths"]["/tools/notes_add"]["post"];
        let input = &post["requestBody"]["content"]["application/json"]["schema"]["properties"];
        assert_eq!(
            input["n"],
            json!({ "type": "integer", "minimum": 1, "format": "int64" })
        );
        assert_eq!(
            input["maybe"],
            json!({ "type": ["integer", "null"], "format": "int64" })
        );
        assert_eq!(input["ratio"], json!({ "type": "number" }));
        assert_eq!(input["small"]["format"], json!("int32"), "a shape's own");
        let counter = &document["components"]["schemas"]["Counter"]["properties"]["hits"];
        assert_eq!(counter["format"], json!("int64"));
        let output = &post["responses"]["200"]["content"]["application/json"]["schema"];
        assert_eq!(output["properties"]["total"]["format"], json!("int64"));
        // The tool's own schemas are left as they are.
        let tool = &project.tools()[0];
        assert_eq!(tool.input_schema()["properties"]["n"].get("format"), None);
    }

    #[test]
    fn a_default_holding_the_skeletons_keys_stays_where_it_is() {
        let files = [(
            "notes/add.yaml",
            "description: Add.\nexpects:\n  settings:\n    type: object\n    fields:\n      \
             schemas: { type: string, nullable: true }\n      \
             paths: { type: string, nullable: true }\n    \
             default: { schemas: null, paths: null }\n",
        )];
        let project = crate::project::from_files(&files);
        assert!(!project.has_errors(), "{}", project.render_diagnostics());
        let document = project.openapi();
        assert!(document["components"]["schemas"]["Error"].is_object());
        assert!(document["paths"]["/tools/notes_add"].is_object());
        let post = &document["paths"]["/tools/notes_add"]["post"];
        let input = &post["requestBody"]["content"]["application/json"]["schema"];
        assert_eq!(
            input["properties"]["settings"]["default"],
            json!({ "schemas": null, "paths": null })
        );
    }

    #[test]
    fn the_explanation_schema_is_json() {
        let schema: serde_json::Value =
            serde_json::from_str(toolspec_vocab::explain::OUTPUT_SCHEMA).expect("JSON");
        assert_eq!(schema["required"][3], "guards");
    }
}
