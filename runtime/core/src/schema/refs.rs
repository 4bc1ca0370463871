//! Local `$ref`s: resolving one against its root document, and the table a compiled plan
//! keeps of the plans of the targets it refers to (each compiled once, a recursive type
//! referring to itself by index), with the bounded way back from a reference to a plan.

use std::collections::HashMap;

use serde_json::Value;

/// The target of the local reference `reference` (`#` itself, `#/$defs/Name`, any JSON
/// pointer into `root`); `None` for a reference that is not local or points nowhere.
pub(crate) fn resolve<'s>(root: &'s Value, reference: &str) -> Option<&'s Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

/// The plans of the `$ref` targets a compiled plan refers to, by index.
#[derive(Debug)]
pub(crate) struct Refs<'s, P> {
    /// Reference → index in `plans`.
    indices: HashMap<&'s str, usize>,
    plans: Vec<P>,
}

impl<P: Default> Refs<'_, P> {
    pub(crate) fn new() -> Self {
        Self {
            indices: HashMap::new(),
            plans: Vec::new(),
        }
    }
}

impl<'s, P: Default> Refs<'s, P> {
    /// The index of `reference`'s plan, if it has one (or is being compiled).
    pub(crate) fn get(&self, reference: &str) -> Option<usize> {
        self.indices.get(reference).copied()
    }

    /// Gives `reference` an index before its target is compiled, so that the target finds it
    /// when it refers to itself; its plan is [`set`](Self::set) once compiled.
    pub(crate) fn reserve(&mut self, reference: &'s str) -> usize {
        let index = self.plans.len();
        self.plans.push(P::default());
        self.indices.insert(reference, index);
        index
    }

    /// The compiled plan of the reference at `index`.
    pub(crate) fn set(&mut self, index: usize, plan: P) {
        self.plans[index] = plan;
    }

    /// The plans, by index.
    pub(crate) fn into_plans(self) -> Vec<P> {
        self.plans
    }
}

/// The first plan along a chain of references from `plan` that is not itself a reference
/// (`reference` says where a plan refers to, if it does); `None` for a chain that never
/// reaches one (references that only refer to each other).
pub(crate) fn follow<'p, P>(
    plans: &'p [P],
    mut plan: &'p P,
    reference: impl Fn(&P) -> Option<usize>,
) -> Option<&'p P> {
    for _ in 0..=plans.len() {
        match reference(plan) {
            Some(index) => plan = plans.get(index)?,
            None => return Some(plan),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn local_references_resolve_against_the_root() {
        let root = json!({"$defs": {"A": {"type": "integer"}, "a/b": true}});
        assert_eq!(resolve(&root, "#"), Some(&root));
        assert_eq!(
            resolve(&root, "#/$defs/A"),
            Some(&json!({"type": "integer"}))
        );
        assert_eq!(resolve(&root, "#/$defs/a~1b"), Some(&json!(true)));
        assert_eq!(resolve(&root, "#/$defs/B"), None);
        assert_eq!(resolve(&root, "other.json#/A"), None);
    }

    #[derive(Debug, Default, PartialEq)]
    enum Plan {
        #[default]
        Skip,
        Leaf(u8),
        Ref(usize),
    }

    #[test]
    fn a_chain_of_references_ends_at_a_plan_or_nowhere() {
        let reference = |plan: &Plan| match plan {
            Plan::Ref(index) => Some(*index),
            _ => None,
        };
        let plans = [Plan::Ref(1), Plan::Leaf(7), Plan::Ref(3), Plan::Ref(2)];
        assert_eq!(follow(&plans, &plans[0], reference), Some(&Plan::Leaf(7)));
        assert_eq!(follow(&plans, &plans[2], reference), None, "a loop");
        let mut refs: Refs<'_, Plan> = Refs::new();
        assert_eq!(refs.get("#/a"), None);
        let index = refs.reserve("#/a");
        assert_eq!(refs.get("#/a"), Some(index));
        refs.set(index, Plan::Leaf(1));
        assert_eq!(refs.into_plans(), [Plan::Leaf(1)]);
    }
}
