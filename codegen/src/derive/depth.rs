//! Every schema the build emits nests at most [`MAX_DEPTH`] levels: where one would not, a
//! diagnostic at the field where it crosses the limit.

use std::collections::BTreeSet;

use serde_json::Value as Json;

use crate::derive::dialect::locate::{Location, locate_in};
use crate::derive::schema;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::kind::Kind;
use crate::read::reader::Reader;
use crate::schema_tree::{MAX_DEPTH, Seg, too_deep};
use crate::spec::{ToolSpec, Types};

/// The first named type whose schema (the named types it refers to written out) nests deeper
/// than [`MAX_DEPTH`], reported at the field where it crosses the limit; the types on the way
/// there, which are too deep too.
pub fn check_type_depths(types: &Types, diagnostics: &mut Vec<Diagnostic>) -> BTreeSet<String> {
    // Every definition in one schema: each is measured once, whichever refers to it.
    let defs: serde_json::Map<String, Json> = types
        .iter()
        .map(|(name, named)| (name.clone(), schema::field_schema(&named.field)))
        .collect();
    let all = serde_json::json!({ "$defs": defs });
    let Some(path) = too_deep(&all, MAX_DEPTH) else {
        return BTreeSet::new();
    };
    let Some(Seg::Def(name)) = path.first() else {
        return BTreeSet::new();
    };
    let at = locate_in("", &[], types, &path);
    diagnostics.push(depth_error(&at, &format!("the schema of type `{name}`")));
    // The types the path goes through are too deep as well: not reported again.
    path.into_iter()
        .filter_map(|s| match s {
            Seg::Def(name) => Some(name),
            _ => None,
        })
        .collect()
}

/// A tool's schemas (`(schema, "input")`…) must nest at most [`MAX_DEPTH`] levels; reports
/// where one does not (unless inside a named type already reported).
pub fn check_depths(
    r: &mut Reader<'_>,
    spec: &ToolSpec,
    types: &Types,
    too_deep_types: &BTreeSet<String>,
    schemas: [(&Json, &str); 2],
) {
    for ((schema, side), roots) in schemas.into_iter().zip([&spec.expects, &spec.exposes]) {
        let Some(path) = too_deep(schema, MAX_DEPTH) else {
            continue;
        };
        if path
            .iter()
            .any(|s| matches!(s, Seg::Def(n) if too_deep_types.contains(n)))
        {
            continue;
        }
        let at = locate_in(&spec.file, roots, types, &path);
        let mut d = depth_error(&at, &format!("the tool's {side} schema"));
        if at.file != spec.file {
            d = d.with_note(format!("in the {side} of `{}`", spec.file));
        }
        r.report(d);
    }
}

/// The end of a long field path, which says where: `…level_30.level_31`; whole segments when
/// it has them.
fn path_end(display: &str) -> String {
    const ROOM: usize = 40;
    if display.chars().count() <= ROOM {
        return display.to_owned();
    }
    let mut tail = String::new();
    for segment in display.rsplit('.') {
        let longer = if tail.is_empty() {
            segment.to_owned()
        } else {
            format!("{segment}.{tail}")
        };
        if longer.chars().count() >= ROOM {
            break;
        }
        tail = longer;
    }
    if tail.is_empty() {
        let chars: Vec<char> = display.chars().collect();
        tail = chars[chars.len() - (ROOM - 1)..].iter().collect();
    }
    format!("…{tail}")
}

fn depth_error(at: &Location, whose: &str) -> Diagnostic {
    let subject = if at.display.is_empty() {
        "the tool".to_owned()
    } else {
        format!("`{}`", path_end(&at.display))
    };
    let mut d = Diagnostic::error(Kind::TooDeep, at.file.clone(),
        at.span,
        format!("{subject} is nested too deeply: {whose} would be more than {MAX_DEPTH} levels deep"),)
    .with_help(format!(
        "schemas may nest {MAX_DEPTH} levels (an object's field takes two, an array's items, a map's values or a named type one); flatten the structure"
    ));
    if at.span.is_some() {
        d.label = Some(format!("more than {MAX_DEPTH} levels deep here"));
    }
    d
}
