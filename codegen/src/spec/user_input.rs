//! What a tool asks its user during a call: `confirm` (approval before it acts) and `ask`
//! (forms for the fields a model left out).

use crate::source::Spanned;

/// `confirm:`: the user approves the call before it acts.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfirmSpec {
    /// What the user is asked: a minijinja template over the arguments.
    pub message: Spanned<String>,
    /// A minijinja expression: the user is asked only when it is true.
    pub when: Option<Spanned<String>>,
}

/// One form of `ask:`: fields the user fills in when the model leaves them out.
#[derive(Debug, Clone, PartialEq)]
pub struct AskSpec {
    /// The form's name (the key of its request in a round trip).
    pub name: Spanned<String>,
    /// What the user is asked.
    pub message: String,
    /// The `expects` fields it asks for, as written.
    pub fields: Vec<Spanned<String>>,
}
