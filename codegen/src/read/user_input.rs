//! `confirm:` and `ask:`: what an action asks its user during a call. Read here, with the
//! checks that need only the spec: templates that compile, forms that name fields the user can
//! fill in. Whether a form's fields fit an elicitation form is derived (and checked) with the
//! schemas.

use toolspec_vocab::user_input::CONFIRM;

use crate::diagnostic::did_you_mean;
use crate::diagnostic::kind::Kind;
use crate::read::reader::{Reader, check_identifier};
use crate::read::yaml::{Node, Value};
use crate::source::Spanned;
use crate::spec::{AskSpec, ConfirmSpec, Field};

/// `confirm:`: a message, or `{ message, when }`.
pub fn read_confirm(r: &mut Reader<'_>, node: &Node) -> Option<ConfirmSpec> {
    let (message, when) = match &node.value {
        Value::Map(entries) => {
            r.check_keys(entries, &["message", "when"], "`confirm`");
            let message = match node.get("message") {
                Some(n) => n,
                None => {
                    r.report(
                        r.error(Kind::MissingKey, node.span, "`confirm` has no `message`")
                            .with_label("no `message`")
                            .with_help("say what the user approves: `message: Cancel order {{ order.id }}?`"),
                    );
                    return None;
                }
            };
            (message, node.get("when"))
        }
        _ => (node, None),
    };
    let message = template(r, message, "`confirm.message`", Check::Template);
    let when = match when {
        Some(n) => Some(template(r, n, "`confirm.when`", Check::Expression)?),
        None => None,
    };
    Some(ConfirmSpec {
        message: message?,
        when,
    })
}

/// What a string must be.
enum Check {
    /// A minijinja template.
    Template,
    /// A minijinja expression.
    Expression,
}

/// A non-empty string at `node` that compiles as `check` says.
fn template(r: &mut Reader<'_>, node: &Node, what: &str, check: Check) -> Option<Spanned<String>> {
    let text = r.non_empty_string(node, what)?;
    let env = minijinja::Environment::new();
    let (compiled, help) = match check {
        Check::Template => (
            env.template_from_str(&text).map(drop),
            "a minijinja template: write values as `{{ order.id }}`, with `{{` and `}}` balanced",
        ),
        Check::Expression => (
            env.compile_expression(&text).map(drop),
            "a minijinja expression over the arguments, like `amount > 10000` or `reason == \"fraud\"`",
        ),
    };
    if let Err(e) = compiled {
        r.report(
            r.error(
                Kind::Template,
                node.span,
                format!("invalid {what}: {}", e.detail().unwrap_or("syntax error")),
            )
            .with_label("does not compile")
            .with_help(help),
        );
        return None;
    }
    Some(Spanned::new(text, node.span))
}

/// `ask:`: form name → a message (the form asks for the field of that name) or
/// `{ message, fields }`.
pub fn read_ask(r: &mut Reader<'_>, node: &Node) -> Vec<AskSpec> {
    let Some(entries) = r.map(node, "`ask`") else {
        return Vec::new();
    };
    let mut forms = Vec::new();
    for (key, value) in entries {
        let Some(name) = check_identifier(r, key, "form name") else {
            continue;
        };
        if name.value == CONFIRM {
            r.report(
                r.error(Kind::Reserved, key.span, "a form cannot be named `confirm`")
                    .with_label("the confirmation's key")
                    .with_help("`confirm` is the key of the tool's confirmation in a round trip: name the form after what it asks"),
            );
            continue;
        }
        let what = format!("form `{}`", name.value);
        let (message, fields) = match &value.value {
            Value::Map(m) => {
                r.check_keys(m, &["message", "fields"], &what);
                let fields = match value.get("fields") {
                    Some(n) => r.string_list(n, &format!("`{what}.fields`")),
                    None => vec![name.clone()],
                };
                let help = Some("say what the user is asked: `message: How many?`");
                let message = r.required_string(value, "message", key.span, &what, help);
                (message, fields)
            }
            _ => (r.non_empty_string(value, &what), vec![name.clone()]),
        };
        if fields.is_empty() {
            r.report(
                r.error(
                    Kind::InvalidValue,
                    value.span,
                    format!("{what} asks for no field"),
                )
                .with_label("empty `fields`")
                .with_help("list the `expects` fields the user fills in"),
            );
            continue;
        }
        if let Some(message) = message {
            forms.push(AskSpec {
                name,
                message,
                fields,
            });
        }
    }
    forms
}

/// Marks the fields `forms` ask for as asked; reports a field that is not in `expects`, that is
/// named twice, or that a user cannot or need not be asked for.
pub fn check_ask_fields(r: &mut Reader<'_>, forms: &[AskSpec], expects: &mut [Field]) {
    let names: Vec<String> = expects.iter().map(|f| f.name.clone()).collect();
    for form in forms {
        for wanted in &form.fields {
            let Some(field) = expects.iter_mut().find(|f| f.name == wanted.value) else {
                r.report(
                    r.error(
                        Kind::UnknownName,
                        wanted.span,
                        format!(
                            "form `{}` asks for `{}`, which is not in `expects`",
                            form.name.value, wanted.value
                        ),
                    )
                    .with_label("no such field")
                    .with_help_opt(
                        did_you_mean(&wanted.value, names.iter().map(String::as_str))
                            .map(|m| format!("did you mean `{m}`?")),
                    ),
                );
                continue;
            };
            let why = if field.asked {
                Some(("asked for twice", "a field belongs to one form of `ask`"))
            } else if field.ambient {
                Some((
                    "an ambient field",
                    "ambient values come from the app's trusted context, never from a user",
                ))
            } else if field.sensitive {
                Some((
                    "a sensitive field",
                    "a form must not ask for secrets (MCP forbids it); take them another way",
                ))
            } else if field.optional || field.default.is_some() {
                Some((
                    "never missing",
                    "a field with `optional` or a `default` is never missing: a form asks for a required field",
                ))
            } else {
                None
            };
            match why {
                Some((label, help)) => r.report(
                    r.error(
                        Kind::Conflict,
                        wanted.span,
                        format!(
                            "form `{}` cannot ask for `{}`",
                            form.name.value, wanted.value
                        ),
                    )
                    .with_label(label)
                    .with_help(help),
                ),
                None => field.asked = true,
            }
        }
    }
}
