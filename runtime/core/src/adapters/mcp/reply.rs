//! A call's result as MCP answers it, for a direct call and for a task's inlined result alike.

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, MetaObject};
use serde_json::json;
use toolspec_vocab::settings::PresentAs;

use crate::model::failure::ToolResult;
use crate::model::truncation;

/// `_meta` key of a failed call's result carrying the error as every adapter reports it:
/// `{"error": code, "message": …, "details": …}` (never the developer-facing exception).
#[doc(hidden)]
pub const META_ERROR: &str = "toolspec/error";

/// `value` as compact JSON text (a `Value` always serializes: its keys are text).
fn json_text(value: &serde_json::Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// A call's result as MCP answers it: the text (the message, or the structured content as
/// JSON) with the structured content — and, for an answer cut to fit its cap, the notice's
/// sentence as a second text block and the notice itself in `_meta`
/// ([`truncation::META_KEY`]); an error as the model's text with the error itself in `_meta`.
pub(super) fn reply(result: ToolResult, present_as: PresentAs) -> CallToolResult {
    match result.outcome {
        Ok(value) => {
            let text = match present_as {
                PresentAs::Message => result.message,
                // serde_json's serializer, not `Display` (the same text, without the formatter).
                PresentAs::Structured => json_text(&value),
            };
            let mut content = vec![ContentBlock::text(text)];
            if let Some(notice) = &result.truncated {
                content.push(ContentBlock::text(notice.sentence()));
            }
            let mut reply = CallToolResult::success(content);
            reply.structured_content = Some(value);
            if let Some(notice) = result.truncated {
                let mut meta = JsonObject::new();
                meta.insert(truncation::META_KEY.into(), json!(notice));
                reply.meta = Some(MetaObject(meta));
            }
            reply
        }
        Err(error) => {
            // The text is for the model; `_meta` lets a client tell one error from another
            // (`unknown_sku` from `mixed_currencies`) and read its details.
            let mut meta = JsonObject::new();
            meta.insert(META_ERROR.into(), json!(error));
            let mut reply = CallToolResult::error(vec![ContentBlock::text(error.message)]);
            reply.meta = Some(MetaObject(meta));
            reply
        }
    }
}
