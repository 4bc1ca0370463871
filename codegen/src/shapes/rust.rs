//! typify's output made fit for generated code: paths that depend on `::toolspec` only, serde
//! pointed at its re-export, unused helpers dropped, and names checked.

use std::collections::BTreeSet;

use proc_macro2::{Ident, Punct, Spacing, TokenStream, TokenTree};
use quote::ToTokens;

/// Where generated code finds serde.
const SERDE: &str = "::toolspec::__private::serde";

/// Makes typify's items depend on `::toolspec` only, drops unused default functions (and the
/// conversion error type when unused) and checks the result: a type for each of `roots`, no
/// two types of a name, none with the name of one of the `named` types except their own.
pub(crate) fn post_process(
    tokens: TokenStream,
    roots: &[&str],
    named: &[&str],
) -> Result<String, String> {
    let tokens = rewrite_crate_paths(tokens);
    let mut crates = BTreeSet::new();
    leading_crates(&tokens, &mut crates);
    for krate in crates {
        if matches!(krate.as_str(), "std" | "core" | "alloc" | "toolspec") {
            continue;
        }
        let why = match krate.as_str() {
            "regress" => " (typify checks `patternProperties` keys with it)",
            "chrono" | "uuid" => " (for a `format` toolspec has no type for)",
            _ => "",
        };
        return Err(format!(
            "the generated types would need the `{krate}` crate{why}, and generated code may use only `toolspec`"
        ));
    }
    let mut file: syn::File = syn::parse2(tokens)
        .map_err(|e| format!("typify generated code that does not parse: {e}"))?;
    for item in &mut file.items {
        if let syn::Item::Struct(syn::ItemStruct { attrs, .. })
        | syn::Item::Enum(syn::ItemEnum { attrs, .. }) = item
        {
            add_serde_crate(attrs);
        }
    }
    prune_defaults(&mut file);
    prune_error(&mut file);
    let names = type_items(&file);
    let mut seen = BTreeSet::new();
    for name in &names {
        if !seen.insert(name) {
            return Err(format!("two generated types would be named `{name}`"));
        }
    }
    if roots.iter().any(|root| !seen.contains(&(*root).to_owned())) {
        return Err("typify generated no type for the schema itself".into());
    }
    if let Some(clash) = names
        .iter()
        .find(|n| named.contains(&n.as_str()) && !roots.contains(&n.as_str()))
    {
        return Err(format!(
            "a generated type would take the name of the named type `{clash}`"
        ));
    }
    repeated_members(&file)?;
    Ok(file.to_token_stream().to_string())
}

/// Properties typify spells alike (`self` and `Self` are both `self_`) would give a struct two
/// fields, or an enum two variants, of one name.
fn repeated_members(file: &syn::File) -> Result<(), String> {
    for item in &file.items {
        let (owner, members): (&Ident, Vec<&Ident>) = match item {
            syn::Item::Struct(s) => (&s.ident, s.fields.iter().flat_map(|f| &f.ident).collect()),
            syn::Item::Enum(e) => (&e.ident, e.variants.iter().map(|v| &v.ident).collect()),
            _ => continue,
        };
        let mut seen = BTreeSet::new();
        if let Some(twice) = members.into_iter().find(|m| !seen.insert(*m)) {
            return Err(format!(
                "two of its names would both be `{twice}` in the Rust type `{owner}`"
            ));
        }
    }
    Ok(())
}

/// Rewrites `::serde`, `::serde_json`, `::uuid::Uuid`, `::chrono::naive::NaiveDate`,
/// `::chrono::DateTime` and `::chrono::offset::Utc` (as `FixedOffset`) to their `::toolspec`
/// re-exports.
fn rewrite_crate_paths(tokens: TokenStream) -> TokenStream {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        if let Some(path) = leading_path(&tokens, i) {
            let strs: Vec<String> = path.iter().map(ToString::to_string).collect();
            let strs: Vec<&str> = strs.iter().map(String::as_str).collect();
            let replaced: Option<(Vec<&str>, usize)> = match strs.as_slice() {
                ["serde", ..] => Some((vec!["toolspec", "__private", "serde"], 1)),
                ["serde_json", ..] => Some((vec!["toolspec", "__private", "serde_json"], 1)),
                ["uuid", "Uuid", ..] => Some((vec!["toolspec", "__private", "types", "Uuid"], 2)),
                ["chrono", "naive", "NaiveDate", ..] => {
                    Some((vec!["toolspec", "__private", "types", "NaiveDate"], 3))
                }
                ["chrono", "NaiveDate", ..] => {
                    Some((vec!["toolspec", "__private", "types", "NaiveDate"], 2))
                }
                ["chrono", "DateTime", ..] => {
                    Some((vec!["toolspec", "__private", "types", "DateTime"], 2))
                }
                ["chrono", "offset", "Utc", ..] => {
                    Some((vec!["toolspec", "__private", "types", "FixedOffset"], 3))
                }
                _ => None,
            };
            if let Some((prefix, consumed)) = replaced {
                let span = path[0].span();
                let mut segments: Vec<Ident> = prefix.iter().map(|s| Ident::new(s, span)).collect();
                segments.extend(path[consumed..].iter().cloned());
                for segment in segments {
                    out.push(Punct::new(':', Spacing::Joint).into());
                    out.push(Punct::new(':', Spacing::Alone).into());
                    out.push(segment.into());
                }
                i += 3 * path.len();
                continue;
            }
        }
        match &tokens[i] {
            TokenTree::Group(group) => {
                let mut new =
                    proc_macro2::Group::new(group.delimiter(), rewrite_crate_paths(group.stream()));
                new.set_span(group.span());
                out.push(new.into());
            }
            other => out.push(other.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// The segments of a path starting with a leading `::` at `tokens[i]` (`::a::b::c` gives
/// `[a, b, c]`); `None` when there is no leading `::` there.
fn leading_path(tokens: &[TokenTree], i: usize) -> Option<Vec<Ident>> {
    let is_colons = |j: usize| {
        matches!((tokens.get(j), tokens.get(j + 1)),
            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':')
    };
    if !is_colons(i) {
        return None;
    }
    // Not leading after an identifier (`Self::X`, `T::f`), except after keywords such as `as`
    // (`<E as ::serde::de::Error>`). After a `>`, either (`impl<'de> ::serde::Deserialize<'de>`,
    // `Vec::<T>::new`): taken as leading for the crates typify uses only.
    let mut after_angle = false;
    let leading = match i.checked_sub(1).map(|j| &tokens[j]) {
        Some(TokenTree::Ident(prev)) => matches!(
            prev.to_string().as_str(),
            "as" | "dyn"
                | "impl"
                | "for"
                | "in"
                | "where"
                | "mut"
                | "return"
                | "let"
                | "const"
                | "static"
                | "ref"
                | "move"
                | "else"
                | "match"
                | "if"
                | "while"
        ),
        Some(TokenTree::Punct(p)) => {
            after_angle = p.as_char() == '>';
            true
        }
        _ => true,
    };
    if !leading {
        return None;
    }
    let mut segments = Vec::new();
    let mut j = i;
    while is_colons(j) {
        match tokens.get(j + 2) {
            Some(TokenTree::Ident(segment)) => segments.push(segment.clone()),
            _ => break,
        }
        j += 3;
    }
    let known = segments.first().is_some_and(|first| {
        matches!(
            first.to_string().as_str(),
            "std" | "core" | "alloc" | "serde" | "serde_json" | "chrono" | "uuid" | "regress"
        )
    });
    (!segments.is_empty() && (known || !after_angle)).then_some(segments)
}

/// The first segment of every path with a leading `::`.
pub fn leading_crates(tokens: &TokenStream, out: &mut BTreeSet<String>) {
    let tokens: Vec<TokenTree> = tokens.clone().into_iter().collect();
    for (i, token) in tokens.iter().enumerate() {
        if let Some(path) = leading_path(&tokens, i) {
            out.insert(path[0].to_string());
        }
        if let TokenTree::Group(group) = token {
            leading_crates(&group.stream(), out);
        }
    }
}

/// Adds `#[serde(crate = "::toolspec::__private::serde")]` after a derive of serde's traits.
fn add_serde_crate(attrs: &mut Vec<syn::Attribute>) {
    let derives_serde = |attr: &syn::Attribute| {
        attr.path().is_ident("derive") && {
            let text = attr.to_token_stream().to_string();
            text.contains("Serialize") || text.contains("Deserialize")
        }
    };
    if let Some(at) = attrs.iter().position(derives_serde) {
        attrs.insert(at + 1, syn::parse_quote! { #[serde(crate = #SERDE)] });
    }
}

/// Removes the functions of typify's `defaults` module that nothing refers to (they would be
/// dead code), and the module if it ends up empty.
fn prune_defaults(file: &mut syn::File) {
    let Some(at) = file
        .items
        .iter()
        .position(|item| matches!(item, syn::Item::Mod(m) if m.ident == "defaults"))
    else {
        return;
    };
    let others: String = file
        .items
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != at)
        .map(|(_, item)| item.to_token_stream().to_string())
        .collect();
    let used = |name: &str| {
        others.contains(&format!("defaults::{name}"))
            || others.contains(&format!("defaults :: {name}"))
    };
    let empty = match &mut file.items[at] {
        syn::Item::Mod(syn::ItemMod {
            content: Some((_, items)),
            ..
        }) => {
            items.retain(
                |item| !matches!(item, syn::Item::Fn(f) if !used(&f.sig.ident.to_string())),
            );
            items.is_empty()
        }
        _ => false,
    };
    if empty {
        file.items.remove(at);
    }
}

/// Removes typify's `error` module (its `ConversionError`) when nothing refers to it.
fn prune_error(file: &mut syn::File) {
    let is_error = |item: &syn::Item| matches!(item, syn::Item::Mod(m) if m.ident == "error");
    let used = file
        .items
        .iter()
        .filter(|item| !is_error(item))
        .any(|item| {
            item.to_token_stream()
                .to_string()
                .contains("error :: ConversionError")
        });
    if !used {
        file.items.retain(|item| !is_error(item));
    }
}

/// The names of the types (structs, enums, unions, aliases) at the top of `file`, in order.
fn type_items(file: &syn::File) -> Vec<String> {
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Struct(s) => Some(s.ident.to_string()),
            syn::Item::Enum(e) => Some(e.ident.to_string()),
            syn::Item::Union(u) => Some(u.ident.to_string()),
            syn::Item::Type(t) => Some(t.ident.to_string()),
            _ => None,
        })
        .collect()
}
