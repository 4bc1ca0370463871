//! Stage: the validated arguments become the tool's typed `Input` (an error names the field
//! by its JSON pointer and quotes a value only in part, never a sensitive one), and the
//! tool's `Ambient` fields are resolved from the trusted context alone (declared keys only;
//! a missing or mistyped one is the developer's error, never shown to the model).

use std::borrow::Borrow;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::model::ambient::AmbientContext;
use crate::model::contract::Contract;
use crate::model::descriptor::{Descriptor, Field};
use crate::model::failure::ToolResult;
use crate::model::limits::Limits;
use crate::model::report::{self, Errors};
use crate::pipeline::compiled::Compiled;
use crate::schema::sensitive::Sensitivity;

/// A call's typed input and resolved ambient fields.
pub(crate) type Decoded<C> = (<C as Contract>::Input, <C as Contract>::Ambient);

/// Why validated arguments did not decode.
pub(crate) enum Decoding {
    /// The typed input refused them: the model's mistake.
    Arguments(Errors),
    /// The ambient fields did not resolve: the developer's.
    Internal(ToolResult),
}

/// Validated arguments → the typed input, and the ambient fields from the trusted context.
pub(crate) fn decode<C: Contract>(
    tool: &Descriptor,
    compiled: &Compiled,
    value: Value,
    ambient: &AmbientContext,
    limits: &Limits,
) -> Result<Decoded<C>, Decoding> {
    let input =
        decode_input(&value, limits, &compiled.sensitive_input).map_err(Decoding::Arguments)?;
    let resolved = resolve_ambient(tool, &compiled.ambient, ambient)
        .map_err(|e| Decoding::Internal(ToolResult::internal(tool, e)))?;
    Ok((input, resolved))
}

/// Decodes the typed input; an error names the field by its JSON pointer, and quotes a value
/// only in part (or not at all, when it is sensitive).
fn decode_input<I: DeserializeOwned>(
    value: &Value,
    limits: &Limits,
    sensitivity: &Sensitivity,
) -> Result<I, Errors> {
    // Tracking the path costs an allocation per key: decode again to find it, on errors only.
    if let Ok(input) = I::deserialize(value) {
        return Ok(input);
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let mut tokens = Vec::new();
        for segment in e.path().iter() {
            use serde_path_to_error::Segment;
            match segment {
                Segment::Seq { index } => tokens.push(index.to_string()),
                Segment::Map { key } | Segment::Enum { variant: key } => tokens.push(key.clone()),
                Segment::Unknown => break,
            }
        }
        let place = report::Place::of(&tokens, limits, sensitivity);
        let (field, hidden) = (place.field, place.hidden);
        let message = report::elide_quotes(&e.into_inner().to_string(), limits.max_quote, hidden);
        Errors::one(field, message)
    })
}

/// The ambient fields a tool declares, from the trusted context only; borrowed, not copied.
/// An error is the developer's: why the context does not fit.
pub(crate) fn resolve_ambient<A: DeserializeOwned>(
    tool: &Descriptor,
    fields: &[impl Borrow<Field>],
    ambient: &AmbientContext,
) -> Result<A, String> {
    let missing = std::cell::Cell::new(None);
    let declared = fields
        .iter()
        .map(Borrow::borrow)
        .filter_map(|field: &Field| {
            let name: &str = &field.name;
            let value = ambient.lookup(field.context_key());
            if value.is_none() && !field.optional && missing.get().is_none() {
                missing.set(Some(field.context_key()));
            }
            value.map(|value| (name, value))
        });
    let resolved = A::deserialize(serde::de::value::MapDeserializer::new(declared));
    // A missing field is reported first, even when another one failed to decode before it.
    let missing = missing.get().or_else(|| {
        resolved.is_err().then(|| {
            (fields.iter().map(Borrow::borrow))
                .find(|f: &&Field| !f.optional && ambient.lookup(f.context_key()).is_none())
                .map(|f| f.context_key())
        })?
    });
    if let Some(name) = missing {
        return Err(format!(
            "the adapter supplied no ambient `{name}`, which `{}` requires",
            tool.name
        ));
    }
    resolved.map_err(|e: serde_json::Error| {
        // The developer sees why, but not a sensitive value.
        let hide = fields.iter().any(|f| f.borrow().sensitive);
        let why = report::elide_quotes(&e.to_string(), Limits::DEFAULT.max_quote, hide);
        format!(
            "the ambient context of `{}` does not resolve: {why}",
            tool.name
        )
    })
}
