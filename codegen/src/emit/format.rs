//! Items built as tokens (the project's own items, typify's shape types, handler stubs),
//! printed by prettyplease.

use proc_macro2::TokenStream;

/// Formats items with prettyplease.
pub fn format_tokens(tokens: TokenStream) -> String {
    match syn::parse2::<syn::File>(tokens) {
        Ok(file) => prettyplease::unparse(&file),
        // Unreachable for a checked project; let the compiler show where it breaks.
        Err(e) => format!("compile_error!({:?});\n", e.to_string()),
    }
}
