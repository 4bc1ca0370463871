//! The database-backed parts of a call: `audit:` in the project config and in a tool spec
//! (resolved here, the tool's keys over the project's), and an action's `once:` and `lock:`,
//! whose keys name `expects` fields.

use std::time::Duration;

use crate::diagnostic::kind::Kind;
use crate::read::reader::{Reader, suggest};
use crate::read::yaml::{Node, Value};
use crate::source::{Span, Spanned};
use crate::spec::{AuditPolicy, Durability, LockSpec, OnceSpec, ProjectConfig};

/// The keys of a tool's `audit:` map (the project's has `retention` too).
const POLICY_KEYS: [&str; 3] = ["enabled", "durability", "required"];

/// How long a `once` result answers repeats unless `ttl` says otherwise.
const DEFAULT_TTL: Duration = Duration::from_secs(24 * 3600);
/// The longest `ttl`.
const MAX_TTL: Duration = Duration::from_secs(365 * 24 * 3600);
/// How long a call waits for a `lock` unless `wait` says otherwise.
const DEFAULT_WAIT: Duration = Duration::from_secs(5);
/// The longest `wait`.
const MAX_WAIT: Duration = Duration::from_secs(3600);

/// An `audit:` as written: each key of the policy, when present.
#[derive(Debug, Default)]
pub struct AuditWritten {
    /// `enabled`
    enabled: Option<bool>,
    /// `durability`
    durability: Option<Spanned<Durability>>,
    /// `required`
    required: Option<Spanned<bool>>,
}

/// The project's `audit:` — `{ enabled, durability, required, retention }`, each optional —
/// into `config`.
pub fn read_project_audit(r: &mut Reader<'_>, node: &Node, config: &mut ProjectConfig) {
    let Some(entries) = r.map(node, "`audit`") else {
        return;
    };
    let mut keys = POLICY_KEYS.to_vec();
    keys.push("retention");
    r.check_keys(entries, &keys, "`audit`");
    let written = read_policy_keys(r, node);
    let required = written.required.as_ref().is_some_and(|s| s.value);
    if required
        && let Some(durability) = &written.durability
        && durability.value == Durability::Async
    {
        async_but_required(r, durability.span, None);
    }
    config.audit.policy = AuditPolicy {
        enabled: written.enabled.unwrap_or(false),
        durability: if required {
            Durability::Sync
        } else {
            written
                .durability
                .as_ref()
                .map_or(Durability::Async, |d| d.value)
        },
        required,
    };
    config.audit_durability = written.durability.map(|d| d.value);
    config.audit_required_at = written
        .required
        .filter(|s| s.value)
        .map(|s| (r.file.to_owned(), s.span));
    if let Some(n) = node.get("retention")
        && let Some(retention) = read_duration(r, n, "`audit.retention`", "`90d`")
    {
        if retention.is_zero() {
            r.report(
                r.error(
                    Kind::InvalidValue,
                    n.span,
                    "`audit.retention` must be longer than zero",
                )
                .with_label("zero")
                .with_help("leave `retention` out to keep records forever"),
            );
        } else {
            config.audit.retention = Some(retention);
        }
    }
}

/// A tool's `audit:` — `true`, `false` (`{ enabled: … }`), or a map of the policy's keys.
pub fn read_tool_audit(r: &mut Reader<'_>, node: &Node) -> AuditWritten {
    if let Value::Bool(enabled) = node.value {
        return AuditWritten {
            enabled: Some(enabled),
            ..AuditWritten::default()
        };
    }
    let Some(entries) = node.as_map() else {
        r.wrong_kind(node, "`audit`", "`true`, `false` or a map");
        return AuditWritten::default();
    };
    r.check_keys(entries, &POLICY_KEYS, "`audit`");
    read_policy_keys(r, node)
}

/// The policy of a tool whose `audit:` is `written` (nothing written: the project's), each key
/// over the project's. `required` implies `sync`; an explicit `async` with it is reported.
pub fn resolve_audit(
    r: &mut Reader<'_>,
    written: &AuditWritten,
    config: &ProjectConfig,
) -> AuditPolicy {
    let project = &config.audit.policy;
    let required = written
        .required
        .as_ref()
        .map_or(project.required, |s| s.value);
    let durability = match &written.durability {
        Some(durability) => {
            if required && durability.value == Durability::Async {
                // Required here, or by the project (then shown where).
                let inherited = match &written.required {
                    Some(_) => None,
                    None => config.audit_required_at.as_ref(),
                };
                async_but_required(r, durability.span, inherited);
            }
            durability.value
        }
        None if required => Durability::Sync,
        None => config.audit_durability.unwrap_or(Durability::Async),
    };
    AuditPolicy {
        enabled: written.enabled.unwrap_or(project.enabled),
        durability: if required {
            Durability::Sync
        } else {
            durability
        },
        required,
    }
}

/// `enabled`, `durability` and `required` of an `audit:` map.
fn read_policy_keys(r: &mut Reader<'_>, node: &Node) -> AuditWritten {
    let enabled = node
        .get("enabled")
        .and_then(|n| r.bool(n, "`audit.enabled`"));
    let durability = node.get("durability").and_then(|n| {
        let choices = [("async", Durability::Async), ("sync", Durability::Sync)];
        let help = "`sync` commits the record before the answer leaves, `async` writes it after";
        r.choice(n, "`audit.durability`", "audit durability", &choices, help)
            .map(|d| Spanned::new(d, n.span))
    });
    let required = node.get("required").and_then(|n| {
        r.bool(n, "`audit.required`")
            .map(|b| Spanned::new(b, n.span))
    });
    AuditWritten {
        enabled,
        durability,
        required,
    }
}

/// Reports `durability: async` (at `at`) for a record that is required: in the same map, or
/// by the project's `audit:` (`inherited`: where it says so).
fn async_but_required(r: &mut Reader<'_>, at: Span, inherited: Option<&(String, Span)>) {
    let d = r.error(
        Kind::Conflict,
        at,
        "a required audit record is written before the answer, so `durability` must be `sync`",
    );
    let d = match inherited {
        None => d
            .with_label("`async` with `required: true`")
            .with_help("remove `durability: async`: `required: true` implies `sync`"),
        Some((file, span)) => d
            .with_label("`async`, but the project's audit records are required")
            .with_related(file.clone(), *span, "required here")
            .with_help(
                "remove `durability: async`, or add `required: false` to write this tool's \
                 records after the answer",
            ),
    };
    r.report(d);
}

/// `once:` or `lock:` on an action.
#[derive(Debug, Clone, Copy)]
pub enum Keyed {
    /// `once: { key, ttl }`
    Once,
    /// `lock: { key, wait }`
    Lock,
}

impl Keyed {
    fn name(self) -> &'static str {
        match self {
            Self::Once => "once",
            Self::Lock => "lock",
        }
    }

    /// The key of its duration.
    fn duration_key(self) -> &'static str {
        match self {
            Self::Once => "ttl",
            Self::Lock => "wait",
        }
    }
}

/// `once: { key: [field, …], ttl }`.
pub fn read_once(r: &mut Reader<'_>, key_node: &Node, node: &Node) -> Option<OnceSpec> {
    let (key, ttl) = read_keyed(r, Keyed::Once, key_node, node)?;
    Some(OnceSpec { key, ttl })
}

/// `lock: { key: [field, …], wait }`.
pub fn read_lock(r: &mut Reader<'_>, key_node: &Node, node: &Node) -> Option<LockSpec> {
    let (key, wait) = read_keyed(r, Keyed::Lock, key_node, node)?;
    Some(LockSpec { key, wait })
}

/// The key (its fields are checked against `expects` by [`check_key_fields`]) and the
/// duration of a `once:` or `lock:`, or `None` after reporting what is wrong.
fn read_keyed(
    r: &mut Reader<'_>,
    which: Keyed,
    key_node: &Node,
    node: &Node,
) -> Option<(Vec<Spanned<String>>, Duration)> {
    let name = which.name();
    let what = format!("`{name}`");
    let entries = r.map(node, &what)?;
    let dkey = which.duration_key();
    r.check_keys(entries, &["key", dkey], &what);
    let key = match node.get("key") {
        Some(list) => read_key_list(r, which, list),
        None => {
            r.report(
                r.error(
                    Kind::MissingKey,
                    key_node.span,
                    format!("{what} has no `key`"),
                )
                .with_label("missing `key`")
                .with_help(format!("add `key:` with {}", key_help(which))),
            );
            None
        }
    };
    let default = match which {
        Keyed::Once => DEFAULT_TTL,
        Keyed::Lock => DEFAULT_WAIT,
    };
    // A wrong duration is reported, and the key still checked against `expects` with the
    // default in its place: one build reports both (the build fails all the same).
    let duration = match node.get(dkey) {
        None => default,
        Some(n) => read_bounded(r, which, n).unwrap_or(default),
    };
    Some((key?, duration))
}

/// What `key:` lists, for helps.
fn key_help(which: Keyed) -> &'static str {
    match which {
        Keyed::Once => {
            "the `expects` fields whose values make a call a repeat, like `key: [order_id]`"
        }
        Keyed::Lock => {
            "the `expects` fields whose values name what one call at a time may work on, like \
             `key: [account_id]`"
        }
    }
}

/// `key:` — a non-empty list of field names, each once (a single name is a list of one).
fn read_key_list(r: &mut Reader<'_>, which: Keyed, node: &Node) -> Option<Vec<Spanned<String>>> {
    let what = format!("`{}.key`", which.name());
    if node.as_seq().is_some_and(<[Node]>::is_empty) {
        r.report(
            r.error(Kind::MissingKey, node.span, format!("{what} is empty"))
                .with_label("no field")
                .with_help(format!("list {}", key_help(which))),
        );
        return None;
    }
    let items = node.as_seq().map_or(1, <[Node]>::len);
    let names = r.string_list(node, &what);
    // A non-string item (or no list) was reported.
    let mut ok = names.len() == items;
    let mut key: Vec<Spanned<String>> = Vec::with_capacity(names.len());
    for name in names {
        if let Some(first) = key.iter().find(|k| k.value == name.value) {
            r.report(
                r.error(
                    Kind::InvalidValue,
                    name.span,
                    format!("`{}` is twice in {what}", name.value),
                )
                .with_label("listed again")
                .with_related(r.file, first.span, "first listed here")
                .with_help("list each field once"),
            );
            ok = false;
            continue;
        }
        key.push(name);
    }
    ok.then_some(key)
}

/// A `ttl` or a `wait`, within its bounds.
fn read_bounded(r: &mut Reader<'_>, which: Keyed, node: &Node) -> Option<Duration> {
    let what = format!("`{}.{}`", which.name(), which.duration_key());
    let example = match which {
        Keyed::Once => "`24h`",
        Keyed::Lock => "`5s`",
    };
    let duration = read_duration(r, node, &what, example)?;
    let problem = match which {
        Keyed::Once if duration.is_zero() => Some((
            format!("{what} must be longer than zero"),
            "zero",
            "`ttl` is how long the first call's result answers repeats; it is `24h` unless set",
        )),
        Keyed::Once if duration > MAX_TTL => Some((
            format!("{what} must be at most `365d`"),
            "over 365 days",
            "the first call's result answers repeats for a year at most; `ttl` is `24h` \
             unless set",
        )),
        Keyed::Lock if duration > MAX_WAIT => Some((
            format!("{what} must be at most `1h`"),
            "over an hour",
            "a call waits an hour at most for the lock (`0s`: it fails at once when the lock \
             is held); `wait` is `5s` unless set",
        )),
        _ => None,
    };
    let Some((message, label, help)) = problem else {
        return Some(duration);
    };
    r.report(
        r.error(Kind::InvalidValue, node.span, message)
            .with_label(label)
            .with_help(help),
    );
    None
}

/// A duration (`500ms`, `30s`, `2m`, `1h`, `7d`, or a whole number of seconds) written at
/// `node`, the value of `what`; `example` is shown when it is not one.
pub fn read_duration(
    r: &mut Reader<'_>,
    node: &Node,
    what: &str,
    example: &str,
) -> Option<Duration> {
    let text = match &node.value {
        Value::Int(i) => i.to_string(),
        Value::Str(s) => s.clone(),
        _ => {
            r.wrong_kind(node, what, &format!("a duration like {example}"));
            return None;
        }
    };
    if let Some(duration) = parse_duration(&text) {
        return Some(duration);
    }
    r.report(
        r.error(
            Kind::InvalidValue,
            node.span,
            format!("invalid duration `{text}` for {what}"),
        )
        .with_label("not a duration")
        .with_help(format!(
            "write a whole number with `ms`, `s`, `m`, `h` or `d`, like {example}"
        )),
    );
    None
}

/// Parses `500ms`, `30s`, `2m`, `1h`, `7d` or a whole number of seconds.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let n: u64 = digits.parse().ok()?;
    let ms = match unit.trim() {
        "ms" => n,
        "" | "s" => n.checked_mul(1_000)?,
        "m" => n.checked_mul(60_000)?,
        "h" => n.checked_mul(3_600_000)?,
        "d" => n.checked_mul(86_400_000)?,
        _ => return None,
    };
    Some(Duration::from_millis(ms))
}

/// Reports every field of a `once` or `lock` key that is not a top-level `expects` field
/// (`expects`: their names as written, broken ones included, so as not to report them twice).
pub fn check_key_fields(
    r: &mut Reader<'_>,
    which: Keyed,
    key: &[Spanned<String>],
    expects: &[&str],
) {
    let what = format!("`{}.key`", which.name());
    for name in key {
        if expects.contains(&name.value.as_str()) {
            continue;
        }
        let help = match suggest(&name.value, expects.iter().copied()) {
            Some(m) => format!("did you mean `{m}`?"),
            None if expects.is_empty() => {
                "this tool has no `expects` fields; a key is made of their values".to_owned()
            }
            None => format!("`expects` fields: {}", expects.join(", ")),
        };
        r.report(
            r.error(
                Kind::UnknownName,
                name.span,
                format!(
                    "`{}` in {what} is not an `expects` field of this tool",
                    name.value
                ),
            )
            .with_label("not in `expects`")
            .with_help(help),
        );
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::parse_duration;

    #[test]
    fn durations_take_every_unit() {
        assert_eq!(parse_duration("250ms"), Some(Duration::from_millis(250)));
        assert_eq!(parse_duration("30"), Some(Duration::from_secs(30)));
        assert_eq!(parse_duration("30s"), Some(Duration::from_secs(30)));
        assert_eq!(parse_duration("10m"), Some(Duration::from_secs(600)));
        assert_eq!(parse_duration("24h"), Some(Duration::from_secs(86_400)));
        assert_eq!(
            parse_duration("365d"),
            Some(Duration::from_secs(365 * 86_400))
        );
        assert_eq!(parse_duration("0s"), Some(Duration::ZERO));
        for bad in [
            "",
            "s",
            "-1s",
            "1.5h",
            "3 days",
            "1w",
            "99999999999999999999d",
        ] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
        assert_eq!(
            parse_duration(&format!("{}d", u64::MAX / 1000)),
            None,
            "overflow"
        );
    }
}
