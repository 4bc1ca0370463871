//! A tool's `DESCRIPTOR` static, written from its descriptor data.

use std::time::Duration;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use toolspec_vocab::Dialect;
use toolspec_vocab::query::ColumnType;
use toolspec_vocab::settings::SettingValue;

use crate::analyze::membership::View;
use crate::describe::{Descriptor, QueryDescriptor, RefDescriptor};
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

/// The `DESCRIPTOR` static of a tool.
pub fn descriptor(d: &Descriptor) -> TokenStream {
    let (name, path, module) = (&d.name, &d.spec, &d.module);
    let title = opt_str(d.title.as_deref());
    let (summary, description) = (&d.summary, &d.description);
    let version = match d.version {
        Some(v) => quote! { ::core::option::Option::Some(#v) },
        None => quote! { ::core::option::Option::None },
    };
    let input_schema = raw_string(&d.input_schema);
    let output_schema = raw_string(&d.output_schema);
    let sensitive = |map: &Option<String>| match map {
        Some(map) => {
            let map = raw_string(map);
            quote! { ::core::option::Option::Some(#map) }
        }
        None => quote! { ::core::option::Option::None },
    };
    let (sensitive_input, sensitive_output) = (
        sensitive(&d.sensitive_input),
        sensitive(&d.sensitive_output),
    );
    let (own_ranges_input, own_ranges_output) = (&d.own_ranges_input, &d.own_ranges_output);
    let dialect_names = d.dialects.iter().map(|(d, _)| format_ident!("{d:?}"));
    let dialect_schemas = d.dialects.iter().map(|(_, s)| raw_string(s));
    let fields = d.fields.iter().map(|f| {
        let (n, a, s, o) = (&f.name, f.ambient, f.sensitive, f.optional);
        quote! { ::toolspec::__private::Field { name: #n, ambient: #a, sensitive: #s, optional: #o } }
    });
    let guards = d.guards.iter().map(|(n, d)| {
        quote! { ::toolspec::__private::Guard { name: #n, description: #d } }
    });
    let headline = opt_str(d.error_headline.as_deref());
    let errors = d.errors.iter().map(|e| {
        let (c, m, s) = (&e.code, &e.message, e.standalone);
        let status = match e.http_status {
            Some(status) => quote! { ::core::option::Option::Some(#status) },
            None => quote! { ::core::option::Option::None },
        };
        quote! { ::toolspec::__private::ErrorCode { code: #c, message: #m, standalone: #s, http_status: #status } }
    });
    let hints = &d.hints;
    let message = opt_str(d.message.as_deref());
    let timeout = match d.timeout {
        Some(t) => {
            let t = millis(t);
            quote! { ::core::option::Option::Some(#t) }
        }
        None => quote! { ::core::option::Option::None },
    };
    let audit = audit_policy(&d.audit);
    let once = match &d.once {
        Some(once) => {
            let (key, ttl) = (&once.key, millis(once.ttl));
            quote! { ::core::option::Option::Some(&::toolspec::__private::OnceDecl { key: &[ #(#key,)* ], ttl: #ttl }) }
        }
        None => quote! { ::core::option::Option::None },
    };
    let lock = match &d.lock {
        Some(lock) => {
            let (key, wait) = (&lock.key, millis(lock.wait));
            quote! { ::core::option::Option::Some(&::toolspec::__private::LockDecl { key: &[ #(#key,)* ], wait: #wait }) }
        }
        None => quote! { ::core::option::Option::None },
    };
    let (tags, scopes) = (&d.tags, &d.scopes);
    // A member under the canonical name with no setting of its own is written as such.
    let bindings = d.adapters.iter().map(|b| {
        let adapter = &b.adapter;
        if b.name == d.name && b.settings.is_empty() && b.view.is_none() {
            return quote! { ::toolspec::__private::AdapterBinding::member(#adapter) };
        }
        let name = opt_str((b.name != d.name).then_some(b.name.as_str()));
        let keys = b.settings.iter().map(|(k, _)| k);
        let values = b.settings.iter().map(|(_, v)| setting_value(v));
        let view = match &b.view {
            Some(view) => {
                let schemas = d.views.get(adapter).map(Vec::as_slice).unwrap_or_default();
                let view = query_view(view, schemas);
                quote! { ::core::option::Option::Some(&#view) }
            }
            None => quote! { ::core::option::Option::None },
        };
        quote! {
            ::toolspec::__private::AdapterBinding { adapter: #adapter, name: #name, settings: &[ #( (#keys, #values), )* ], view: #view }
        }
    });
    let refs = d.refs.iter().map(ref_decl);
    let (kind, query) = match &d.query {
        Some(q) => {
            let q = query_decl(q);
            (
                quote! { Query },
                quote! { ::core::option::Option::Some(&#q) },
            )
        }
        None => (quote! { Action }, quote! { ::core::option::Option::None }),
    };
    quote! {
        /// Everything known about the tool at build time.
        pub static DESCRIPTOR: ::toolspec::__private::Descriptor = ::toolspec::__private::Descriptor {
            name: #name,
            spec: #path,
            module: #module,
            kind: ::toolspec::__private::ToolKind::#kind,
            title: #title,
            summary: #summary,
            description: #description,
            version: #version,
            input_schema: #input_schema,
            output_schema: #output_schema,
            dialects: &[ #( (::toolspec::__private::Dialect::#dialect_names, #dialect_schemas), )* ],
            fields: &[ #(#fields,)* ],
            sensitive_input: #sensitive_input,
            sensitive_output: #sensitive_output,
            own_ranges_input: &[ #(#own_ranges_input,)* ],
            own_ranges_output: &[ #(#own_ranges_output,)* ],
            guards: &[ #(#guards,)* ],
            error_headline: #headline,
            errors: &[ #(#errors,)* ],
            hints: &[ #(#hints,)* ],
            message: #message,
            timeout: #timeout,
            tags: &[ #(#tags,)* ],
            scopes: &[ #(#scopes,)* ],
            adapters: &[ #(#bindings,)* ],
            query: #query,
            refs: &[ #(#refs,)* ],
            audit: #audit,
            once: #once,
            lock: #lock,
        };
    }
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

/// A `ref` field's `RefDecl`.
fn ref_decl(r: &RefDescriptor) -> TokenStream {
    let (field, source, key) = (&r.field, &r.source, &r.key);
    let key_type = column_type(&r.key_type);
    let record = record_columns(&r.record);
    let scope = scope_columns(&r.scope);
    quote! {
        ::toolspec::__private::RefDecl {
            field: #field,
            source: #source,
            key: #key,
            key_type: #key_type,
            record: &[ #(#record,)* ],
            scope: &[ #(#scope,)* ],
        }
    }
}

pub fn column_type(t: &ColumnType) -> TokenStream {
    let t = format_ident!("{t:?}");
    quote! { ::toolspec::__private::ColumnType::#t }
}

fn record_columns(record: &[(String, String, ColumnType, bool)]) -> Vec<TokenStream> {
    record
        .iter()
        .map(|(name, column, t, nullable)| {
            let t = column_type(t);
            quote! { ::toolspec::__private::RecordColumn { name: #name, column: #column, ty: #t, nullable: #nullable } }
        })
        .collect()
}

fn scope_columns(scope: &[(String, String, ColumnType)]) -> Vec<TokenStream> {
    scope
        .iter()
        .map(|(column, ambient, t)| {
            let t = column_type(t);
            quote! { ::toolspec::__private::ScopeColumn { column: #column, ambient: #ambient, ty: #t } }
        })
        .collect()
}

/// A query tool's `QueryDecl`.
fn query_decl(q: &QueryDescriptor) -> TokenStream {
    let source = &q.source;
    let record = record_columns(&q.record);
    let scope = scope_columns(&q.scope);
    let filters = q.filters.iter().map(|(name, op, column, t)| {
        let (t, op) = (column_type(t), format_ident!("{op:?}"));
        quote! { ::toolspec::__private::FilterColumn { name: #name, op: ::toolspec::__private::FilterOp::#op, column: #column, ty: #t } }
    });
    let sorts = &q.sorts;
    let default_sort = opt_str(q.default_sort.as_deref());
    let (default, max) = q.limit;
    quote! {
        ::toolspec::__private::QueryDecl {
            source: #source,
            record: &[ #(#record,)* ],
            scope: &[ #(#scope,)* ],
            filters: &[ #(#filters,)* ],
            sorts: &[ #(#sorts,)* ],
            default_sort: #default_sort,
            limit: ::toolspec::__private::PageLimit { default: #default, max: #max },
        }
    }
}

/// What a query tool shows one adapter that narrows it.
fn query_view(view: &View, schemas: &[(Dialect, String)]) -> TokenStream {
    let (filters, sorts, description) = (&view.filters, &view.sorts, &view.description);
    let dialects = schemas.iter().map(|(d, _)| format_ident!("{d:?}"));
    let schemas = schemas.iter().map(|(_, s)| raw_string(s));
    quote! {
        ::toolspec::__private::QueryView {
            filters: &[ #(#filters,)* ],
            sorts: &[ #(#sorts,)* ],
            description: #description,
            schemas: &[ #( (::toolspec::__private::Dialect::#dialects, #schemas), )* ],
        }
    }
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
