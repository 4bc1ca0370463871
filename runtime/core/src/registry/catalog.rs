//! One adapter's members, projected once: sorted by their names on the adapter, found by
//! name, narrowed to what a caller may see, each with the adapter's own declaration of it and
//! the registered tool a call of it goes to. Every adapter holds one (the MCP listing, the
//! function-calling adapters' members, rig's tools) and dispatches through it: the member a
//! caller knows by a name, then [`RegisteredTool::invoke_with`] with
//! [`CallOptions::for_caller`](crate::call::options::CallOptions::for_caller).
//!
//! A catalog declares and finds; it does not call, validate or render (the pipeline does),
//! and it knows no adapter's wire format.

use std::collections::HashMap;

use crate::model::caller::Caller;
use crate::model::descriptor::{Descriptor, SharedDescriptor, Text};
use crate::registry::{RegisteredTool, Registry};
use toolspec_vocab::settings::PresentAs;

/// A member of an adapter with the adapter's declaration of it (`T`: an rmcp `Tool`, a
/// provider's function declaration…).
#[derive(Debug, Clone)]
pub struct Member<T> {
    /// The tool's name on the adapter.
    pub name: Text,
    /// What the build knows about the tool.
    pub descriptor: SharedDescriptor,
    /// How a success is shown (the adapter's `present_as` setting).
    pub present_as: PresentAs,
    /// The adapter's declaration of the tool.
    pub declaration: T,
    /// Where the tool is in the registry the catalog was projected from (`None` in a listing
    /// of descriptors alone).
    slot: Option<usize>,
}

impl<T> Member<T> {
    /// A member with no registry behind it (a listing of descriptors): a call of it looks the
    /// tool up by its canonical name in the registry it goes to.
    pub fn new(
        name: Text,
        descriptor: SharedDescriptor,
        present_as: PresentAs,
        declaration: T,
    ) -> Self {
        Self {
            name,
            descriptor,
            present_as,
            declaration,
            slot: None,
        }
    }

    /// `registered`, a member of `adapter`, as the adapter declares it with `declare` (`None`:
    /// the tool cannot be offered there), with its `present_as` setting on the adapter.
    pub fn of(
        registered: &RegisteredTool<'_>,
        adapter: &str,
        declare: impl FnOnce(&RegisteredTool<'_>) -> Option<T>,
    ) -> Option<Self> {
        let descriptor = registered.descriptor();
        Some(Self {
            name: descriptor.name_text_for(adapter)?,
            descriptor: descriptor.clone(),
            present_as: registered
                .settings(adapter)
                .map(|s| s.present_as())
                .unwrap_or_default(),
            declaration: declare(registered)?,
            slot: Some(registered.slot()),
        })
    }

    /// The registered tool a call of this member goes to in `registry`: found where it was
    /// when the catalog was projected from that registry, else by its canonical name.
    pub fn tool<'r>(&self, registry: &'r Registry) -> Option<RegisteredTool<'r>> {
        self.slot
            .and_then(|slot| registry.at(slot))
            .filter(|tool| std::ptr::eq::<Descriptor>(&**tool.descriptor(), &*self.descriptor))
            .or_else(|| registry.get(&self.descriptor.name))
    }
}

/// Which tools an adapter offers: every member (the default), or those of some modules, or
/// with some tags. A tool is selected when it is in one of the modules (any when none is
/// given) and has one of the tags (any when none is given); the built-in tools (`explain`,
/// `task_status`) always are. A selection narrows what is offered and callable through one
/// adapter; who may call what is the scopes'.
///
/// ```
/// let orders = toolspec_core::Selection::all().in_module("orders").tagged("read");
/// assert!(!orders.is_all());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    modules: Vec<String>,
    tags: Vec<String>,
}

impl Selection {
    /// Every member.
    pub fn all() -> Self {
        Self::default()
    }

    /// Also the tools of `module` (a spec folder: `orders` holds `orders::cancel` and
    /// `orders::admin::purge`; `orders::admin` only the latter).
    pub fn in_module(mut self, module: &str) -> Self {
        self.modules.push(module.trim_matches(':').to_owned());
        self
    }

    /// Also the tools tagged `tag` (their spec's `tags`).
    pub fn tagged(mut self, tag: &str) -> Self {
        self.tags.push(tag.to_owned());
        self
    }

    /// Whether it selects every member.
    pub fn is_all(&self) -> bool {
        self.modules.is_empty() && self.tags.is_empty()
    }

    /// Whether `tool` is selected.
    pub fn admits(&self, tool: &Descriptor) -> bool {
        if tool.module.is_empty() {
            return true; // a built-in tool
        }
        let in_module = self.modules.is_empty()
            || self.modules.iter().any(|m| {
                tool.module == **m
                    || tool
                        .module
                        .strip_prefix(m.as_str())
                        .is_some_and(|rest| rest.starts_with("::"))
            });
        let tagged = self.tags.is_empty()
            || tool
                .tags
                .iter()
                .any(|t| self.tags.iter().any(|s| *s == **t));
        in_module && tagged
    }
}

/// The members of one adapter, sorted by their names there.
#[derive(Debug, Clone)]
pub struct Catalog<T> {
    members: Vec<Member<T>>,
    /// Name on the adapter → position in `members`.
    index: HashMap<Text, usize>,
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
                .tools()
                .filter_map(|registered| Member::of(&registered, adapter, &mut declare)),
        )
    }

    /// These members, sorted by name (a name given twice keeps its first member).
    pub fn new(members: impl IntoIterator<Item = Member<T>>) -> Self {
        let mut members: Vec<Member<T>> = members.into_iter().collect();
        members.sort_by(|a, b| a.name.cmp(&b.name));
        members.dedup_by(|later, earlier| later.name == earlier.name);
        let index = members
            .iter()
            .enumerate()
            .map(|(i, member)| (member.name.clone(), i))
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
            .filter(move |member| caller.is_none_or(|c| c.may_call(&member.descriptor)))
    }

    /// The tools of its members that declare `task:`: those whose tasks a server of this
    /// catalog has its registry's worker run.
    pub fn task_tools(&self) -> impl Iterator<Item = &Descriptor> + '_ {
        self.members
            .iter()
            .map(|member| &*member.descriptor)
            .filter(|descriptor| descriptor.task.is_some())
    }

    /// The member named `name` on the adapter, whoever asks.
    pub fn get(&self, name: &str) -> Option<&Member<T>> {
        self.index.get(name).map(|&i| &self.members[i])
    }

    /// The member `caller` knows as `name`: one it may not call is as unknown as a name
    /// that names nothing.
    pub fn find(&self, name: &str, caller: &Caller) -> Option<&Member<T>> {
        self.get(name)
            .filter(|member| caller.may_call(&member.descriptor))
    }

    /// The member `caller` knows as `name`, with the registered tool in `registry` (the one
    /// this catalog was projected from) that a call of it goes to: where every adapter's
    /// dispatch starts.
    pub fn dispatch<'c, 'r>(
        &'c self,
        registry: &'r Registry,
        name: &str,
        caller: &Caller,
    ) -> Option<(&'c Member<T>, RegisteredTool<'r>)> {
        let member = self.find(name, caller)?;
        Some((member, member.tool(registry)?))
    }

    /// Keeps only the members `selection` admits.
    pub fn retain(&mut self, selection: &Selection) {
        if selection.is_all() {
            return;
        }
        self.members
            .retain(|member| selection.admits(&member.descriptor));
        self.index = self
            .members
            .iter()
            .enumerate()
            .map(|(i, member)| (member.name.clone(), i))
            .collect();
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
