//! What is known about a tool at build time, embedded as static data by the generated code: the
//! vocabulary's descriptor model (one definition for the compiler, the generated code, the
//! runtime and the CLI), re-exported, with everything it declares — each adapter's binding,
//! the error codes and guards, what a query tool (`kind: query`) and a `ref` field read (with
//! the query words: column types, filter operators), how the call's audit record is written,
//! `once` (an idempotency key) and `lock` (an advisory lock), and whether it runs as a durable
//! task (`task`).
//!
//! An app reads a descriptor ([`RegisteredTool::descriptor`](crate::RegisteredTool::descriptor));
//! only the compiler writes one. A registry holds each as a [`SharedDescriptor`]: a generated
//! tool's `static`, or one built at run time, which the registry owns rather than leaks.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

pub use toolspec_vocab::audit::{AuditConfig, AuditPolicy, Durability};
pub use toolspec_vocab::descriptor::query::{
    FilterColumn, PageLimit, QueryDecl, QueryView, RecordColumn, RefDecl, ScopeColumn,
};
pub use toolspec_vocab::descriptor::{
    AdapterBinding, AskForm, Confirm, Descriptor, ErrorCode, Field, Guard, LockDecl, OnceDecl,
    RateLimit, ResultCap, TaskDecl, TaskSupport, Text, ToolKind,
};
pub use toolspec_vocab::query::{ColumnType, FilterOp};

#[doc(hidden)]
pub use toolspec_vocab::descriptor::DescriptorParts;

/// A tool's descriptor as a registry holds it, and as whatever keeps it past a call keeps it
/// (an adapter's listing, a hook, a `once` claim): one the generated code baked (a `static`,
/// which costs nothing to clone), or one the compiler built at run time (`toolspec::inline`),
/// shared and freed with its last holder. It reads as the [`Descriptor`] it derefs to.
#[derive(Clone)]
pub struct SharedDescriptor(Held);

/// Where a [`SharedDescriptor`] is.
#[derive(Clone)]
enum Held {
    /// Baked into the generated code.
    Baked(&'static Descriptor),
    /// Built at run time.
    Built(Arc<Descriptor>),
}

impl Deref for SharedDescriptor {
    type Target = Descriptor;

    fn deref(&self) -> &Descriptor {
        match &self.0 {
            Held::Baked(descriptor) => descriptor,
            Held::Built(descriptor) => descriptor,
        }
    }
}

impl fmt::Debug for SharedDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// A baked descriptor (a generated tool's `static`): no allocation, no reference count.
impl From<&'static Descriptor> for SharedDescriptor {
    fn from(descriptor: &'static Descriptor) -> Self {
        Self(Held::Baked(descriptor))
    }
}

/// A descriptor built at run time, shared from now on.
impl From<Descriptor> for SharedDescriptor {
    fn from(descriptor: Descriptor) -> Self {
        Self(Held::Built(Arc::new(descriptor)))
    }
}

/// A descriptor built at run time, already shared.
impl From<Arc<Descriptor>> for SharedDescriptor {
    fn from(descriptor: Arc<Descriptor>) -> Self {
        Self(Held::Built(descriptor))
    }
}

/// The descriptor as an `Arc`: the one a built descriptor is shared in, a copy of a baked one.
impl From<SharedDescriptor> for Arc<Descriptor> {
    fn from(descriptor: SharedDescriptor) -> Self {
        match descriptor.0 {
            Held::Baked(descriptor) => Arc::new(descriptor.clone()),
            Held::Built(descriptor) => descriptor,
        }
    }
}
