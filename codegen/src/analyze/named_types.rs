//! Named types: every one a field names exists, and none contains itself except through a
//! list or a map.

use std::collections::BTreeSet;

use crate::diagnostic::kind::Kind;
use crate::diagnostic::{self, Diagnostic, did_you_mean};
use crate::spec::visit::visit;
use crate::spec::{Field, FieldType, ToolSpec, Types};

/// Every field's named type must exist; named types may not contain themselves except
/// through a list or map.
pub fn check_named_types(types: &Types, specs: &[ToolSpec], diagnostics: &mut Vec<Diagnostic>) {
    let mut known: Vec<&str> = FieldType::BUILTIN.to_vec();
    known.extend(types.keys().map(String::as_str));
    // Suggestions for as many unknown types as are shown: each one compares with every type.
    let mut suggestions = diagnostic::MAX_SHOWN;
    let mut check = |file: &str, field: &Field, diagnostics: &mut Vec<Diagnostic>| {
        visit(field, &mut |f| {
            if let FieldType::Named(name) = &f.ty
                && !types.contains_key(name)
            {
                let suggestion = match suggestions.checked_sub(1) {
                    Some(left) => {
                        suggestions = left;
                        did_you_mean(name, known.iter().copied()).map(|m| format!("`{m}`"))
                    }
                    None => None,
                };
                let help = FieldType::alias(name)
                    .map(|write| format!("toolspec spells it {write}"))
                    .or_else(|| suggestion.map(|m| format!("did you mean {m}?")))
                    .unwrap_or_else(|| {
                        format!(
                            "types are {} or a named type from a `types:` file",
                            FieldType::BUILTIN.join(", ")
                        )
                    });
                diagnostics.push(
                    Diagnostic::error(
                        Kind::UnknownName,
                        file,
                        Some(f.type_span),
                        format!("unknown type `{name}`"),
                    )
                    .with_label("not a known type")
                    .with_help(help),
                );
            }
        });
    };
    for named in types.values() {
        check(&named.file, &named.field, diagnostics);
    }
    for spec in specs {
        for field in spec.expects.iter().chain(&spec.exposes) {
            check(&spec.file, field, diagnostics);
        }
    }
    let recursive = self_containing(types);
    for (name, named) in types.iter().filter(|(n, _)| recursive.contains(n.as_str())) {
        diagnostics.push(
            Diagnostic::error(
                Kind::Recursive,
                &named.file,
                Some(named.field.span),
                format!("type `{name}` contains itself"),
            )
            .with_label("recursive type")
            .with_help("a type may refer to itself only through an `array` or a `map`"),
        );
    }
}

/// The named types that contain themselves other than through an array or a map: those on a
/// cycle of containment (through objects and unions), found as strongly connected components
/// without recursion, however long a chain of types is.
fn self_containing(types: &Types) -> BTreeSet<&str> {
    let names: Vec<&str> = types.keys().map(String::as_str).collect();
    let mut graph = petgraph::graph::DiGraph::<(), ()>::with_capacity(names.len(), names.len());
    let nodes: Vec<_> = names.iter().map(|_| graph.add_node(())).collect();
    for (from, named) in types.values().enumerate() {
        let mut contained = Vec::new();
        contained_types(&named.field, &mut contained);
        for name in contained {
            if let Ok(to) = names.binary_search(&name) {
                graph.add_edge(nodes[from], nodes[to], ());
            }
        }
    }
    petgraph::algo::kosaraju_scc(&graph)
        .into_iter()
        .filter(|scc| scc.len() > 1 || graph.contains_edge(scc[0], scc[0]))
        .flatten()
        .map(|node| names[node.index()])
        .collect()
}

/// The named types a field holds directly: itself, or through objects and unions (not
/// arrays, maps or shapes).
fn contained_types<'a>(field: &'a Field, out: &mut Vec<&'a str>) {
    match &field.ty {
        FieldType::Named(name) => out.push(name),
        FieldType::Object(fields) => fields.iter().for_each(|f| contained_types(f, out)),
        FieldType::AnyOf { variants, .. } => {
            variants.iter().for_each(|v| contained_types(&v.field, out))
        }
        _ => {}
    }
}
