//! Data written into Rust by walking the value: databake's `Bake` (derived on the descriptor
//! model), its tokens then put in the generated code's style — the runtime's types named
//! through `::toolspec::__private`, `Cow`, `Some` and `None` fully qualified, and text holding
//! quotes (JSON) as raw strings.

use databake::{Bake, CrateEnv};
use proc_macro2::{Group, Literal, TokenStream, TokenTree};
use quote::quote;

/// `value` as a Rust expression in the generated code's style.
pub fn bake(value: &impl Bake) -> TokenStream {
    tidy(baked(value))
}

/// `value` as databake writes it, before [`tidy`].
pub fn baked(value: &impl Bake) -> TokenStream {
    value.bake(&CrateEnv::default())
}

/// Rewrites databake's paths and literals (see the module's doc), at every depth.
pub fn tidy(tokens: TokenStream) -> TokenStream {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = TokenStream::new();
    let mut i = 0;
    while i < tokens.len() {
        // After `::`, an ident is inside a path: left alone.
        let after_path = i >= 2 && is_punct(&tokens[i - 2], ':') && is_punct(&tokens[i - 1], ':');
        match &tokens[i] {
            // `alloc::borrow::Cow` → `::std::borrow::Cow`
            TokenTree::Ident(ident) if ident == "alloc" && !after_path => {
                out.extend(quote! { ::std });
            }
            // `toolspec::__private::X` → `::toolspec::__private::X`
            TokenTree::Ident(ident) if ident == "toolspec" && !after_path => {
                out.extend(quote! { ::toolspec });
            }
            TokenTree::Ident(ident) if ident == "Some" && !after_path => {
                out.extend(quote! { ::core::option::Option::Some });
            }
            TokenTree::Ident(ident) if ident == "None" && !after_path => {
                out.extend(quote! { ::core::option::Option::None });
            }
            TokenTree::Literal(literal) => out.extend([literal_in_style(literal)]),
            TokenTree::Group(group) => {
                let mut inner = Group::new(group.delimiter(), tidy(group.stream()));
                inner.set_span(group.span());
                out.extend([TokenTree::Group(inner)]);
            }
            other => out.extend([other.clone()]),
        }
        i += 1;
    }
    out
}

/// A string literal holding quotes as a raw string; any other literal as it is.
pub fn literal_in_style(literal: &Literal) -> TokenTree {
    let text = literal.to_string();
    if text.starts_with('"')
        && text.contains("\\\"")
        && let syn::Lit::Str(parsed) = syn::Lit::new(literal.clone())
    {
        return TokenTree::Literal(raw_string(&parsed.value()));
    }
    TokenTree::Literal(literal.clone())
}

fn is_punct(token: &TokenTree, c: char) -> bool {
    matches!(token, TokenTree::Punct(p) if p.as_char() == c)
}

/// A raw string literal (`r#"…"#`), readable for JSON, with enough `#`s for its content.
pub fn raw_string(text: &str) -> Literal {
    let mut hashes = String::from("#");
    while text.contains(&format!("\"{hashes}")) {
        hashes.push('#');
    }
    format!("r{hashes}\"{text}\"{hashes}")
        .parse()
        .unwrap_or_else(|_| Literal::string(text))
}
