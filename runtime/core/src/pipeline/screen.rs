//! Stage: screening, coercion and validation. The arguments as sent become the validated JSON
//! the later stages read, or the user-facing argument errors: a model-sent `ambient_context`
//! is dropped; a query tool's paging arguments are taken first (see `query::paging`); one walk
//! screens depth, size and undeclared keys and coerces wire values (against what the call's
//! adapter shows of a query tool); the canonical schema is checked. Every error is reported,
//! sorted by pointer, at most `limits.max_errors`; a schema whose validator does not compile is
//! the tool's failure, not the caller's.

use serde_json::{Map, Value};

use crate::call::options::{Rules, UndeclaredKeys};
use crate::model::descriptor::Descriptor;
use crate::model::failure::ToolResult;
use crate::model::report::{self, Errors, FieldError, json_kind};
use crate::pipeline::checks::plan::TopLevel;
use crate::pipeline::compiled::Compiled;
use crate::query::paging;

/// Why arguments were not passed on.
pub(crate) enum Refused {
    /// What is wrong with them, for the caller.
    Arguments(Errors),
    /// The tool's input schema does not compile (for the developer; boxed, as it is rare).
    Schema(Box<ToolResult>),
}

/// `args` screened, coerced and validated for a call of `tool` through `adapter`.
pub(crate) fn screen(
    tool: &Descriptor,
    compiled: &Compiled,
    args: Value,
    adapter: Option<&str>,
    rules: &Rules,
) -> Result<Value, Refused> {
    let view = adapter.and_then(|a| tool.view(a));
    let mut map = match args {
        Value::Object(map) => map,
        Value::Null => Map::new(),
        other => {
            let kind = json_kind(&other);
            let message = format!("arguments must be a JSON object, not {kind}");
            return Err(Refused::Arguments(Errors::one("/", message)));
        }
    };
    // Looked for before it is removed: most calls send none, and a scan of a call's few keys
    // costs less than hashing one (the order of the others is kept).
    if map.keys().any(|key| key == "ambient_context") {
        map.shift_remove("ambient_context");
    }
    // Reported with the schema's errors, below.
    let paging = match &tool.query {
        Some(decl) => paging::normalize(&mut map, decl, view),
        None => Vec::new(),
    };
    let mut value = Value::Object(map);
    let top = match rules.undeclared {
        UndeclaredKeys::Reject => TopLevel::Reject,
        UndeclaredKeys::Drop => TopLevel::Drop,
    };
    let plan = view
        .and_then(|_| compiled.views.iter().find(|(a, _)| Some(&**a) == adapter))
        .map_or(&compiled.plan, |(_, plan)| plan);
    let screened = plan.screen(&mut value, &rules.limits, &compiled.sensitive_input, top);
    if screened.refused {
        return Err(Refused::Arguments(screened.report.finish()));
    }
    // Undeclared keys (removed by screening) are reported with every other error.
    let mut errors = screened.report.finish();
    errors.list.extend(paging.into_iter().map(|e| FieldError {
        field: format!("/{}", e.key),
        message: e.message,
    }));
    let checked = compiled
        .input
        .errors(&value, &rules.limits, &compiled.sensitive_input)
        .map_err(|e| {
            let why = format!("the input schema of `{}` does not compile: {e}", tool.name);
            Refused::Schema(Box::new(ToolResult::internal(tool, why)))
        })?;
    if errors.is_empty() && checked.is_empty() {
        return Ok(value);
    }
    errors.list.extend(checked.list);
    errors.more += checked.more;
    report::sort(&mut errors.list);
    let max = rules.limits.max_errors.max(1);
    if errors.list.len() > max {
        errors.more += errors.list.len() - max;
        errors.list.truncate(max);
    }
    Err(Refused::Arguments(errors))
}
