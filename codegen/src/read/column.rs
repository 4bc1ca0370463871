//! The words of the database side of the language: column types and SQL names, read by the
//! query reader and by `ambient:` in the project config.

use toolspec_vocab::query::{ColumnType, is_sql_identifier};

use crate::diagnostic::did_you_mean;
use crate::diagnostic::kind::Kind;
use crate::read::reader::Reader;
use crate::read::yaml::Node;
use crate::source::Spanned;

/// A column type (`string`, `integer`, …) for `what` (`record field \`id\``).
pub fn read_column_type(r: &mut Reader<'_>, node: &Node, what: &str) -> Option<ColumnType> {
    let name = r.string(node, &format!("the type of {what}"))?;
    if let Some(ty) = ColumnType::parse(&name) {
        return Some(ty);
    }
    let names = ColumnType::ALL.map(ColumnType::name);
    let help = did_you_mean(&name, names)
        .map(|m| format!("did you mean `{m}`?"))
        .unwrap_or_else(|| format!("a column is one of: {}", names.join(", ")));
    r.report(
        r.error(
            Kind::UnknownName,
            node.span,
            format!("unknown column type `{name}` for {what}"),
        )
        .with_label("not a column type")
        .with_help(help),
    );
    None
}

/// A table, view or column name: letters, digits and underscores; a table or view may be
/// qualified by one schema (`qualified`).
pub fn read_sql_name(
    r: &mut Reader<'_>,
    node: &Node,
    what: &str,
    qualified: bool,
) -> Option<Spanned<String>> {
    let name = r.spanned_string(node, what)?;
    let parts: Vec<&str> = name.value.split('.').collect();
    let fits = parts.len() <= if qualified { 2 } else { 1 };
    if fits && parts.iter().all(|p| is_sql_identifier(p)) {
        return Some(name);
    }
    r.report(
        r.error(
            Kind::InvalidValue,
            node.span,
            format!("{what} `{}` is not a plain SQL name", name.value),
        )
        .with_label("not a SQL name")
        .with_help(if qualified {
            "use letters, digits and underscores (at most 63), optionally after one schema name \
             and a dot, like `sales.orders`"
        } else {
            "use letters, digits and underscores (at most 63), not starting with a digit"
        }),
    );
    None
}
