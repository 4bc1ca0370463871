//! The drift of a project from its lock: every difference, classified and placed in the
//! specs.
//!
//! - **breaking**: a tool or field removed or renamed, a new required input, a narrowed type,
//!   enum or bound, an output field removed, retyped or no longer always there, an error code
//!   or guard removed, a tool no longer on an adapter or renamed there;
//! - **needs review**: a new tool or a tool newly on an adapter, a tool that became
//!   destructive or open-world or lost `read_only` or `idempotent`, a scope added or removed,
//!   a new guard, changed task or confirmation settings, a changed default, an output that may
//!   take new values;
//! - **compatible**: a new optional input, a new output field, a widened input, a description,
//!   title or message, a new error code.
//!
//! A breaking change of a tool whose `version` was raised above the lock's is reported with
//! both versions and does not hold the lock back ([`Drift::blocks_update`]).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::Value as Json;
use toolspec_vocab::hints::{DESTRUCTIVE, IDEMPOTENT, OPEN_WORLD, READ_ONLY};

use crate::lock::class::Class;
use crate::lock::model::{Lock, LockedAdapter, LockedCap, LockedTool};
use crate::lock::schema::{self, Change, Side};
use crate::project::{Project, Tool};
use crate::source::{Pos, Span};
use crate::spec::field::{Field, FieldType};

/// One difference between the specs and the lock.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// Its class.
    pub class: Class,
    /// The tool (its name in the specs; the lock's for a removed tool).
    pub tool: String,
    /// Where it is: the spec file (or the lock's, for a removed tool), line and column.
    pub file: String,
    pub line: u32,
    pub col: u32,
    /// What it points at in the spec, when it points at something there.
    pub span: Option<Span>,
    /// What changed, in words.
    pub what: String,
    /// The lock's value, in JSON, when there was one.
    pub locked: Option<String>,
    /// The lock's version and the spec's, when a breaking change comes with a raised version.
    pub raised: Option<(u32, u32)>,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}:{}:{}: `{}` {}",
            self.class, self.file, self.line, self.col, self.tool, self.what
        )?;
        if let Some(locked) = &self.locked {
            write!(f, " (locked: {locked})")?;
        }
        if let Some((old, new)) = self.raised {
            write!(f, " [version {old} → {new}]")?;
        }
        Ok(())
    }
}

/// Every difference of a project from a lock, in the order of the tools' names.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Drift {
    pub findings: Vec<Finding>,
}

impl Drift {
    /// Whether the specs are the lock's exactly.
    pub fn is_empty(&self) -> bool {
        self.findings.is_empty()
    }

    /// The findings of `class`.
    pub fn of(&self, class: Class) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(move |f| f.class == class)
    }

    /// Whether a check against the lock fails: something breaking or to review is not in it.
    pub fn fails(&self) -> bool {
        self.findings.iter().any(|f| f.class != Class::Compatible)
    }

    /// The breaking changes the lock may not take as they are: those of tools whose `version`
    /// was not raised.
    pub fn blocks_update(&self) -> impl Iterator<Item = &Finding> {
        self.of(Class::Breaking).filter(|f| f.raised.is_none())
    }

    /// Every finding on a line, breaking first, then a count per class.
    pub fn render(&self) -> String {
        let mut sorted: Vec<&Finding> = self.findings.iter().collect();
        sorted.sort_by_key(|f| f.class);
        let mut out = String::new();
        for finding in sorted {
            out.push_str(&finding.to_string());
            out.push('\n');
        }
        let count = |class| self.of(class).count();
        out.push_str(&format!(
            "{} breaking, {} to review, {} compatible\n",
            count(Class::Breaking),
            count(Class::NeedsReview),
            count(Class::Compatible)
        ));
        out
    }
}

/// The drift of `project` from `lock`, whose file is shown as `lock_file` (and whose text is
/// `lock_text`, to place a removed tool on its line).
pub fn drift(lock: &Lock, lock_text: &str, lock_file: &str, project: &Project) -> Drift {
    drift_from(lock, lock_text, lock_file, project, &Lock::of(project))
}

/// [`drift`], given `now`, the lock of `project` as it is (built once by a caller that also
/// writes it).
pub fn drift_from(
    lock: &Lock,
    lock_text: &str,
    lock_file: &str,
    project: &Project,
    now: &Lock,
) -> Drift {
    let tools: BTreeMap<&str, &Tool> = project.tools().iter().map(|t| (t.name(), t)).collect();
    let mut out = Vec::new();
    // A tool gone from the lock's names whose spec file now holds a tool of another name was
    // renamed: compared as the same tool.
    let renamed: BTreeMap<&str, &str> = lock
        .tools
        .iter()
        .filter(|(name, _)| !now.tools.contains_key(*name))
        .filter_map(|(name, old)| {
            let (new, _) = now
                .tools
                .iter()
                .find(|(n, t)| t.spec == old.spec && !lock.tools.contains_key(*n))?;
            Some((new.as_str(), name.as_str()))
        })
        .collect();
    for (name, old) in &lock.tools {
        if now.tools.contains_key(name) || renamed.values().any(|n| n == name) {
            continue;
        }
        let line = lock_text
            .lines()
            .position(|l| {
                l.trim_start()
                    .starts_with(&format!("{}: {{", Json::from(name.as_str())))
            })
            .map_or(1, |i| i as u32 + 1);
        out.push(Finding {
            class: Class::Breaking,
            tool: name.clone(),
            file: lock_file.to_owned(),
            line,
            col: 1,
            span: None,
            what: format!("was removed (its spec was `{}`)", old.spec),
            locked: None,
            raised: None,
        });
    }
    for (name, new) in &now.tools {
        let Some(&tool) = tools.get(name.as_str()) else {
            continue;
        };
        let mut place = Place::new(project, tool);
        let old_name = renamed.get(name.as_str()).copied().unwrap_or(name);
        let Some(old) = lock.tools.get(old_name) else {
            place.push(Class::NeedsReview, None, "is a new tool".to_owned(), None);
            out.extend(place.finish(None));
            continue;
        };
        if old.fingerprint != old.digest() {
            place.push(
                Class::NeedsReview,
                None,
                "has a lock entry edited by hand (its fingerprint does not match it)".to_owned(),
                None,
            );
        }
        if old_name != name {
            place.push(
                Class::Breaking,
                None,
                format!("was renamed from `{old_name}`"),
                Some(Json::from(old_name)),
            );
        }
        if old.fingerprint != new.fingerprint || old.fingerprint != old.digest() {
            compare(old, new, &mut place);
        }
        // A spec without `version` is version 0.
        let (was, is) = (old.version.unwrap_or(0), new.version.unwrap_or(0));
        out.extend(place.finish((is > was).then_some((was, is))));
    }
    Drift { findings: out }
}

/// Every difference of one tool.
fn compare(old: &LockedTool, new: &LockedTool, place: &mut Place<'_>) {
    if old.kind != new.kind {
        let what = format!("is now a {} tool", new.kind);
        place.push(
            Class::Breaking,
            Some("kind"),
            what,
            Some(Json::from(old.kind.as_str())),
        );
    }
    if old.title != new.title {
        place.push(
            Class::Compatible,
            Some("title"),
            "has a new title".into(),
            old.title.clone().map(Json::from),
        );
    }
    if old.description != new.description {
        let what = "has a new description".to_owned();
        place.push(
            Class::Compatible,
            Some("description"),
            what,
            Some(Json::from(old.description.as_str())),
        );
    }
    if new.version < old.version {
        let what = "has a lower `version` than the lock's".to_owned();
        place.push(
            Class::NeedsReview,
            Some("version"),
            what,
            old.version.map(Json::from),
        );
    }
    hints(&old.hints, &new.hints, "", place);
    for scope in new.scopes.iter().filter(|s| !old.scopes.contains(s)) {
        let what = format!("requires the new scope `{scope}`");
        place.push(
            Class::NeedsReview,
            Some("scopes"),
            what,
            Some(Json::from(old.scopes.clone())),
        );
    }
    for scope in old.scopes.iter().filter(|s| !new.scopes.contains(s)) {
        let what = format!("no longer requires scope `{scope}`: more callers may call it");
        place.push(
            Class::NeedsReview,
            Some("scopes"),
            what,
            Some(Json::from(old.scopes.clone())),
        );
    }
    codes(
        &old.errors,
        &new.errors,
        "error code",
        Class::Compatible,
        place,
    );
    codes(&old.guards, &new.guards, "guard", Class::NeedsReview, place);
    if old.task != new.task {
        let what = match &new.task {
            Some(task) => format!("runs as a task `{}` with other settings", task.support),
            None => "no longer runs as a task".to_owned(),
        };
        let locked = old
            .task
            .as_ref()
            .map(|t| serde_json::to_value(t).unwrap_or_default());
        place.push(Class::NeedsReview, Some("task"), what, locked);
    }
    match (&old.confirm, &new.confirm) {
        (None, Some(_)) => place.push(
            Class::NeedsReview,
            Some("confirm"),
            "now asks its user to confirm each call".into(),
            None,
        ),
        (Some(c), None) => place.push(
            Class::NeedsReview,
            Some("confirm"),
            "no longer asks its user to confirm".into(),
            Some(Json::from(c.message.as_str())),
        ),
        (Some(a), Some(b)) if a.when != b.when => place.push(
            Class::NeedsReview,
            Some("confirm"),
            "asks for confirmation in other cases".into(),
            a.when.clone().map(Json::from),
        ),
        (Some(a), Some(b)) if a.message != b.message => place.push(
            Class::Compatible,
            Some("confirm"),
            "has a new confirmation message".into(),
            Some(Json::from(a.message.as_str())),
        ),
        _ => {}
    }
    result_cap(old.result_cap, new.result_cap, place);
    if old.ask != new.ask {
        let locked = serde_json::to_value(&old.ask).unwrap_or_default();
        place.push(
            Class::NeedsReview,
            Some("ask"),
            "asks its user for other fields".into(),
            Some(locked),
        );
    }
    let input = schema::diff(&old.input, &new.input, Side::Input);
    let output = schema::diff(&old.output, &new.output, Side::Output);
    for (side, changes) in [(Side::Input, &input), (Side::Output, &output)] {
        for change in changes {
            place.change(side, change, "");
        }
    }
    adapters(old, new, &input, place);
}

/// A cap that cuts answers sooner than the lock's needs review (a client may miss items it
/// read before); one that cuts them later, or not at all, is compatible.
fn result_cap(old: Option<LockedCap>, new: Option<LockedCap>, place: &mut Place<'_>) {
    if old == new {
        return;
    }
    // Each bound, with no bound as the largest.
    let bound = |cap: Option<LockedCap>| {
        let cap = cap.unwrap_or(LockedCap {
            bytes: None,
            items: None,
        });
        (
            cap.bytes.unwrap_or(u64::MAX),
            cap.items.map_or(u64::MAX, u64::from),
        )
    };
    let ((old_bytes, old_items), (new_bytes, new_items)) = (bound(old), bound(new));
    let tighter = new_bytes < old_bytes || new_items < old_items;
    let (class, what) = match tighter {
        true => (Class::NeedsReview, "cuts its answers sooner"),
        false => (Class::Compatible, "cuts its answers later"),
    };
    let said = |cap: Option<LockedCap>| match cap {
        Some(cap) => toolspec_vocab::result_cap::ResultCap {
            bytes: cap.bytes,
            items: cap.items,
        }
        .to_string(),
        None => "no cap".to_owned(),
    };
    let what = format!("{what}: {}", said(new));
    let locked = old.map(|cap| serde_json::to_value(cap).unwrap_or_default());
    place.push(class, Some("result_cap"), what, locked);
}

/// The tool on each adapter: gone, new, renamed, redeclared, its hints and published schema.
fn adapters(old: &LockedTool, new: &LockedTool, canonical: &[Change], place: &mut Place<'_>) {
    for (adapter, was) in &old.adapters {
        let Some(now) = new.adapters.get(adapter) else {
            let what = format!("is no longer served on `{adapter}`");
            place.push(
                Class::Breaking,
                Some("tool"),
                what,
                Some(Json::from(was.name.as_str())),
            );
            continue;
        };
        let on = format!(" on `{adapter}`");
        if was.name != now.name {
            let what = format!("is renamed{on} to `{}`", now.name);
            place.push(
                Class::Breaking,
                Some("tool"),
                what,
                Some(Json::from(was.name.as_str())),
            );
        }
        if was.dialect != now.dialect {
            let what = format!("is declared in {}{on}", now.dialect);
            place.push(
                Class::NeedsReview,
                Some("tool"),
                what,
                Some(Json::from(was.dialect.as_str())),
            );
            continue;
        }
        if was.hints != now.hints && (was.hints != old.hints || now.hints != new.hints) {
            hints(&was.hints, &now.hints, &on, place);
        }
        published(old, new, was, now, canonical, &on, place);
    }
    for adapter in new
        .adapters
        .keys()
        .filter(|a| !old.adapters.contains_key(*a))
    {
        let what = format!("is now served on `{adapter}`");
        place.push(Class::NeedsReview, Some("tool"), what, None);
    }
}

/// The input schema an adapter publishes, where it is not the canonical one: its changes that
/// the canonical schema's do not already say.
fn published(
    old: &LockedTool,
    new: &LockedTool,
    was: &LockedAdapter,
    now: &LockedAdapter,
    canonical: &[Change],
    on: &str,
    place: &mut Place<'_>,
) {
    if was.input.is_none() && now.input.is_none() {
        return;
    }
    let (a, b) = (
        was.input.as_ref().unwrap_or(&old.input),
        now.input.as_ref().unwrap_or(&new.input),
    );
    for change in schema::diff(a, b, Side::Input) {
        let said = canonical
            .iter()
            .any(|c| c.path == change.path && c.class == change.class);
        if !said {
            place.change(Side::Input, &change, on);
        }
    }
}

/// The hints that weaken what a client was told: read-only or idempotent lost, destructive
/// or open-world gained; any other change is compatible.
fn hints(old: &[String], new: &[String], on: &str, place: &mut Place<'_>) {
    let has = |set: &[String], hint: &str| set.iter().any(|h| h == hint);
    let locked = Some(Json::from(old.to_vec()));
    let mut weakened = false;
    for hint in [READ_ONLY, IDEMPOTENT] {
        if has(old, hint) && !has(new, hint) {
            let what = format!("is no longer `{hint}`{on}");
            place.push(Class::NeedsReview, Some("hints"), what, locked.clone());
            weakened = true;
        }
    }
    for hint in [DESTRUCTIVE, OPEN_WORLD] {
        if !has(old, hint) && has(new, hint) {
            let what = format!("became `{hint}`{on}");
            place.push(Class::NeedsReview, Some("hints"), what, locked.clone());
            weakened = true;
        }
    }
    if !weakened && old != new {
        let what = format!("has other hints{on}: {}", new.join(", "));
        place.push(Class::Compatible, Some("hints"), what, locked);
    }
}

/// Error codes or guards: one removed is breaking, one added `added`, a new text compatible.
fn codes(
    old: &BTreeMap<String, String>,
    new: &BTreeMap<String, String>,
    kind: &str,
    added: Class,
    place: &mut Place<'_>,
) {
    let key = if kind == "guard" { "guards" } else { "errors" };
    for (code, text) in old {
        match new.get(code) {
            None => {
                let what = format!("no longer has the {kind} `{code}`");
                place.push(
                    Class::Breaking,
                    Some(key),
                    what,
                    Some(Json::from(text.as_str())),
                );
            }
            Some(now) if now != text => {
                let what = format!("has a new text for the {kind} `{code}`");
                place.push(
                    Class::Compatible,
                    Some(key),
                    what,
                    Some(Json::from(text.as_str())),
                );
            }
            Some(_) => {}
        }
    }
    for code in new.keys().filter(|c| !old.contains_key(*c)) {
        let what = format!("has the new {kind} `{code}`");
        place.push(added, Some(key), what, None);
    }
}

/// The longest a locked value is quoted.
const MAX_LOCKED: usize = 160;

/// Where a tool's findings are placed: in its spec, at the key or field they are about.
struct Place<'a> {
    project: &'a Project,
    tool: &'a Tool,
    found: Vec<Finding>,
    /// Each finding once (a change seen in the canonical schema and a dialect's).
    said: BTreeSet<(Class, String)>,
}

impl<'a> Place<'a> {
    fn new(project: &'a Project, tool: &'a Tool) -> Self {
        Place {
            project,
            tool,
            found: Vec::new(),
            said: BTreeSet::new(),
        }
    }

    /// A finding at the spec's top-level `key` (the file's start without one).
    fn push(&mut self, class: Class, key: Option<&str>, what: String, locked: Option<Json>) {
        let at = key.and_then(|k| self.key(k));
        self.add(class, at, what, locked.as_ref());
    }

    /// A finding at `at` (the file's start without it), unless it was said already.
    fn add(&mut self, class: Class, at: Option<Span>, what: String, locked: Option<&Json>) {
        if !self.said.insert((class, what.clone())) {
            return;
        }
        let (line, col) = at.map_or((1, 1), |span| (span.start.line, span.start.col));
        self.found.push(Finding {
            class,
            tool: self.tool.name().to_owned(),
            file: self.tool.spec.file.clone(),
            line,
            col,
            span: at,
            what,
            locked: locked.map(|v| shorten(&v.to_string())),
            raised: None,
        });
    }

    /// A schema change, at the field it is about (or the nearest one the spec writes).
    fn change(&mut self, side: Side, change: &Change, on: &str) {
        let (key, fields) = match side {
            Side::Input => ("expects", &self.tool.spec.expects),
            Side::Output => ("exposes", &self.tool.spec.exposes),
        };
        let at = field(fields, &change.path).or_else(|| self.key(key));
        let place = match (change.path.is_empty(), side) {
            (true, Side::Input) => "its input".to_owned(),
            (true, Side::Output) => "its output".to_owned(),
            (false, Side::Input) => format!("input `{}`", dotted(&change.path)),
            (false, Side::Output) => format!("output `{}`", dotted(&change.path)),
        };
        let what = format!("{place}{on}: {}", change.what);
        self.add(change.class, at, what, change.locked.as_ref());
    }

    /// Where the spec's top-level `key` is written.
    fn key(&self, key: &str) -> Option<Span> {
        let text = self.project.sources().get(&self.tool.spec.file)?;
        let mut offset = 0;
        for (index, line) in text.split_inclusive('\n').enumerate() {
            if line.strip_prefix(key).is_some_and(|l| l.starts_with(':')) {
                let at = |col: usize| Pos {
                    line: index as u32 + 1,
                    col: col as u32 + 1,
                    offset: offset + col,
                };
                return Some(Span {
                    start: at(0),
                    end: at(key.len()),
                });
            }
            offset += line.len();
        }
        None
    }

    /// The findings; a breaking one with the versions, when the spec raised its own.
    fn finish(mut self, raised: Option<(u32, u32)>) -> Vec<Finding> {
        for finding in &mut self.found {
            if finding.class == Class::Breaking {
                finding.raised = raised;
            }
        }
        self.found
    }
}

/// Where the field at `path` below `fields` is written, or the deepest one on the way.
fn field(fields: &[Field], path: &[String]) -> Option<Span> {
    let (first, rest) = path.split_first()?;
    let found = fields.iter().find(|f| &f.name == first)?;
    let here = found.span;
    let deeper = match (&found.ty, rest.split_first()) {
        (FieldType::Object(inner), Some(_)) => field(inner, rest),
        (FieldType::Array(item) | FieldType::Map(item), Some((step, after)))
            if step == "[]" || step == "*" =>
        {
            match &item.ty {
                FieldType::Object(inner) => field(inner, after),
                _ => None,
            }
        }
        _ => None,
    };
    Some(deeper.unwrap_or(here))
}

/// `order.lines[].sku`.
fn dotted(path: &[String]) -> String {
    let mut out = String::new();
    for step in path {
        if step == "[]" {
            out.push_str("[]");
        } else if step == "*" {
            out.push_str("{}");
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(step);
        }
    }
    out
}

fn shorten(text: &str) -> String {
    match text.char_indices().nth(MAX_LOCKED) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}
