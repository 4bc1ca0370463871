//! One adapter's members, projected once: sorted by their names on the adapter, found by
//! name, narrowed to what a caller may see. The MCP listing and the function-calling adapters
//! each hold one, with their own declaration of every member.

use std::collections::HashMap;

use crate::caller::Caller;
use crate::descriptor::Descriptor;
use crate::registry::{RegisteredTool, Registry};
use toolspec_vocab::settings::PresentAs;

/// A member of an adapter with the adapter's declaration of it (`T`: an rmcp `Tool`, a
/// provider's function declaration…).
#[derive(Debug, Clone)]
pub struct Member<T> {
    /// The tool's name on the adapter.
    pub name: &'static str,
    /// What the build knows about the tool.
    pub descriptor: &'static Descriptor,
    /// How a success is shown (the adapter's `present_as` setting).
    pub present_as: PresentAs,
    /// The adapter's declaration of the tool.
    pub declaration: T,
}

/// The members of one adapter, sorted by their names there.
#[derive(Debug, Clone)]
pub struct Catalog<T> {
    members: Vec<Member<T>>,
    /// Name on the adapter → position in `members`.
    index: HashMap<&'static str, usize>,
}

impl<T> Default for Catalog<T> {
    fn default() -> Self {
        Self {
            members: Vec::new(),
            index: HashMap::new(),
        }
    }
}

impl<T> Catalog<T> {
    /// Every member of `adapter` in `registry` that `declare` declares (`None`: the tool
    /// cannot be offered there), with its `present_as` setting on the adapter.
    pub fn of(
        registry: &Registry,
        adapter: &str,
        mut declare: impl FnMut(&RegisteredTool<'_>) -> Option<T>,
    ) -> Self {
        Self::new(
            registry
                .tools_for(adapter)
                .into_iter()
                .filter_map(|registered| {
                    let descriptor = registered.descriptor();
                    Some(Member {
                        name: descriptor.name_for(adapter)?,
                        descriptor,
                        present_as: registered
                            .settings(adapter)
                            .map(|s| s.present_as())
                            .unwrap_or_default(),
                        declaration: declare(&registered)?,
                    })
                }),
        )
    }

    /// These members, sorted by name (a name given twice keeps its first member).
    pub fn new(members: impl IntoIterator<Item = Member<T>>) -> Self {
        let mut members: Vec<Member<T>> = members.into_iter().collect();
        members.sort_by(|a, b| a.name.cmp(b.name));
        members.dedup_by(|later, earlier| later.name == earlier.name);
        let index = members
            .iter()
            .enumerate()
            .map(|(i, member)| (member.name, i))
            .collect();
        Self { members, index }
    }

    /// The members `caller` may see (every one without a caller), sorted by name.
    pub fn visible<'a>(
        &'a self,
        caller: Option<&'a Caller>,
    ) -> impl Iterator<Item = &'a Member<T>> + 'a {
        self.members
            .iter()
            .filter(move |member| caller.is_none_or(|c| c.may_call(member.descriptor)))
    }

    /// The member named `name` on the adapter, whoever asks.
    pub fn get(&self, name: &str) -> Option<&Member<T>> {
        self.index.get(name).map(|&i| &self.members[i])
    }

    /// The member `caller` knows as `name`: one it may not call is as unknown as a name
    /// that names nothing.
    pub fn find(&self, name: &str, caller: &Caller) -> Option<&Member<T>> {
        self.get(name)
            .filter(|member| caller.may_call(member.descriptor))
    }

    /// How many members there are.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}
