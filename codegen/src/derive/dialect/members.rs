//! Every tool's member dialects, derived from its canonical schema, with a warning for each
//! constraint moved into a description and an error for each schema a member cannot express.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use toolspec_vocab::Dialect;
use toolspec_vocab::settings::Settings;

use crate::analyze::checked::Checked;
use crate::analyze::membership::Binding;
use crate::derive::dialect::anthropic;
use crate::derive::dialect::locate::{Location, locate};
use crate::derive::dialect::pass::{Moved, Refusal};
use crate::diagnostic::Diagnostic;
use crate::diagnostic::kind::Kind;
use crate::spec::{ProjectConfig, Types};

/// The dialect a tool is shown in on `binding`'s adapter, by its effective settings there.
pub fn binding_dialect(binding: &Binding, config: &ProjectConfig) -> Dialect {
    match config.adapter(&binding.adapter) {
        Some(adapter) => Dialect::for_member(
            &binding.adapter,
            &Settings::new(&adapter.decl, &binding.settings),
        ),
        None => Dialect::Mcp,
    }
}

/// The dialects a tool with these bindings is a member of: one per binding, and always `mcp`.
pub fn member_dialects(bindings: &[Binding], config: &ProjectConfig) -> BTreeSet<Dialect> {
    let mut out: BTreeSet<Dialect> = bindings
        .iter()
        .map(|b| binding_dialect(b, config))
        .collect();
    out.insert(Dialect::Mcp);
    out
}

/// Anthropic's per-request limit of strict tools.
const ANTHROPIC_STRICT_TOOLS: usize = 20;

/// What makes two warnings the same: dialect, file, line and column, keyword, field.
type WarningKey = (Dialect, String, Option<(u32, u32)>, String, String);

/// Every tool's member dialects (but `mcp`, the canonical schema itself), derived from its
/// canonical input schema (`inputs`, one per tool); constraints moved into descriptions become
/// warnings, schemas a member dialect cannot express become errors.
pub fn member_schemas(
    tools: &[Checked],
    inputs: &[&Value],
    config: &ProjectConfig,
    types: &Types,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<BTreeMap<Dialect, Value>> {
    let members = |tool: &Checked| member_dialects(&tool.bindings, config);
    dialect_schemas(tools, inputs, config, types, diagnostics, members)
}

/// [`member_schemas`] in the dialects `dialects_of` gives each tool, whether or not it is a
/// member of them (a preview of strict mode derives the strict dialect of every member of the
/// adapter).
pub fn dialect_schemas(
    tools: &[Checked],
    inputs: &[&Value],
    config: &ProjectConfig,
    types: &Types,
    diagnostics: &mut Vec<Diagnostic>,
    dialects_of: impl Fn(&Checked) -> BTreeSet<Dialect>,
) -> Vec<BTreeMap<Dialect, Value>> {
    // One warning per (dialect, place, keyword, field), noting every tool it concerns when the
    // place is in a types file.
    let mut warned: BTreeMap<WarningKey, usize> = BTreeMap::new();
    let mut warnings: Vec<(Diagnostic, Vec<String>)> = Vec::new();
    let mut anthropic_strict: Vec<(String, usize, usize)> = Vec::new();
    let mut out = Vec::with_capacity(tools.len());
    for (tool, input) in tools.iter().zip(inputs) {
        let mut dialects = BTreeMap::new();
        for dialect in dialects_of(tool) {
            let derived = crate::derive::dialect::derive(dialect, input);
            let accepted = config.fallbacks.accepts(dialect);
            for moved in derived.moved.iter().filter(|_| !accepted) {
                let at = locate(&tool.spec, types, &moved.path);
                let key = (
                    dialect,
                    at.file.clone(),
                    at.span.map(|s| (s.start.line, s.start.col)),
                    moved.keyword.clone(),
                    at.display.clone(),
                );
                let index = *warned.entry(key).or_insert_with(|| {
                    warnings.push((moved_warning(dialect, moved, &at, tool), Vec::new()));
                    warnings.len() - 1
                });
                let users = &mut warnings[index].1;
                if at.file != tool.spec.file && !users.contains(&tool.name) {
                    users.push(tool.name.clone());
                }
            }
            for refusal in &derived.refusals {
                let at = locate(&tool.spec, types, &refusal.path);
                diagnostics.push(refusal_error(dialect, refusal, &at, tool));
            }
            if dialect == Dialect::AnthropicStrict && derived.is_expressible() {
                let (optional, unions) = anthropic::parameter_counts(&derived.schema);
                anthropic_strict.push((tool.spec.file.clone(), optional, unions));
            }
            // `mcp` is the canonical schema itself: the descriptor does not repeat it.
            if derived.is_expressible() && dialect != Dialect::Mcp {
                dialects.insert(dialect, derived.schema);
            }
        }
        out.push(dialects);
    }
    for (mut warning, users) in warnings {
        if !users.is_empty() {
            let quoted: Vec<String> = users.iter().map(|u| format!("`{u}`")).collect();
            let plural = if users.len() == 1 { "" } else { "s" };
            warning = warning.with_note(format!("used by tool{plural} {}", quoted.join(", ")));
        }
        diagnostics.push(warning);
    }
    if let Some((file, _, _)) = anthropic_strict.get(ANTHROPIC_STRICT_TOOLS) {
        diagnostics.push(
            Diagnostic::warning(Kind::Dialect, file.clone(),
                None,
                format!(
                    "{} tools use Anthropic strict mode, but one request may carry at most {ANTHROPIC_STRICT_TOOLS} strict tools",
                    anthropic_strict.len()
                ),)
            .with_help("send a subset of the tools per request, or turn `strict` off for some of them"),
        );
    }
    let optional: usize = anthropic_strict.iter().map(|t| t.1).sum();
    let unions: usize = anthropic_strict.iter().map(|t| t.2).sum();
    if let Some((file, _, _)) = anthropic_strict.first()
        && anthropic_strict.len() > 1
        && (optional > anthropic::MAX_OPTIONAL || unions > anthropic::MAX_UNIONS)
    {
        diagnostics.push(
            Diagnostic::warning(Kind::Dialect, file.clone(),
                None,
                format!(
                    "the tools in Anthropic strict mode have {optional} optional parameters and {unions} parameters with `anyOf` or type lists; one request may carry at most {} and {}",
                    anthropic::MAX_OPTIONAL,
                    anthropic::MAX_UNIONS
                ),)
            .with_help("send a subset of the tools per request, or turn `strict` off for some of them"),
        );
    }
    out
}

fn moved_warning(dialect: Dialect, moved: &Moved, at: &Location, tool: &Checked) -> Diagnostic {
    let field = if at.display.is_empty() {
        format!("tool `{}`", tool.name)
    } else {
        format!("`{}`", at.display)
    };
    let message = match &moved.what {
        Some(what) => format!("{dialect} {}", what.replace("`{}`", &field)),
        None => format!(
            "{dialect} cannot express `{}` of {field}; it is stated in the description instead",
            moved.keyword
        ),
    };
    Diagnostic::warning(Kind::Dialect, at.file.clone(), at.span, message).with_fallback(dialect)
}

fn refusal_error(dialect: Dialect, refusal: &Refusal, at: &Location, tool: &Checked) -> Diagnostic {
    let subject = if at.display.is_empty() {
        format!("tool `{}`", tool.name)
    } else {
        format!("`{}`", at.display)
    };
    let mut d = Diagnostic::error(
        Kind::Dialect,
        at.file.clone(),
        at.span,
        format!(
            "{subject} cannot be expressed in {dialect}: {}",
            refusal.reason
        ),
    );
    if at.span.is_some() {
        d.label = Some(format!("not expressible in {dialect}"));
    }
    if at.file != tool.spec.file {
        let mode = if dialect.is_strict() {
            ", in strict mode"
        } else {
            ""
        };
        d = d.with_note(format!(
            "tool `{}` ({}) is a member of {}{mode}",
            tool.name,
            tool.spec.file,
            dialect.adapter()
        ));
    }
    let what = if at.display.is_empty() {
        "tool"
    } else {
        "field"
    };
    d.with_help(match dialect {
        Dialect::OpenAiStrict | Dialect::AnthropicStrict => format!(
            "change the {what}, or turn strict mode off for this tool: `tool: {{ {}: {{ strict: false }} }}`",
            dialect.adapter()
        ),
        _ => format!(
            "change the {what}, or leave the tool out of {0}: `tool: {{ except: [{0}] }}`",
            dialect.adapter()
        ),
    })
}
