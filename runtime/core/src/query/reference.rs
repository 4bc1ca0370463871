//! `ref` fields: before the guards and the handler, each key the model sent is replaced in
//! the arguments by the record it names, loaded within the field's scope, so the typed input
//! holds records. A missing record and one outside the caller's scope fail alike, as
//! `not_found`.

use serde_json::Value;

use crate::model::ambient::AmbientContext;
use crate::model::descriptor::Descriptor;
use crate::storage::{Storage, StorageError};

/// Why a `ref` field did not resolve.
#[derive(Debug)]
pub(crate) enum Unresolved<'a> {
    /// No record the caller may see has the key: the model's mistake.
    NotFound {
        /// The field.
        field: &'a str,
    },
    /// The developer's (no database, a missing ambient value, a failing query), or the
    /// database's (unreachable).
    Failed(StorageError),
}

/// Replaces each `ref` field's key in `args` (validated arguments) by its record.
pub(crate) async fn resolve<'a>(
    tool: &'a Descriptor,
    args: &mut Value,
    ambient: &AmbientContext,
    storage: Option<&dyn Storage>,
) -> Result<(), Unresolved<'a>> {
    if tool.refs.is_empty() {
        return Ok(());
    }
    let storage = storage.ok_or_else(|| {
        Unresolved::Failed(StorageError::invalid(format!(
            "`{}` has `ref` fields but its registry has no database (`RegistryBuilder::database`)",
            tool.name
        )))
    })?;
    for reference in tool.refs.iter() {
        let Some(key) = args
            .get(reference.field.as_ref())
            .filter(|k| !k.is_null())
            .cloned()
        else {
            continue;
        };
        let record = storage
            .load_record(reference, &key, ambient)
            .await
            .map_err(|e| Unresolved::Failed(e.context(&format!("loading `{}`", reference.field))))?
            .ok_or(Unresolved::NotFound {
                field: &reference.field,
            })?;
        if let Some(slot) = args.get_mut(reference.field.as_ref()) {
            *slot = record;
        }
    }
    Ok(())
}
