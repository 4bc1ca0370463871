//! One dialect pass over a schema: the walk, where it is, and what it moved or refused.

use crate::derive::dialect::text::append_description;
use crate::derive::dialect::text::constraint_sentence;
use crate::schema_tree::Seg;
use crate::schema_tree::for_each_child;
use serde_json::{Map, Value, json};

/// A constraint a dialect states in a description instead of its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    /// Where the keyword was.
    pub path: Vec<Seg>,
    /// The canonical keyword (`maxLength`).
    pub keyword: String,
    /// What happened, when it is more than "stated in the description" (after "DIALECT ").
    pub what: Option<String>,
}

/// Why a dialect cannot express a schema at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// Where (empty: the whole schema).
    pub path: Vec<Seg>,
    /// Why, as a clause ("the type `Tree` contains itself…").
    pub reason: String,
}

/// A dialect's version of a schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Derived {
    /// The schema; `Value::Null` when the provider wants no schema at all (a Gemini function
    /// without parameters carries no `parameters`). Meaningless when there are refusals.
    pub schema: Value,
    /// Constraints moved into descriptions, in walk order.
    pub moved: Vec<Moved>,
    /// Reasons the schema cannot be expressed (empty: it can).
    pub refusals: Vec<Refusal>,
}

impl Derived {
    /// Whether the dialect can express the schema.
    pub fn is_expressible(&self) -> bool {
        self.refusals.is_empty()
    }
}

/// The state of a dialect pass: where the walk is and what it found.
#[derive(Debug, Default)]
pub struct Cx {
    path: Vec<Seg>,
    moved: Vec<Moved>,
    refusals: Vec<Refusal>,
}

impl Cx {
    /// A fresh pass.
    pub fn new() -> Self {
        Self::default()
    }

    /// Removes `keyword` from `node` and states it in the description; true if it was there.
    pub fn move_keyword(&mut self, node: &mut Map<String, Value>, keyword: &str) -> bool {
        let Some(value) = node.remove(keyword) else {
            return false;
        };
        if let Some(sentence) = constraint_sentence(keyword, &value) {
            append_description(node, &sentence);
            self.record(keyword, None);
        }
        true
    }

    /// States `sentence` in `node`'s description on behalf of `keyword` (already handled).
    pub fn state(&mut self, node: &mut Map<String, Value>, keyword: &str, sentence: &str) {
        append_description(node, sentence);
        self.record(keyword, None);
    }

    /// Records a moved keyword with its own account of what happened.
    pub fn record(&mut self, keyword: &str, what: Option<String>) {
        self.moved.push(Moved {
            path: self.path.clone(),
            keyword: keyword.to_owned(),
            what,
        });
    }

    /// The schema being visited cannot be expressed.
    pub fn refuse(&mut self, reason: impl Into<String>) {
        let path = self.path.clone();
        self.refuse_at(path, reason);
    }

    /// The schema at `path` cannot be expressed.
    pub fn refuse_at(&mut self, path: Vec<Seg>, reason: impl Into<String>) {
        let reason = reason.into();
        if !self
            .refusals
            .iter()
            .any(|r| r.path == path && r.reason == reason)
        {
            self.refusals.push(Refusal { path, reason });
        }
    }

    /// Whether anything was refused so far.
    pub fn has_refusals(&self) -> bool {
        !self.refusals.is_empty()
    }

    /// The result of the pass.
    pub fn finish(self, schema: Value) -> Derived {
        Derived {
            schema,
            moved: self.moved,
            refusals: self.refusals,
        }
    }

    pub fn push(&mut self, segs: &[Seg]) {
        self.path.extend(segs.iter().cloned());
    }

    pub fn pop(&mut self, n: usize) {
        self.path.truncate(self.path.len().saturating_sub(n));
    }
}

/// A dialect's rewrite of schema nodes, called by [`walk`] on every schema in the tree.
pub trait Visitor {
    /// Before the node's subschemas are visited: may rewrite or remove them.
    fn enter(&mut self, _node: &mut Map<String, Value>, _cx: &mut Cx) {}
    /// After the node's subschemas are visited.
    fn leave(&mut self, _node: &mut Map<String, Value>, _cx: &mut Cx) {}
}

/// Visits every schema below and including `schema`, depth first, keeping [`Cx::path`].
/// Boolean schemas become their object spelling first (`true` → `{}`, `false` →
/// `{"not": {}}`), so that visitors see every schema as an object.
pub fn walk(schema: &mut Value, visitor: &mut dyn Visitor, cx: &mut Cx) {
    if let Value::Bool(accept) = schema {
        *schema = if *accept {
            json!({})
        } else {
            json!({ "not": {} })
        };
    }
    let Value::Object(node) = schema else { return };
    visitor.enter(node, cx);
    for_each_child(node, &mut |segs, child| {
        cx.push(segs);
        walk(child, visitor, cx);
        cx.pop(segs.len());
    });
    visitor.leave(node, cx);
}
