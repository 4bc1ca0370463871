//! The words of query tools (`kind: query`): the types a column can have, the filter
//! operators and which types each accepts, and how a sort is spelled.
//!
//! The compiler checks specs with these rules; the runtime builds its SQL and decodes its rows
//! with the same ones.

use std::fmt;

/// The type of a column a query tool reads: a record field, a filter or a scope binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub enum ColumnType {
    /// Text.
    String,
    /// A 64-bit signed integer.
    Integer,
    /// A 64-bit float.
    Number,
    /// A boolean (SQLite stores 0 or 1).
    Boolean,
    /// A UUID (text in SQLite, `uuid` in PostgreSQL).
    Uuid,
    /// An ISO 8601 calendar date (text in SQLite, `date` in PostgreSQL).
    Date,
    /// An RFC 3339 timestamp (text in SQLite, `timestamptz` in PostgreSQL).
    DateTime,
}

impl ColumnType {
    /// Every column type, in the order help messages list them.
    pub const ALL: [ColumnType; 7] = [
        Self::String,
        Self::Integer,
        Self::Number,
        Self::Boolean,
        Self::Uuid,
        Self::Date,
        Self::DateTime,
    ];

    /// The type's spelling in a spec (`datetime`).
    pub const fn name(self) -> &'static str {
        match self {
            Self::String => "string",
            Self::Integer => "integer",
            Self::Number => "number",
            Self::Boolean => "boolean",
            Self::Uuid => "uuid",
            Self::Date => "date",
            Self::DateTime => "datetime",
        }
    }

    /// The type spelled `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Whether values of this type have an order (`lt`, `gt`… and sorting make sense).
    pub const fn ordered(self) -> bool {
        !matches!(self, Self::Boolean | Self::Uuid)
    }
}

impl fmt::Display for ColumnType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a filter compares its column with the model's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub enum FilterOp {
    /// `column = value`
    Eq,
    /// `column <> value`
    Ne,
    /// `column < value`
    Lt,
    /// `column <= value`
    Lte,
    /// `column > value`
    Gt,
    /// `column >= value`
    Gte,
    /// The column contains the value as a substring (`%`, `_` and `\` match themselves).
    Contains,
    /// The column starts with the value (`%`, `_` and `\` match themselves).
    StartsWith,
    /// The column equals one of a list of values.
    In,
}

impl FilterOp {
    /// Every operator, in the order help messages list them.
    pub const ALL: [FilterOp; 9] = [
        Self::Eq,
        Self::Ne,
        Self::Lt,
        Self::Lte,
        Self::Gt,
        Self::Gte,
        Self::Contains,
        Self::StartsWith,
        Self::In,
    ];

    /// The operator's spelling in a spec (`starts_with`).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Eq => "eq",
            Self::Ne => "ne",
            Self::Lt => "lt",
            Self::Lte => "lte",
            Self::Gt => "gt",
            Self::Gte => "gte",
            Self::Contains => "contains",
            Self::StartsWith => "starts_with",
            Self::In => "in",
        }
    }

    /// The operator spelled `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Whether the operator can compare a column of type `ty`: text matching needs strings,
    /// ordering needs an ordered type.
    pub const fn accepts(self, ty: ColumnType) -> bool {
        match self {
            Self::Eq | Self::Ne | Self::In => true,
            Self::Lt | Self::Lte | Self::Gt | Self::Gte => ty.ordered(),
            Self::Contains | Self::StartsWith => matches!(ty, ColumnType::String),
        }
    }

    /// Which types the operator accepts, for messages (`string`).
    pub fn accepted(self) -> Vec<&'static str> {
        ColumnType::ALL
            .into_iter()
            .filter(|t| self.accepts(*t))
            .map(ColumnType::name)
            .collect()
    }

    /// What the operator says of a column of type `ty`, for descriptions: `is at least`, or
    /// for dates and times `is on or after` (`is at or after`).
    pub const fn phrase(self, ty: ColumnType) -> &'static str {
        match (self, ty) {
            (Self::Lt, ColumnType::Date | ColumnType::DateTime) => "is before",
            (Self::Lte, ColumnType::Date) => "is on or before",
            (Self::Lte, ColumnType::DateTime) => "is at or before",
            (Self::Gt, ColumnType::Date | ColumnType::DateTime) => "is after",
            (Self::Gte, ColumnType::Date) => "is on or after",
            (Self::Gte, ColumnType::DateTime) => "is at or after",
            (Self::Eq, _) => "is",
            (Self::Ne, _) => "is not",
            (Self::Lt, _) => "is less than",
            (Self::Lte, _) => "is at most",
            (Self::Gt, _) => "is greater than",
            (Self::Gte, _) => "is at least",
            (Self::Contains, _) => "contains",
            (Self::StartsWith, _) => "starts with",
            (Self::In, _) => "is one of",
        }
    }

    /// What a filter with the operator says of the records it keeps, for descriptions:
    /// `whose total is at least`; a date or time named for an event (`placed_at`, `due_on`)
    /// reads as the event: `placed at or after`, `due before`.
    pub fn about_records(self, column: &str, ty: ColumnType) -> String {
        let phrase = self.phrase(ty);
        let event = matches!(ty, ColumnType::Date | ColumnType::DateTime)
            .then(|| {
                column
                    .strip_suffix("_at")
                    .or_else(|| column.strip_suffix("_on"))
            })
            .flatten()
            .filter(|stem| !stem.is_empty());
        match (event, phrase.strip_prefix("is ")) {
            (Some(stem), Some(relation)) if !matches!(self, Self::Eq | Self::Ne | Self::In) => {
                format!("{} {relation}", stem.replace('_', " "))
            }
            _ => format!("whose {column} {phrase}"),
        }
    }
}

impl fmt::Display for FilterOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A sort: a column and a direction, spelled `column` (ascending) or `-column` (descending).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sort<'a> {
    /// The sort's name (a record field).
    pub column: &'a str,
    /// Largest first.
    pub descending: bool,
}

impl<'a> Sort<'a> {
    /// Reads `created_at` or `-created_at`.
    pub fn parse(text: &'a str) -> Self {
        match text.strip_prefix('-') {
            Some(column) => Self {
                column,
                descending: true,
            },
            None => Self {
                column: text,
                descending: false,
            },
        }
    }
}

impl fmt::Display for Sort<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.descending {
            f.write_str("-")?;
        }
        f.write_str(self.column)
    }
}

/// The page size when a query tool declares no `limit`.
pub const DEFAULT_LIMIT: u32 = 50;

/// The largest `limit.max` a spec may declare: a page a model can still read.
pub const MAX_LIMIT: u32 = 1_000;

/// The model-facing keys every query tool takes beside its filters.
pub const SORT: &str = "sort";
/// The page size key.
pub const LIMIT: &str = "limit";
/// The page offset key.
pub const OFFSET: &str = "offset";

/// The keys of a query tool's result.
pub const RECORDS: &str = "records";
/// The number of matching rows before offset and limit.
pub const TOTAL: &str = "total";

/// Whether `name` can name a table, view or column: ASCII letters, digits and underscores,
/// not starting with a digit, at most 63 bytes (PostgreSQL's identifier limit). A source may
/// be qualified by one schema (`sales.orders`).
pub fn is_sql_identifier(name: &str) -> bool {
    (1..=63).contains(&name.len())
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_operators_take_strings_and_order_needs_an_order() {
        assert!(FilterOp::Contains.accepts(ColumnType::String));
        assert!(!FilterOp::Contains.accepts(ColumnType::Integer));
        assert!(!FilterOp::Gt.accepts(ColumnType::Boolean));
        assert!(FilterOp::Gte.accepts(ColumnType::DateTime));
        assert!(FilterOp::In.accepts(ColumnType::Uuid));
        assert_eq!(FilterOp::StartsWith.accepted(), ["string"]);
    }

    #[test]
    fn descriptions_read_dates_as_events() {
        let about = |op: FilterOp, column, ty| op.about_records(column, ty);
        assert_eq!(
            about(FilterOp::Lt, "due_on", ColumnType::Date),
            "due before"
        );
        assert_eq!(
            about(FilterOp::Gte, "placed_at", ColumnType::DateTime),
            "placed at or after"
        );
        assert_eq!(
            about(FilterOp::Lte, "deadline", ColumnType::Date),
            "whose deadline is on or before"
        );
        assert_eq!(
            about(FilterOp::Eq, "due_on", ColumnType::Date),
            "whose due_on is"
        );
        assert_eq!(
            about(FilterOp::Gte, "total", ColumnType::Integer),
            "whose total is at least"
        );
        assert_eq!(
            about(FilterOp::Gt, "created_at", ColumnType::String),
            "whose created_at is greater than"
        );
    }

    #[test]
    fn spellings_round_trip() {
        for op in FilterOp::ALL {
            assert_eq!(FilterOp::parse(op.name()), Some(op));
        }
        for ty in ColumnType::ALL {
            assert_eq!(ColumnType::parse(ty.name()), Some(ty));
        }
        let sort = Sort::parse("-created_at");
        assert!(sort.descending);
        assert_eq!(sort.column, "created_at");
        assert_eq!(sort.to_string(), "-created_at");
    }

    #[test]
    fn identifiers_are_plain_words() {
        assert!(is_sql_identifier("orders"));
        assert!(is_sql_identifier("_x9"));
        assert!(!is_sql_identifier("9x"));
        assert!(!is_sql_identifier("a b"));
        assert!(!is_sql_identifier("a\"b"));
        assert!(!is_sql_identifier(""));
        assert!(!is_sql_identifier(&"a".repeat(64)));
    }
}
