//! One tool's module: its types, the `Handler` trait, the marker type and the descriptor,
//! written as formatted source (`code`).

use crate::emit::code::Code;
use crate::emit::literal::string;
use crate::emit::named_types::supers;
use crate::emit::types::{TypeGen, UNIT_ENUM_DERIVES, unit_enum};
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

/// The module of `tool`, `depth` modules below the generated file's root, written at the
/// root's indentation; `descriptor` is its `DESCRIPTOR` item, written out.
pub fn tool_module(tool: &Tool, depth: usize, shapes: &Shapes, descriptor: &str) -> String {
    let spec = &tool.spec;
    let module = ident(tool.module.last().map(String::as_str).unwrap_or("tool"));
    let types_path = format!("{}types", supers(depth));
    let mut types_gen = TypeGen::new(Some(types_path), RESERVED, shapes, &spec.file);
    let ambient: Vec<&Field> = spec.expects.iter().filter(|f| f.ambient).collect();
    if spec.query.is_some() {
        query_inputs(&mut types_gen, tool);
    } else {
        let inputs = with_ref_records(&mut types_gen, spec.expects.iter().filter(|f| !f.ambient));
        let inputs: Vec<&Field> = inputs.iter().collect();
        types_gen.structure("Input", Some(INPUT_DOC), &inputs, "Input");
    }
    types_gen.structure(
        "Ambient",
        Some("Fields resolved from the trusted ambient context, never from the model."),
        &ambient,
        "Ambient",
    );
    if spec.query.is_some() {
        query_outputs(&mut types_gen, tool);
    } else {
        let outputs: Vec<&Field> = spec.exposes.iter().collect();
        types_gen.structure("Output", Some(OUTPUT_DOC), &outputs, "Output");
    }

    let guard_variants: Vec<String> = spec
        .guards
        .iter()
        .map(|g| format!("Guard::{}", ident(&type_name(&g.name.value))))
        .collect();
    let guard_type = match spec.guards.is_empty() {
        true => "::toolspec::__private::NoGuard",
        false => "Guard",
    };
    let mut code = Code::new();
    code.doc(Some(&spec.description));
    code.open(&format!("pub mod {module} {{"));
    code.block(&format!(
        r#"/// The tool's marker type: its name, types and descriptor.
#[derive(
    ::core::fmt::Debug,
    ::core::clone::Clone,
    ::core::marker::Copy,
    ::core::default::Default
)]
pub struct Tool;
impl ::toolspec::__private::Contract for Tool {{
    type Input = Input;
    type Ambient = Ambient;
    type Output = Output;
    type Error = Error;
    type Guard = {guard_type};
    const GUARDS: &'static [{guard_type}] = &[{variants}];
}}
impl ::toolspec::__private::Described for Tool {{
    const NAME: &'static str = {name};
    fn descriptor() -> &'static ::toolspec::__private::Descriptor {{
        &DESCRIPTOR
    }}
}}"#,
        variants = guard_variants.join(", "),
        name = string(&tool.name),
    ));
    for item in &types_gen.items {
        code.block(item);
    }
    let errors: Vec<(&str, &str)> = spec
        .errors
        .iter()
        .map(|e| (e.code.value.as_str(), e.message.as_str()))
        .collect();
    code.doc(Some(
        "The tool's declared error codes; `Display` is the spec's message.",
    ));
    error_enum(&mut code, &errors);
    if !spec.guards.is_empty() {
        code.doc(Some(
            "The tool's guards, in spec order: each is run by its method of [`Handler`].",
        ));
        code.block(UNIT_ENUM_DERIVES);
        let variants: Vec<(String, Option<&str>)> = spec
            .guards
            .iter()
            .map(|g| {
                (
                    ident(&type_name(&g.name.value)).to_string(),
                    Some(g.description.as_str()),
                )
            })
            .collect();
        unit_enum(&mut code, "Guard", &variants);
    }
    code.block(
        "/// What the handler returns.
pub type Outcome = ::core::result::Result<Output, ::toolspec::__private::Failure<Error>>;
/// The handler's view of the call.
pub type Context<'a> = ::toolspec::__private::Context<'a, Ambient>;",
    );
    if spec.query.is_some() {
        code.block(
            "/// The tool bound to a database: what the registry runs. A query tool needs no
/// handler code.
#[doc(hidden)]
pub type Bound = ::toolspec::__private::QueryOperation<Tool>;",
        );
    } else {
        handler_trait(&mut code, tool);
    }
    code.block(descriptor);
    code.close("}");
    code.finish()
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
            field.rust_type = Some(Spanned::new(name, field.span));
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
        "Filters",
        Some("The filters the model may send, all optional."),
        &filters,
        "Input",
    );
    types_gen.structure_with(
        "Input",
        Some("The model-facing input: the filters, then the sort and the page."),
        "/// The filters.\n#[serde(flatten)]\npub filters: Filters,",
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
        "Record",
        Some("One record: the columns the query returns."),
        &record_fields,
        "Record",
    );
    types_gen.structure_with(
        "Output",
        Some("One page of records."),
        "/// The records of this page.\npub records: ::std::vec::Vec<Record>,",
        &rest,
        "Output",
    );
}

/// An enum of error codes (after its doc): `(code, message)` each, `Display` the message.
fn error_enum(code: &mut Code, errors: &[(&str, &str)]) {
    let variants: Vec<(String, Option<&str>)> = errors
        .iter()
        .map(|(c, message)| (ident(&type_name(c)).to_string(), Some(*message)))
        .collect();
    code.block(UNIT_ENUM_DERIVES);
    unit_enum(code, "Error", &variants);
    let entries: Vec<String> = variants
        .iter()
        .zip(errors)
        .map(|((variant, _), (c, message))| {
            format!("{variant} = ({}, {})", string(c), string(message))
        })
        .collect();
    code.macro_call("::toolspec::__private::declared_errors", "Error", &entries);
}

/// The `Handler` trait, and what it needs: `Loaded`, the guards' modules, the binding.
fn handler_trait(code: &mut Code, tool: &Tool) {
    let spec = &tool.spec;
    let message = format!("`{{Self}}` does not handle tool `{}`", tool.name);
    let label = format!("missing a handler for `{}`", tool.name);
    let module_path = tool.module.join("::");
    let guards: Vec<GuardItems> = spec
        .guards
        .iter()
        .map(|g| GuardItems::new(tool, g))
        .collect();
    let loads: Vec<(&GuardItems, &(String, String))> = guards
        .iter()
        .filter_map(|g| Some((g, g.loads.as_ref()?)))
        .collect();
    // `tools` is the module `include_tools!()` declares unless the app names another.
    let note = format!(
        "implement `tools::{module_path}::Handler` for `{{Self}}`: {} (spec: {})",
        to_write(&guards),
        spec.path
    );
    code.doc(Some("Implement this for your app type to serve the tool."));
    code.block(&format!(
        "#[diagnostic::on_unimplemented(\n    message = {},\n    label = {},\n    note = {}\n)]",
        string(&message),
        string(&label),
        string(&note)
    ));
    code.open("pub trait Handler: ::core::marker::Send + ::core::marker::Sync + 'static {");
    for (guard, (_, ty)) in &loads {
        code.doc(Some(&format!(
            "What the guard `{}` loads for [`Handler::call`] (in [`Loaded`]).",
            guard.name()
        )));
        code.line(&format!("type {ty}: ::core::marker::Send + 'static;"));
    }
    code.doc(Some(&format!(
        "Runs `{}`: {}",
        tool.name,
        first_line(&spec.description)
    )));
    let loaded_param = if loads.is_empty() {
        ""
    } else {
        "    loaded: Loaded<Self>,\n"
    };
    code.block(&format!(
        "fn call(\n    &self,\n    input: Input,\n{loaded_param}    cx: Context<'_>,\n) -> impl ::core::future::Future<Output = Outcome> + ::core::marker::Send;"
    ));
    for guard in &guards {
        guard.method(code);
    }
    code.close("}");
    let mut loaded_binding = String::new();
    if !loads.is_empty() {
        code.doc(Some(
            "What the guards loaded, handed to [`Handler::call`] once every guard passed.",
        ));
        code.open("pub struct Loaded<H: Handler + ?::core::marker::Sized> {");
        for (guard, (field, ty)) in &loads {
            code.doc(Some(&format!("Loaded by the guard `{}`.", guard.name())));
            code.line(&format!("pub {field}: H::{ty},"));
        }
        code.close("}");
        let fields: Vec<String> = loads
            .iter()
            .map(|(guard, (field, _))| format!("{field}: {}", guard.method))
            .collect();
        loaded_binding = format!(", loaded: Loaded {{ {} }}", fields.join(", "));
    }
    for guard in &guards {
        guard.module(code);
    }
    let guard_type = match guards.is_empty() {
        true => "::toolspec::__private::NoGuard",
        false => "Guard",
    };
    let bound: Vec<String> = guards
        .iter()
        .map(|g| format!("Guard::{} => {}", g.variant, g.method))
        .collect();
    code.line(&format!(
        "::toolspec::__private::bind_handler!(Tool, Handler, {guard_type}, [{}]{loaded_binding});",
        bound.join(", ")
    ));
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
        .map(|(_, ty)| format!("`{ty}`"))
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
    variant: String,
    /// The `Handler` method, also the guard's module and the variable that holds what it
    /// loaded.
    method: String,
    /// The field of `Loaded` and the associated type.
    loads: Option<(String, String)>,
}

impl<'t> GuardItems<'t> {
    fn new(tool: &'t Tool, guard: &'t GuardDecl) -> Self {
        Self {
            tool,
            guard,
            variant: ident(&type_name(&guard.name.value)).to_string(),
            method: ident(&value_name(&guard.name.value)).to_string(),
            loads: guard.loads.as_ref().map(|l| {
                let field = ident(&value_name(&l.value)).to_string();
                (field, ident(&type_name(&l.value)).to_string())
            }),
        }
    }

    /// The guard's spec name.
    fn name(&self) -> &str {
        &self.guard.name.value
    }

    /// The guard's method of `Handler`: `bool`, or its module's `Outcome` of what it loads.
    fn method(&self, code: &mut Code) {
        let method = &self.method;
        let answer = if !self.guard.answers_with_result() {
            "bool".to_owned()
        } else if let Some((_, ty)) = &self.loads {
            format!("{method}::Outcome<Self::{ty}>")
        } else {
            format!("{method}::Outcome")
        };
        code.doc(Some(&format!("Guard: {}", self.guard.description)));
        code.block(&format!(
            "fn {method}(\n    &self,\n    input: &Input,\n    cx: &Context<'_>,\n) -> impl ::core::future::Future<Output = {answer}> + ::core::marker::Send;"
        ));
    }

    /// The module of a guard that answers with a `Result`: the codes it may fail with
    /// (`Error`) and its `Outcome`.
    fn module(&self, code: &mut Code) {
        if !self.guard.answers_with_result() {
            return;
        }
        code.doc(Some(&format!(
            "The guard `{}`: {}",
            self.name(),
            self.guard.description
        )));
        code.open(&format!("pub mod {} {{", self.method));
        if self.guard.errors.is_empty() {
            code.block(
                "/// The codes the guard may fail with: none (its spec lists no `errors`).
pub type Error = ::toolspec::__private::NoError;",
            );
        } else {
            let declared = |c: &str| self.tool.spec.errors.iter().find(|e| e.code.value == c);
            let errors: Vec<(&str, &str)> = self
                .guard
                .errors
                .iter()
                .map(|c| {
                    let message = declared(&c.value).map_or("", |e| e.message.as_str());
                    (c.value.as_str(), message)
                })
                .collect();
            code.doc(Some(
                "The tool's declared codes the guard may fail with; `Display` is the spec's message.",
            ));
            error_enum(code, &errors);
        }
        code.block(
            "/// What the guard answers: what it loaded, or why the call stops.
pub type Outcome<T = ()> = ::core::result::Result<T, ::toolspec::__private::GuardFailure<Error>>;",
        );
        code.close("}");
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or(text)
}
