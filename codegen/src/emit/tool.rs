//! One tool's module: its types, the `Handler` trait, the marker type and the descriptor.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::emit::named_types::supers;
use crate::emit::types::{TypeGen, doc};
use crate::project::Tool;
use crate::read::lower::record_field;
use crate::rust_name::{ident, type_name, value_name};
use crate::shapes::Shapes;
use crate::source::Spanned;
use crate::spec::{Field, GuardDecl};

/// Names each tool module defines itself; generated types never take them.
pub const RESERVED: &[&str] = &[
    "Tool",
    "Input",
    "Ambient",
    "Output",
    "Error",
    "Outcome",
    "Context",
    "Handler",
    "Guard",
    "Loaded",
    "Bound",
    "Filters",
    "Record",
    "DESCRIPTOR",
];

/// The module of `tool`, `depth` modules below the generated file's root, but for its
/// `DESCRIPTOR` (written as text after it is formatted: see `descriptor::descriptor_item`).
pub fn tool_module(tool: &Tool, depth: usize, shapes: &Shapes) -> TokenStream {
    let spec = &tool.spec;
    let module = ident(tool.module.last().map(String::as_str).unwrap_or("tool"));
    let types_path = {
        let s = supers(depth);
        quote! { #s types }
    };
    let mut types_gen = TypeGen::new(Some(types_path), RESERVED, shapes, &spec.file);
    let ambient: Vec<&Field> = spec.expects.iter().filter(|f| f.ambient).collect();
    if spec.query.is_some() {
        query_inputs(&mut types_gen, tool);
    } else {
        let inputs = with_ref_records(&mut types_gen, spec.expects.iter().filter(|f| !f.ambient));
        let inputs: Vec<&Field> = inputs.iter().collect();
        types_gen.structure(&format_ident!("Input"), Some(INPUT_DOC), &inputs, "Input");
    }
    types_gen.structure(
        &format_ident!("Ambient"),
        Some("Fields resolved from the trusted ambient context, never from the model."),
        &ambient,
        "Ambient",
    );
    if spec.query.is_some() {
        query_outputs(&mut types_gen, tool);
    } else {
        let outputs: Vec<&Field> = spec.exposes.iter().collect();
        types_gen.structure(
            &format_ident!("Output"),
            Some(OUTPUT_DOC),
            &outputs,
            "Output",
        );
    }
    let type_items = types_gen.items;

    let name = &tool.name;
    let guard_variants: Vec<Ident> = spec
        .guards
        .iter()
        .map(|g| ident(&type_name(&g.name.value)))
        .collect();
    let (guard_type, guard_enum) = if guard_variants.is_empty() {
        (
            quote! { ::toolspec::__private::NoGuard },
            TokenStream::new(),
        )
    } else {
        let docs = spec.guards.iter().map(|g| doc(Some(&g.description)));
        (
            quote! { Guard },
            quote! {
                /// The tool's guards, in spec order: each is run by its method of [`Handler`].
                #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq, ::core::cmp::Eq, ::core::hash::Hash)]
                pub enum Guard { #( #docs #guard_variants, )* }
            },
        )
    };
    let module_doc = doc(Some(&spec.description));
    let error = error_enum(tool);
    let handler = if spec.query.is_some() {
        quote! {
            /// The tool bound to a database: what the registry runs. A query tool needs no
            /// handler code.
            #[doc(hidden)]
            pub type Bound = ::toolspec::__private::QueryOperation<Tool>;
        }
    } else {
        handler_trait(tool)
    };
    quote! {
        #module_doc
        pub mod #module {
            /// The tool's marker type: its name, types and descriptor.
            #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::default::Default)]
            pub struct Tool;

            impl ::toolspec::__private::Contract for Tool {
                type Input = Input;
                type Ambient = Ambient;
                type Output = Output;
                type Error = Error;
                type Guard = #guard_type;
                const GUARDS: &'static [#guard_type] = &[ #( #guard_type::#guard_variants, )* ];
            }

            impl ::toolspec::__private::Described for Tool {
                const NAME: &'static str = #name;
                fn descriptor() -> &'static ::toolspec::__private::Descriptor {
                    &DESCRIPTOR
                }
            }

            #(#type_items)*

            #error

            #guard_enum

            /// What the handler returns.
            pub type Outcome = ::core::result::Result<Output, ::toolspec::__private::Failure<Error>>;

            /// The handler's view of the call.
            pub type Context<'a> = ::toolspec::__private::Context<'a, Ambient>;

            #handler

        }
    }
}

const INPUT_DOC: &str = "The model-facing input, defaults applied.";

/// The inputs as the handler gets them: a `ref` field (whose schema is its key's) is the
/// record it names, a struct generated here (`OrderRecord` for `order`).
fn with_ref_records<'f>(
    types_gen: &mut TypeGen<'_>,
    inputs: impl Iterator<Item = &'f Field>,
) -> Vec<Field> {
    inputs
        .map(|field| {
            let Some(reference) = &field.reference else {
                return field.clone();
            };
            let name = types_gen.claim(&format!("{}Record", type_name(&field.name)), "Input");
            let record: Vec<Field> = reference.record.iter().map(record_field).collect();
            let record: Vec<&Field> = record.iter().collect();
            let doc = format!(
                "The `{}` record the model's `{}` names, loaded from `{}` within the scope.",
                field.name, reference.key.value, reference.source.value
            );
            types_gen.structure(&name, Some(&doc), &record, "Input");
            let mut field = field.clone();
            field.rust_type = Some(Spanned::new(name.to_string(), field.span));
            field
        })
        .collect()
}
const OUTPUT_DOC: &str = "The exposed output.";

/// A query tool's input types: `Filters`, `Input` (the filters, `sort`, `limit` and
/// `offset`) and `Sort`.
fn query_inputs(types_gen: &mut TypeGen<'_>, tool: &Tool) {
    let spec = &tool.spec;
    let Some(query) = &spec.query else { return };
    let is_filter = |f: &&Field| query.filters.iter().any(|q| q.name.value == f.name);
    let (filters, paging): (Vec<&Field>, Vec<&Field>) = spec
        .expects
        .iter()
        .filter(|f| !f.ambient)
        .partition(is_filter);
    types_gen.structure(
        &format_ident!("Filters"),
        Some("The filters the model may send, all optional."),
        &filters,
        "Input",
    );
    types_gen.structure_with(
        &format_ident!("Input"),
        Some("The model-facing input: the filters, then the sort and the page."),
        quote! {
            /// The filters.
            #[serde(flatten)]
            pub filters: Filters,
        },
        &paging,
        "Input",
    );
}

/// A query tool's output types: `Record` and `Output` (`records`, `total`, `limit`,
/// `offset`).
fn query_outputs(types_gen: &mut TypeGen<'_>, tool: &Tool) {
    let spec = &tool.spec;
    let (records, rest): (Vec<&Field>, Vec<&Field>) = spec
        .exposes
        .iter()
        .partition(|f| f.name == toolspec_vocab::query::RECORDS);
    let record_fields: Vec<&Field> = records
        .iter()
        .flat_map(|f| match &f.ty {
            crate::spec::FieldType::Array(item) => match &item.ty {
                crate::spec::FieldType::Object(fields) => fields.iter().collect(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        })
        .collect();
    types_gen.structure(
        &format_ident!("Record"),
        Some("One record: the columns the query returns."),
        &record_fields,
        "Record",
    );
    types_gen.structure_with(
        &format_ident!("Output"),
        Some("One page of records."),
        quote! {
            /// The records of this page.
            pub records: ::std::vec::Vec<Record>,
        },
        &rest,
        "Output",
    );
}

fn error_enum(tool: &Tool) -> TokenStream {
    let spec = &tool.spec;
    let variants: Vec<Ident> = spec
        .errors
        .iter()
        .map(|e| ident(&type_name(&e.code.value)))
        .collect();
    let codes = spec.errors.iter().map(|e| e.code.value.as_str());
    let messages: Vec<&str> = spec.errors.iter().map(|e| e.message.as_str()).collect();
    let docs = messages.iter().map(|m| doc(Some(m)));
    quote! {
        /// The tool's declared error codes; `Display` is the spec's message.
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq, ::core::cmp::Eq, ::core::hash::Hash)]
        pub enum Error { #( #docs #variants, )* }
        ::toolspec::__private::declared_errors!(Error { #( #variants = (#codes, #messages) ),* });
    }
}

fn handler_trait(tool: &Tool) -> TokenStream {
    let spec = &tool.spec;
    let message = format!("`{{Self}}` does not handle tool `{}`", tool.name);
    let label = format!("missing a handler for `{}`", tool.name);
    let module_path = tool.module.join("::");
    let guards: Vec<GuardItems> = spec
        .guards
        .iter()
        .map(|g| GuardItems::new(tool, g))
        .collect();
    let loads: Vec<&GuardItems> = guards.iter().filter(|g| g.loads.is_some()).collect();
    // `tools` is the module `include_tools!()` declares unless the app names another.
    let note = format!(
        "implement `tools::{module_path}::Handler` for `{{Self}}`: {} (spec: {})",
        to_write(&guards),
        spec.path
    );
    let variants = guards.iter().map(|g| {
        let variant = &g.variant;
        quote! { Guard::#variant }
    });
    let methods: Vec<&Ident> = guards.iter().map(|g| &g.method).collect();
    let guard_type = if spec.guards.is_empty() {
        quote! { ::toolspec::__private::NoGuard }
    } else {
        quote! { Guard }
    };
    let call_doc = doc(Some(&format!(
        "Runs `{}`: {}",
        tool.name,
        first_line(&spec.description)
    )));
    let guard_methods = guards.iter().map(GuardItems::method);
    let guard_modules = guards.iter().map(GuardItems::module);
    let (loaded_param, loaded_struct, loaded_binding) = if loads.is_empty() {
        (TokenStream::new(), TokenStream::new(), TokenStream::new())
    } else {
        let fields: Vec<&Ident> = loads
            .iter()
            .filter_map(|g| g.loads.as_ref())
            .map(|l| &l.0)
            .collect();
        let types = loads.iter().filter_map(|g| g.loads.as_ref()).map(|l| &l.1);
        let docs = loads
            .iter()
            .map(|g| doc(Some(&format!("Loaded by the guard `{}`.", g.name()))));
        let from = loads.iter().map(|g| &g.method);
        (
            quote! { loaded: Loaded<Self>, },
            quote! {
                /// What the guards loaded, handed to [`Handler::call`] once every guard passed.
                pub struct Loaded<H: Handler + ?::core::marker::Sized> {
                    #( #docs pub #fields: H::#types, )*
                }
            },
            quote! { , loaded: Loaded { #( #fields: #from ),* } },
        )
    };
    let associated = loads.iter().map(|g| {
        let ty = g.loads.as_ref().map(|l| &l.1);
        let doc = doc(Some(&format!(
            "What the guard `{}` loads for [`Handler::call`] (in [`Loaded`]).",
            g.name()
        )));
        quote! { #doc type #ty: ::core::marker::Send + 'static; }
    });
    quote! {
        /// Implement this for your app type to serve the tool.
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        pub trait Handler: ::core::marker::Send + ::core::marker::Sync + 'static {
            #( #associated )*
            #call_doc
            fn call(&self, input: Input, #loaded_param cx: Context<'_>) -> impl ::core::future::Future<Output = Outcome> + ::core::marker::Send;
            #( #guard_methods )*
        }

        #loaded_struct

        #( #guard_modules )*

        ::toolspec::__private::bind_handler!(Tool, Handler, #guard_type, [ #( #variants => #methods ),* ] #loaded_binding);
    }
}

/// What the missing-handler note says to write: `call`, the guards, the loaded types.
fn to_write(guards: &[GuardItems]) -> String {
    let list = |items: Vec<String>| match items.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    };
    let methods: Vec<String> = guards.iter().map(|g| format!("`{}`", g.method)).collect();
    let types: Vec<String> = guards
        .iter()
        .filter_map(|g| g.loads.as_ref())
        .map(|l| format!("`{}`", l.1))
        .collect();
    let mut parts = vec!["`call`".to_owned()];
    match methods.len() {
        0 => {}
        1 => parts.push(format!("the guard {}", methods[0])),
        _ => parts.push(format!("the guards {}", list(methods))),
    }
    match types.len() {
        0 => {}
        1 => parts.push(format!("the type {}", types[0])),
        _ => parts.push(format!("the types {}", list(types))),
    }
    list(parts)
}

/// The Rust names of one guard: its variant, its method, and for a guard that answers with
/// a `Result`, its module (`Error`, `Outcome`) and what it loads.
struct GuardItems<'t> {
    tool: &'t Tool,
    guard: &'t GuardDecl,
    variant: Ident,
    /// The `Handler` method, also the guard's module and the variable that holds what it
    /// loaded.
    method: Ident,
    /// The field of `Loaded` and the associated type.
    loads: Option<(Ident, Ident)>,
}

impl<'t> GuardItems<'t> {
    fn new(tool: &'t Tool, guard: &'t GuardDecl) -> Self {
        Self {
            tool,
            guard,
            variant: ident(&type_name(&guard.name.value)),
            method: ident(&value_name(&guard.name.value)),
            loads: guard
                .loads
                .as_ref()
                .map(|l| (ident(&value_name(&l.value)), ident(&type_name(&l.value)))),
        }
    }

    /// The guard's spec name.
    fn name(&self) -> &str {
        &self.guard.name.value
    }

    /// The guard's method of `Handler`: `bool`, or its module's `Outcome` of what it loads.
    fn method(&self) -> TokenStream {
        let doc = doc(Some(&format!("Guard: {}", self.guard.description)));
        let method = &self.method;
        let answer = if !self.guard.answers_with_result() {
            quote! { bool }
        } else if let Some((_, ty)) = &self.loads {
            quote! { #method::Outcome<Self::#ty> }
        } else {
            quote! { #method::Outcome }
        };
        quote! {
            #doc
            fn #method(&self, input: &Input, cx: &Context<'_>) -> impl ::core::future::Future<Output = #answer> + ::core::marker::Send;
        }
    }

    /// The module of a guard that answers with a `Result`: the codes it may fail with
    /// (`Error`) and its `Outcome`.
    fn module(&self) -> TokenStream {
        if !self.guard.answers_with_result() {
            return TokenStream::new();
        }
        let method = &self.method;
        let module_doc = doc(Some(&format!(
            "The guard `{}`: {}",
            self.name(),
            self.guard.description
        )));
        let error = if self.guard.errors.is_empty() {
            quote! {
                /// The codes the guard may fail with: none (its spec lists no `errors`).
                pub type Error = ::toolspec::__private::NoError;
            }
        } else {
            let declared = |code: &str| self.tool.spec.errors.iter().find(|e| e.code.value == code);
            let variants: Vec<Ident> = self
                .guard
                .errors
                .iter()
                .map(|c| ident(&type_name(&c.value)))
                .collect();
            let codes = self.guard.errors.iter().map(|c| c.value.as_str());
            let messages: Vec<&str> = self
                .guard
                .errors
                .iter()
                .map(|c| declared(&c.value).map_or("", |e| e.message.as_str()))
                .collect();
            let docs = messages.iter().map(|m| doc(Some(m)));
            quote! {
                /// The tool's declared codes the guard may fail with; `Display` is the spec's message.
                #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq, ::core::cmp::Eq, ::core::hash::Hash)]
                pub enum Error { #( #docs #variants, )* }
                ::toolspec::__private::declared_errors!(Error { #( #variants = (#codes, #messages) ),* });
            }
        };
        quote! {
            #module_doc
            pub mod #method {
                #error

                /// What the guard answers: what it loaded, or why the call stops.
                pub type Outcome<T = ()> = ::core::result::Result<T, ::toolspec::__private::GuardFailure<Error>>;
            }
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or(text)
}
