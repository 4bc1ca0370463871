//! The description models read: the spec's own, then an action's preconditions, what it asks
//! its user, and its error codes, or a query tool's filters, sorts and page size; last, a cap
//! on its answers other than the default one.

use toolspec_vocab::codes;
use toolspec_vocab::query::FilterOp;

use crate::spec::ToolSpec;
use crate::spec::query::QuerySpec;

/// The tool description models see: the spec's description, then for an action the
/// preconditions and the error codes a call can fail with (guards first, then the declared
/// codes, then `not_found` when a `ref` field may answer it undeclared), for a query tool
/// what [`query_description`] adds for every filter and sort.
pub fn compose_description(spec: &ToolSpec) -> String {
    compose_description_from(spec, &spec.description)
}

/// [`compose_description`] with `lead` in place of the spec's own description (an adapter's
/// `description:`).
pub fn compose_description_from(spec: &ToolSpec, lead: &str) -> String {
    let text = match &spec.query {
        Some(query) => query_description(lead, query, |_| true, |_| true),
        None => action_description(spec, lead),
    };
    with_cap(spec, text)
}

/// `text` followed by what the tool's result cap does, when it is not the default one (a
/// safety net far above what a model reads is not worth its words).
pub fn with_cap(spec: &ToolSpec, mut text: String) -> String {
    use toolspec_vocab::result_cap::{ResultCap, description_sentence};
    if let Some(cap) = spec.result_cap.filter(|cap| *cap != ResultCap::DEFAULT) {
        text.push('\n');
        text.push_str(&description_sentence(&cap));
    }
    text
}

/// An action's description: `lead`, its preconditions, what it asks, how it is confirmed, its
/// errors.
fn action_description(spec: &ToolSpec, lead: &str) -> String {
    let mut text = lead.to_owned();
    if !spec.guards.is_empty() {
        let preconditions: Vec<String> = spec
            .guards
            .iter()
            .map(|g| sentence(&g.description))
            .collect();
        text.push_str("\nPreconditions: ");
        text.push_str(&preconditions.join(" "));
    }
    // The model learns that the user, not it, answers these (and that a call may wait).
    if !spec.ask.is_empty() {
        let fields: Vec<String> = (spec.ask.iter())
            .flat_map(|form| form.fields.iter().map(|f| format!("`{}`", f.value)))
            .collect();
        text.push_str(&format!(
            "\nThe user is asked for {} when left out.",
            fields.join(", ")
        ));
    }
    if let Some(confirm) = &spec.confirm {
        text.push_str(match confirm.when {
            None => "\nThe user confirms each call before it acts.",
            Some(_) => "\nThe user may have to confirm a call before it acts.",
        });
    }
    let mut codes: Vec<&str> = spec
        .guards
        .iter()
        .map(|g| g.name.value.as_str())
        .chain(spec.errors.iter().map(|e| e.code.value.as_str()))
        .collect();
    // A `ref` field that names no record the caller may see fails the call with `not_found`,
    // declared or not.
    let loads_refs = spec.expects.iter().any(|f| f.reference.is_some());
    if loads_refs && !codes.contains(&codes::NOT_FOUND) {
        codes.push(codes::NOT_FOUND);
    }
    if !codes.is_empty() {
        text.push_str("\nErrors: ");
        text.push_str(&codes.join(", "));
        text.push('.');
    }
    text
}

fn sentence(text: &str) -> String {
    let text = text.trim();
    if text.ends_with(['.', '!', '?']) {
        text.to_owned()
    } else {
        format!("{text}.")
    }
}

/// A query tool's description as a model sees it through an adapter that shows the filters
/// and sorts `filter` and `sort` keep: the spec's description, the filters (with their
/// values when they have `one_of`), the sorts with the default noted, and the page size.
pub fn query_description(
    description: &str,
    query: &QuerySpec,
    filter: impl Fn(&str) -> bool,
    sort: impl Fn(&str) -> bool,
) -> String {
    let mut text = description.to_owned();
    let filters: Vec<String> = query
        .filters
        .iter()
        .filter(|f| filter(&f.name.value))
        .map(|f| {
            let mut about = String::new();
            if f.column != f.name.value || !matches!(f.op, FilterOp::Eq | FilterOp::In) {
                let about_records = f.op.about_records(&f.column, f.ty);
                about = match about_records.strip_prefix("whose ") {
                    Some(about) => about.to_owned(),
                    None => about_records,
                };
            }
            if !f.one_of.is_empty() {
                let values: Vec<String> = f
                    .one_of
                    .iter()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                    .collect();
                if !about.is_empty() {
                    about.push_str(": ");
                }
                about.push_str(&values.join(", "));
            }
            if about.is_empty() {
                f.name.value.clone()
            } else {
                format!("{} ({about})", f.name.value)
            }
        })
        .collect();
    if !filters.is_empty() {
        text.push_str("\nFilters: ");
        text.push_str(&filters.join("; "));
        text.push('.');
    }
    let sorts: Vec<&str> = query
        .sorts
        .iter()
        .map(|s| s.value.as_str())
        .filter(|s| sort(s))
        .collect();
    if !sorts.is_empty() {
        text.push_str("\nSorts: ");
        text.push_str(&sorts.join(", "));
        text.push_str(" (`-` first for largest first");
        if let Some(default) = &query.default_sort {
            text.push_str(&format!("; default {}", default.value));
        }
        text.push_str(").");
    }
    text.push_str(&format!(
        "\nReturns at most {} records per page (default {}); `offset` pages on, `total` counts every match.",
        query.limit.max, query.limit.default
    ));
    text
}

#[cfg(test)]
mod tests {
    use crate::source::Source;

    /// The composed description of each tool of a project of `specs` (path, text).
    fn descriptions(specs: &[(&str, &str)]) -> Vec<(String, String)> {
        let sources: Vec<Source> = specs
            .iter()
            .map(|(path, text)| Source {
                path: (*path).to_owned(),
                text: (*text).to_owned(),
            })
            .collect();
        let project = crate::project::build(&sources, &[], "specs");
        assert!(!project.has_errors(), "{:?}", project.diagnostics());
        let mut out: Vec<(String, String)> = (project.tools().iter())
            .map(|t| (t.name().to_owned(), t.description().to_owned()))
            .collect();
        out.sort();
        out
    }

    const CONFIG: &str = "ambient:\n  owner: { type: integer }\n";

    const REF: &str = "  item:
    type: ref
    source: items
    key: id
    record: { id: integer }
    scope: { owner: { ambient: owner } }
";

    #[test]
    fn a_ref_fields_not_found_is_listed_among_the_errors_declared_or_not() {
        let archive = format!(
            "description: Archive an item.\nexpects:\n{REF}guards:\n  unarchived: Not archived yet.\n"
        );
        let rename = format!(
            "description: Rename an item.\nexpects:\n{REF}errors:\n  codes:\n    not_found: No such item.\n    taken: The name is taken.\n"
        );
        let plain = "description: Ping.\nerrors:\n  codes:\n    down: Down.\n";
        let described = descriptions(&[
            ("toolspec.yaml", CONFIG),
            ("items/archive.yaml", &archive),
            ("items/rename.yaml", &rename),
            ("ping.yaml", plain),
        ]);
        assert_eq!(
            described,
            [
                (
                    "items_archive".to_owned(),
                    "Archive an item.\nPreconditions: Not archived yet.\nErrors: unarchived, not_found."
                        .to_owned()
                ),
                (
                    "items_rename".to_owned(),
                    "Rename an item.\nErrors: not_found, taken.".to_owned()
                ),
                ("ping".to_owned(), "Ping.\nErrors: down.".to_owned()),
            ]
        );
    }
}
