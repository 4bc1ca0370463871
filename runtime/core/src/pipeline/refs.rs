//! Stage: each `ref` field's key is replaced in the validated arguments by the record it names,
//! loaded within the field's scope (see `query::reference`). A key that names no record the
//! caller may see fails as `not_found`, like a missing one; a database that cannot be reached
//! answers `unavailable`.

use serde_json::Value;

use crate::model::ambient::AmbientContext;
use crate::model::descriptor::Descriptor;
use crate::model::failure::ToolResult;
use crate::model::report::FieldError;
use crate::pipeline::answers::not_found;
use crate::query::reference::{self, Unresolved};
use crate::storage::Storage;

/// Why the records could not be loaded.
pub(crate) enum Missing {
    /// A field's key names no record: the call's answer, and the field's error for an
    /// explanation.
    NotFound(ToolResult, FieldError),
    /// The database failed.
    Failed(ToolResult),
}

/// Loads `tool`'s `ref` records into `value`.
pub(crate) async fn load(
    tool: &Descriptor,
    value: &mut Value,
    ambient: &AmbientContext,
    storage: Option<&dyn Storage>,
) -> Result<(), Missing> {
    match reference::resolve(tool, value, ambient, storage).await {
        Ok(()) => Ok(()),
        Err(Unresolved::NotFound { field }) => {
            let failed = not_found(tool, field);
            let message = failed
                .error()
                .map(|e| e.message.clone())
                .unwrap_or_default();
            let error = FieldError {
                field: format!("/{field}"),
                message,
            };
            Err(Missing::NotFound(failed, error))
        }
        Err(Unresolved::Failed(e)) => Err(Missing::Failed(e.answer(tool))),
    }
}
