//! The lock's model: per tool, what it publishes (see the parent module), built from the
//! tools' descriptors, written as JSON with sorted keys and read back.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use sha2::{Digest as _, Sha256};
use toolspec_vocab::descriptor::ToolKind;

use crate::derive::dialect::members::binding_dialect;
use crate::project::{Project, Tool};

/// The lock's file name, in the specs folder (the compiler reads only `.yaml`, `.yml` and
/// `.json` files there, so it never takes the lock for a spec).
pub const LOCK_FILE_NAME: &str = "toolspec.lock";

/// The version of the lock's format this compiler writes and reads.
pub const LOCK_FORMAT: u32 = 1;

/// A project's reviewed tool contracts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    /// The format's version ([`LOCK_FORMAT`]).
    pub toolspec_lock: u32,
    /// Every tool by its canonical name.
    pub tools: BTreeMap<String, LockedTool>,
}

/// One tool's contract, as locked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedTool {
    /// The spec file, relative to the specs folder.
    pub spec: String,
    /// The spec's `version`, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    /// SHA-256 of this entry with the fingerprint left empty.
    pub fingerprint: String,
    /// `action` or `query`.
    pub kind: String,
    /// The title, when the spec gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The description models read (composed with guards and errors).
    pub description: String,
    /// The tool's hints, sorted.
    pub hints: Vec<String>,
    /// The scopes a caller needs, sorted.
    pub scopes: Vec<String>,
    /// Declared error codes and their messages.
    pub errors: BTreeMap<String, String>,
    /// Guards (each also an error code) and what they check.
    pub guards: BTreeMap<String, String>,
    /// How the tool runs as a task, when it may.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<LockedTask>,
    /// What its user confirms before a call acts, when it asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirm: Option<LockedConfirm>,
    /// The forms `ask:` shows for fields a model leaves out: form → fields.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ask: BTreeMap<String, Vec<String>>,
    /// How large an answer may get before it is cut, when there is a cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_cap: Option<LockedCap>,
    /// The canonical input schema (MCP's `inputSchema`).
    pub input: Json,
    /// The canonical output schema.
    pub output: Json,
    /// Every adapter the tool is served on.
    pub adapters: BTreeMap<String, LockedAdapter>,
}

/// A tool's task settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedTask {
    /// `optional` or `required`.
    pub support: String,
    /// How long a task is kept, in milliseconds.
    pub retention_ms: u64,
    /// How long one run may take, in milliseconds.
    pub timeout_ms: u64,
}

/// A tool's confirmation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedConfirm {
    /// The message template.
    pub message: String,
    /// When the user is asked, if not always.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
}

/// A tool's result cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedCap {
    /// The most bytes of JSON, when bounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// The most items of a list, when bounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<u32>,
}

/// A tool on one adapter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedAdapter {
    /// Its name there.
    pub name: String,
    /// The dialect its input schema is declared in there.
    pub dialect: String,
    /// Its hints there, sorted.
    pub hints: Vec<String>,
    /// The input schema published there, when it is not the canonical one (`null` for a
    /// dialect that declares no parameters).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub input: Option<Json>,
}

/// Why a text is not a contract lock this toolspec reads ([`Lock::parse`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum LockError {
    /// Not a lock's JSON.
    Json(serde_json::Error),
    /// A lock in another format.
    Format(u32),
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Json(e) => e.fmt(f),
            Self::Format(format) => write!(
                f,
                "it is in format {format}, and this toolspec reads format {LOCK_FORMAT}"
            ),
        }
    }
}

impl std::error::Error for LockError {}

impl Lock {
    /// The lock of `project` as it is now.
    pub fn of(project: &Project) -> Lock {
        let tools = project
            .tools()
            .iter()
            .map(|tool| (tool.name().to_owned(), LockedTool::of(project, tool)))
            .collect();
        Lock {
            toolspec_lock: LOCK_FORMAT,
            tools,
        }
    }

    /// Reads a lock written by [`to_text`](Self::to_text); an error says what is wrong.
    pub fn parse(text: &str) -> Result<Lock, LockError> {
        let lock: Lock = serde_json::from_str(text).map_err(LockError::Json)?;
        if lock.toolspec_lock != LOCK_FORMAT {
            return Err(LockError::Format(lock.toolspec_lock));
        }
        Ok(lock)
    }

    /// The lock as its file holds it: pretty JSON, keys sorted, a newline at the end.
    pub fn to_text(&self) -> String {
        let mut text =
            serde_json::to_string_pretty(&sorted(&serde_json::to_value(self).unwrap_or_default()))
                .unwrap_or_default();
        text.push('\n');
        text
    }
}

impl LockedTool {
    fn of(project: &Project, tool: &Tool) -> LockedTool {
        let descriptor = tool.descriptor();
        let parse = |text: &str| serde_json::from_str::<Json>(text).unwrap_or(Json::Null);
        let input = parse(&descriptor.input_schema);
        let adapters = tool
            .bindings()
            .iter()
            .map(|binding| {
                let adapter = binding.adapter.as_str();
                let wanted = binding_dialect(binding, &project.config);
                let (dialect, schema) = descriptor.declared_for(adapter, wanted);
                let published = Some(parse(schema)).filter(|schema| *schema != input);
                let locked = LockedAdapter {
                    name: binding.name.clone(),
                    dialect: dialect.name().to_owned(),
                    hints: sorted_texts(descriptor.hints_for(adapter)),
                    input: published,
                };
                (adapter.to_owned(), locked)
            })
            .collect();
        let mut locked = LockedTool {
            spec: tool.spec_path().to_owned(),
            version: descriptor.version,
            fingerprint: String::new(),
            kind: match descriptor.kind {
                ToolKind::Query => "query",
                _ => "action",
            }
            .to_owned(),
            title: descriptor.title.as_deref().map(str::to_owned),
            description: descriptor.description.to_string(),
            hints: sorted_texts(&descriptor.hints),
            scopes: sorted_texts(&descriptor.scopes),
            errors: descriptor
                .errors
                .iter()
                .map(|e| (e.code.to_string(), e.message.to_string()))
                .collect(),
            guards: descriptor
                .guards
                .iter()
                .map(|g| (g.name.to_string(), g.description.to_string()))
                .collect(),
            task: descriptor.task.map(|task| LockedTask {
                support: task.support.as_str().to_owned(),
                retention_ms: task.retention_ms,
                timeout_ms: task.timeout_ms,
            }),
            confirm: descriptor.confirm.as_ref().map(|c| LockedConfirm {
                message: c.message.to_string(),
                when: c.when.as_deref().map(str::to_owned),
            }),
            ask: descriptor
                .ask
                .iter()
                .map(|f| {
                    let fields = f.fields.iter().map(ToString::to_string).collect();
                    (f.name.to_string(), fields)
                })
                .collect(),
            result_cap: descriptor.result_cap.map(|cap| LockedCap {
                bytes: cap.bytes,
                items: cap.items,
            }),
            input,
            output: parse(&descriptor.output_schema),
            adapters,
        };
        locked.fingerprint = locked.digest();
        locked
    }

    /// The SHA-256 of this entry with an empty fingerprint (`sha256:` and 64 hex digits).
    pub fn digest(&self) -> String {
        let mut unsigned = self.clone();
        unsigned.fingerprint = String::new();
        let value = sorted(&serde_json::to_value(&unsigned).unwrap_or_default());
        let hash = Sha256::digest(value.to_string().as_bytes());
        let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
        format!("sha256:{hex}")
    }
}

/// A value that is there, `null` included (serde reads a `null` option as none).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Json>, D::Error> {
    Json::deserialize(d).map(Some)
}

fn sorted_texts<S: AsRef<str>>(texts: &[S]) -> Vec<String> {
    let mut out: Vec<String> = texts.iter().map(|t| t.as_ref().to_owned()).collect();
    out.sort();
    out
}

/// `value` with every object's keys sorted (the lock is the same whatever order a schema was
/// built in).
fn sorted(value: &Json) -> Json {
    match value {
        Json::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Json::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&map[k])))
                    .collect(),
            )
        }
        Json::Array(items) => Json::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}
