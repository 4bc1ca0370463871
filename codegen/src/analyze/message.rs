//! A tool's success `message`: a template that compiles.

use crate::diagnostic::kind::Kind;
use crate::read::reader::Reader;
use crate::spec::ToolSpec;

pub fn check_message(r: &mut Reader<'_>, spec: &ToolSpec) {
    let Some(message) = &spec.message else { return };
    let env = minijinja::Environment::new();
    if let Err(e) = env.template_from_str(&message.value) {
        r.report(r.error(Kind::Template, message.span,
            format!(
                "invalid `message` template: {}",
                e.detail().unwrap_or("syntax error")
            ),).with_label("does not compile").with_help("the message is a minijinja template: write values as `{{ order.id }}`, with `{{` and `}}` balanced"));
    }
}
