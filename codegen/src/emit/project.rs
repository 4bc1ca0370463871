//! The project's items: `PROJECT`, `TOOLS` and `registry()`; and, written as text like a tool's
//! descriptor, `EXPLAIN` and `TASK_STATUS` (the built-in tools' descriptors) and `OPENAPI`.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::quote;
use toolspec_vocab::auth::MissingScope;
use toolspec_vocab::descriptor::{Descriptor, ToolKind};
use toolspec_vocab::naming::NameRule;
use toolspec_vocab::settings::{AdapterDecl, SettingDecl, SettingKind};

use crate::emit::descriptor::{
    audit_policy, column_type, descriptor_item, millis, opt_str, setting_value,
};
use crate::emit::literal;
use crate::project::{Project, Tool};
use crate::rust_name::ident;
use crate::spec::{AuditConfig, AuthSpec};

fn setting_decl(decl: &SettingDecl) -> TokenStream {
    let name = decl.name.as_ref();
    let kind = match decl.kind {
        SettingKind::String => quote! { String },
        SettingKind::Boolean => quote! { Boolean },
        SettingKind::Integer => quote! { Integer },
    };
    let default = match &decl.default {
        Some(v) => {
            let v = setting_value(v);
            quote! { ::core::option::Option::Some(#v) }
        }
        None => quote! { ::core::option::Option::None },
    };
    let allowed = decl.allowed.iter().map(setting_value);
    let overridable = decl.overridable;
    quote! {
        ::toolspec::__private::settings::SettingDecl {
            name: ::std::borrow::Cow::Borrowed(#name),
            kind: ::toolspec::__private::settings::SettingKind::#kind,
            default: #default,
            allowed: ::std::borrow::Cow::Borrowed(&[ #(#allowed,)* ]),
            overridable: #overridable,
        }
    }
}

fn adapter_decl(decl: &AdapterDecl) -> TokenStream {
    let name = decl.name.as_ref();
    let settings = decl.settings.iter().map(setting_decl);
    let rule = match decl.name_rule {
        NameRule::Mcp => quote! { Mcp },
        NameRule::FunctionCalling => quote! { FunctionCalling },
        NameRule::Gemini => quote! { Gemini },
    };
    let hints = decl.hints.iter().map(|h| h.as_ref());
    quote! {
        ::toolspec::__private::settings::AdapterDecl {
            name: ::std::borrow::Cow::Borrowed(#name),
            settings: ::std::borrow::Cow::Borrowed(&[ #(#settings,)* ]),
            name_rule: ::toolspec::__private::NameRule::#rule,
            hints: ::std::borrow::Cow::Borrowed(&[ #( ::std::borrow::Cow::Borrowed(#hints), )* ]),
        }
    }
}

/// A built-in tool's generated static, what it says of itself, and how the registry adds it.
fn builtin(kind: ToolKind) -> (&'static str, &'static str, TokenStream) {
    match kind {
        ToolKind::TaskStatus => (
            "TASK_STATUS",
            "The built-in task status tool: reads a task another tool started.",
            quote! { .task_status(&TASK_STATUS) },
        ),
        _ => (
            "EXPLAIN",
            "The built-in explain tool: checks a call of another tool without running it.",
            quote! { .explain(&EXPLAIN) },
        ),
    }
}

fn project_static(project: &Project) -> TokenStream {
    let config = &project.config;
    // A project that keeps the built-in adapters as shipped points at the runtime's table
    // instead of spelling it out again.
    let adapters = if config
        .adapters
        .iter()
        .map(|a| &a.decl)
        .eq(toolspec_vocab::adapters::BUILTIN)
    {
        quote! { ::toolspec::__private::BUILTIN_ADAPTERS }
    } else {
        let decls = config.adapters.iter().map(|a| adapter_decl(&a.decl));
        quote! { &[ #(#decls,)* ] }
    };
    let hints = &config.hints;
    let explain_enabled = config.explain_enabled;
    let explain_name = &config.explain_name;
    let audit = if config.audit == AuditConfig::OFF {
        quote! { ::toolspec::__private::AuditConfig::OFF }
    } else {
        let policy = audit_policy(&config.audit.policy);
        let retention = match config.audit.retention {
            // Whole seconds (a retention in milliseconds is kept as written).
            Some(r) if r.subsec_millis() == 0 => {
                let secs = r.as_secs();
                quote! { ::core::option::Option::Some(::core::time::Duration::from_secs(#secs)) }
            }
            Some(r) => {
                let r = millis(r);
                quote! { ::core::option::Option::Some(#r) }
            }
            None => quote! { ::core::option::Option::None },
        };
        quote! { ::toolspec::__private::AuditConfig { policy: #policy, retention: #retention } }
    };
    let tasks = tasks_config(&config.tasks);
    let auth = auth_config(project);
    let drop_undeclared = config.drop_undeclared_keys;
    let read_only = config.read_only;
    let mut tools: Vec<&Tool> = project.tools.iter().collect();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    let paths = tools.iter().map(|t| {
        let segments = t.module.iter().map(|s| ident(s));
        quote! { &#(#segments)::*::DESCRIPTOR }
    });
    quote! {
        /// The project configuration the tools were compiled with (`toolspec.yaml`).
        pub static PROJECT: ::toolspec::__private::Project = ::toolspec::__private::Project {
            adapters: #adapters,
            hints: &[ #(#hints,)* ],
            explain: ::toolspec::__private::ExplainConfig { enabled: #explain_enabled, name: #explain_name },
            audit: #audit,
            tasks: #tasks,
            drop_undeclared_keys: #drop_undeclared,
            read_only: #read_only,
            auth: #auth,
            openapi: ::core::option::Option::Some(OPENAPI),
            // The crate that includes this file.
            package: ::core::option::Option::Some(::toolspec::__private::Package {
                name: ::core::env!("CARGO_PKG_NAME"),
                version: ::core::env!("CARGO_PKG_VERSION"),
            }),
        };

        /// Every tool's descriptor, sorted by name.
        pub static TOOLS: &[&::toolspec::__private::Descriptor] = &[ #(#paths,)* ];
    }
}

/// The project's `auth:`, with every scope its tools require.
fn auth_config(project: &Project) -> TokenStream {
    let auth = &project.config.auth;
    let scopes: BTreeSet<&str> = project
        .tools
        .iter()
        .flat_map(|t| &t.spec.scopes)
        .map(String::as_str)
        .collect();
    if *auth == AuthSpec::default() && scopes.is_empty() {
        return quote! { ::toolspec::__private::AuthConfig::DEFAULT };
    }
    let issuer = opt_str(auth.issuer.as_deref());
    let audience = opt_str(auth.audience.as_deref());
    let claims = auth.claims.iter().map(|c| {
        let (ambient, claim, ty) = (&c.ambient, &c.claim, column_type(&c.ty));
        quote! { ::toolspec::__private::ClaimMapping { ambient: #ambient, claim: #claim, ty: #ty } }
    });
    let missing = match auth.on_missing_scope {
        MissingScope::Hide => quote! { Hide },
        MissingScope::Challenge => quote! { Challenge },
    };
    quote! {
        ::toolspec::__private::AuthConfig {
            issuer: #issuer,
            audience: #audience,
            claims: &[ #(#claims,)* ],
            on_missing_scope: ::toolspec::__private::MissingScope::#missing,
            scopes_supported: &[ #(#scopes,)* ],
        }
    }
}

fn registry(project: &Project, builtins: &[Descriptor]) -> TokenStream {
    let path = |t: &Tool| {
        let segments = t.module.iter().map(|s| ident(s));
        quote! { #(#segments)::* }
    };
    let (queries, actions): (Vec<&Tool>, Vec<&Tool>) =
        project.tools.iter().partition(|t| t.spec.query.is_some());
    let actions: Vec<TokenStream> = actions.into_iter().map(path).collect();
    let queries: Vec<TokenStream> = queries.into_iter().map(path).collect();
    let builtins = builtins.iter().map(|d| builtin(d.kind).2);
    let handler = if actions.is_empty() {
        quote! { let _ = handler; }
    } else {
        quote! { let handler = ::std::sync::Arc::new(handler); }
    };
    // Query tools and `ref` fields read the database; the audit trail, `once`, `lock` and
    // tasks keep their records in it.
    let reads = !queries.is_empty()
        || project.tools.iter().any(|t| {
            t.spec.expects.iter().any(|f| f.reference.is_some())
                || t.spec.audit.enabled
                || t.spec.once.is_some()
                || t.spec.lock.is_some()
                || t.spec.task.is_some()
        })
        || (project.config.explain_enabled && project.config.audit.policy.enabled);
    let database = reads.then(|| quote! { .database(database) });
    let body = quote! {
        #handler
        ::toolspec::__private::generated_registry(
            ::toolspec::__private::Registry::builder(&PROJECT)
                #( .tool(#actions::Bound(::std::sync::Arc::clone(&handler))) )*
                #( .tool(#queries::Bound::new(::core::clone::Clone::clone(&database))) )*
                #(#builtins)*
                #database
        )
    };
    if !reads {
        return quote! {
            /// Binds every tool to `handler`. Does not compile until `H` implements every tool's
            /// `Handler`; the error names each tool that is missing.
            pub fn registry<H>(handler: H) -> ::toolspec::__private::Registry
            where
                H: ::core::marker::Send + ::core::marker::Sync + 'static #( + #actions::Handler )*
            {
                #body
            }
        };
    }
    quote! {
        /// Binds every action to `handler` and every query tool to `database`, which `ref`
        /// fields load their records from too, and the audit trail, `once` and `lock` keep
        /// theirs in. Does not compile until `H` implements every action's `Handler`; the
        /// error names each tool that is missing.
        pub fn registry<H>(handler: H, database: ::toolspec::__private::Database) -> ::toolspec::__private::Registry
        where
            H: ::core::marker::Send + ::core::marker::Sync + 'static #( + #actions::Handler )*
        {
            #body
        }
    }
}

/// The project's configuration and its `registry()`, which adds the built-in tools
/// (`builtins`, [`Project::builtin_descriptors`]).
pub fn project_items(project: &Project, builtins: &[Descriptor]) -> TokenStream {
    let mut items = project_static(project);
    items.extend(registry(project, builtins));
    items
}

/// The built-in tools' descriptors and `OPENAPI` (the project's OpenAPI document, `openapi`,
/// as JSON text), written as formatted source.
pub fn project_text(builtins: &[Descriptor], openapi: &str) -> String {
    let mut out = String::with_capacity(openapi.len() + 4096);
    for descriptor in builtins {
        let (name, doc, _) = builtin(descriptor.kind);
        out.push_str(&descriptor_item(doc, name, descriptor));
    }
    out.push_str("/// The HTTP API's OpenAPI 3.1 document (served at `/openapi.json`).\n");
    out.push_str("pub const OPENAPI: &str = ");
    out.push_str(&literal::string(openapi));
    out.push_str(";\n");
    out
}

/// The project's `tasks:` as a `TasksConfig` expression.
fn tasks_config(tasks: &toolspec_vocab::tasks::TasksConfig) -> TokenStream {
    if *tasks == toolspec_vocab::tasks::TasksConfig::DEFAULT {
        return quote! { ::toolspec::__private::TasksConfig::DEFAULT };
    }
    let retention = millis(tasks.retention);
    let timeout = millis(tasks.timeout);
    let concurrency = tasks.concurrency;
    let running_per_caller = tasks.running_per_caller;
    let per_caller = tasks.per_caller;
    let kept_per_caller = tasks.kept_per_caller;
    let kept_bytes_per_caller = tasks.kept_bytes_per_caller;
    let max_result_bytes = tasks.max_result_bytes;
    quote! {
        ::toolspec::__private::TasksConfig {
            retention: #retention,
            timeout: #timeout,
            concurrency: #concurrency,
            running_per_caller: #running_per_caller,
            per_caller: #per_caller,
            kept_per_caller: #kept_per_caller,
            kept_bytes_per_caller: #kept_bytes_per_caller,
            max_result_bytes: #max_result_bytes,
        }
    }
}
