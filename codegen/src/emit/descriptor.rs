//! A tool's `DESCRIPTOR` static, baked from its descriptor (see `bake`), and the literals the
//! project's statics are written with.

use std::time::Duration;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use toolspec_vocab::descriptor::Descriptor;
use toolspec_vocab::query::ColumnType;
use toolspec_vocab::settings::SettingValue;

use crate::emit::bake::{baked, tidy};
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

/// The `DESCRIPTOR` static of a tool whose value is `value` (see [`descriptor_value`]).
pub fn descriptor(value: TokenStream) -> TokenStream {
    quote! {
        /// Everything known about the tool at build time.
        pub static DESCRIPTOR: ::toolspec::__private::Descriptor = #value;
    }
}

/// A tool's descriptor written into Rust by walking the value: as syn's expression tree read
/// straight from databake's tokens, or, for a form `expr` does not read, as tokens in the
/// generated code's style (which syn then parses).
pub fn descriptor_value(d: &Descriptor) -> Result<syn::Expr, TokenStream> {
    // Baked again for the other way rather than cloned: tokens shared with a clone are
    // copied as they are read.
    crate::emit::expr::read(baked(d)).ok_or_else(|| tidy(baked(d)))
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
