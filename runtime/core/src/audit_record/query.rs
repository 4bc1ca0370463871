//! Reading the trail: which records ([`AuditQuery`]: by tool, caller, outcome and time, paged,
//! newest first) and a page of them ([`AuditPage`]).

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::audit_record::record::{AuditRecord, AuditState, ParseAuditError};

/// The outcome records must have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuditOutcome {
    /// Succeeded.
    Ok,
    /// Failed, with any code.
    Failed,
    /// Failed with this code.
    Code(String),
}

impl std::str::FromStr for AuditOutcome {
    type Err = ParseAuditError;

    /// `ok`, `failed`, or an error code.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "" => Err(ParseAuditError::EmptyOutcome),
            "ok" => Ok(Self::Ok),
            "failed" => Ok(Self::Failed),
            code => Ok(Self::Code(code.to_owned())),
        }
    }
}

/// Which records to read. Every criterion is optional; the page is newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditQuery {
    /// Only this tool's calls (its canonical name).
    pub tool: Option<String>,
    /// Only this caller's calls.
    pub caller: Option<String>,
    /// Only calls with this outcome (which only a `finished` record has).
    pub outcome: Option<AuditOutcome>,
    /// Only records in this state: `interrupted` ones are the calls a dead process (or a
    /// dropped request) left without an outcome.
    pub state: Option<AuditState>,
    /// Only calls started at or after this time.
    pub since: Option<DateTime<Utc>>,
    /// Only calls started before this time.
    pub until: Option<DateTime<Utc>>,
    /// At most this many records (at most [`AuditQuery::MAX_LIMIT`]).
    pub limit: u64,
    /// After skipping this many.
    pub offset: u64,
}

impl AuditQuery {
    /// The most records one page holds.
    pub const MAX_LIMIT: u64 = 10_000;
}

impl Default for AuditQuery {
    /// Every record, 50 at a time.
    fn default() -> Self {
        Self {
            tool: None,
            caller: None,
            outcome: None,
            state: None,
            since: None,
            until: None,
            limit: 50,
            offset: 0,
        }
    }
}

/// A page of records.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditPage {
    /// The records, newest first.
    pub records: Vec<AuditRecord>,
    /// How many records match in all.
    pub total: u64,
    /// The page size used.
    pub limit: u64,
    /// The records skipped.
    pub offset: u64,
}
