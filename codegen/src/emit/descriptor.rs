//! A tool's `DESCRIPTOR` static, written from its descriptor (see `literal`), and the
//! literals the project's statics are written with.

use std::time::Duration;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use toolspec_vocab::descriptor::Descriptor;
use toolspec_vocab::query::ColumnType;
use toolspec_vocab::settings::SettingValue;

use crate::emit::literal;
use crate::spec::{AuditPolicy, Durability};

pub fn opt_str(value: Option<&str>) -> TokenStream {
    match value {
        Some(s) => quote! { ::core::option::Option::Some(#s) },
        None => quote! { ::core::option::Option::None },
    }
}

pub fn setting_value(value: &SettingValue) -> TokenStream {
    match value {
        SettingValue::Str(s) => {
            let s = s.as_ref();
            quote! { ::toolspec::__private::SettingValue::Str(::std::borrow::Cow::Borrowed(#s)) }
        }
        SettingValue::Bool(b) => quote! { ::toolspec::__private::SettingValue::Bool(#b) },
        SettingValue::Int(i) => quote! { ::toolspec::__private::SettingValue::Int(#i) },
    }
}

/// A descriptor's static item as formatted source: `doc` (one line, without its `///`),
/// then `pub static NAME: Descriptor = …;`.
pub fn descriptor_item(doc: &str, name: &str, descriptor: &Descriptor) -> String {
    let mut out = format!("/// {doc}\npub static {name}: ::toolspec::__private::Descriptor = ");
    if let Err(e) = literal::write(&mut out, descriptor, 0) {
        // Unreachable for the descriptor model; let the compiler say what broke.
        out.push_str(&format!("::core::compile_error!({:?})", e.to_string()));
    }
    out.push_str(";\n");
    out
}

/// `Duration::from_millis(…)`.
pub fn millis(duration: Duration) -> TokenStream {
    let ms = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
    quote! { ::core::time::Duration::from_millis(#ms) }
}

/// An `AuditPolicy`: `AuditPolicy::OFF`, or each of its keys.
pub fn audit_policy(policy: &AuditPolicy) -> TokenStream {
    if *policy == AuditPolicy::OFF {
        return quote! { ::toolspec::__private::AuditPolicy::OFF };
    }
    let (enabled, required) = (policy.enabled, policy.required);
    let durability = match policy.durability {
        Durability::Async => quote! { Async },
        Durability::Sync => quote! { Sync },
    };
    quote! {
        ::toolspec::__private::AuditPolicy {
            enabled: #enabled,
            durability: ::toolspec::__private::Durability::#durability,
            required: #required,
        }
    }
}

pub fn column_type(t: &ColumnType) -> TokenStream {
    let t = format_ident!("{t:?}");
    quote! { ::toolspec::__private::ColumnType::#t }
}
