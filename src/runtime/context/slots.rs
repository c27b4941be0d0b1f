//! Typed slots: what ops keep with a context ([`Ctx::op_state`]) or were given through
//! its builder ([`CtxBuilder::option`](super::CtxBuilder::option)), one value per type.
//! The runtime stores them and never looks inside, so it names no op.

use std::fmt;
use std::sync::{Arc, Mutex};

use super::Ctx;

/// Values of any types, one per type: what ops keep with a context or its builder. The
/// runtime stores them and never looks inside.
#[derive(Clone, Default)]
pub(crate) struct TypeSlots(
    Arc<Mutex<std::collections::HashMap<std::any::TypeId, Arc<dyn std::any::Any + Send + Sync>>>>,
);

impl TypeSlots {
    fn get<S: Send + Sync + 'static>(&self) -> Option<Arc<S>> {
        let map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let any = Arc::clone(map.get(&std::any::TypeId::of::<S>())?);
        any.downcast::<S>().ok()
    }

    fn get_or_default<S: Default + Send + Sync + 'static>(&self) -> Arc<S> {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let any = map
            .entry(std::any::TypeId::of::<S>())
            .or_insert_with(|| Arc::new(S::default()));
        Arc::clone(any)
            .downcast::<S>()
            .unwrap_or_else(|_| unreachable!("slots are keyed by their type"))
    }

    /// A copy whose map is its own (a builder's options, given to a new context).
    pub(super) fn detached(&self) -> TypeSlots {
        let map = self.0.lock().unwrap_or_else(|p| p.into_inner()).clone();
        TypeSlots(Arc::new(Mutex::new(map)))
    }

    pub(super) fn set<S: Send + Sync + 'static>(&mut self, value: S) {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        map.insert(std::any::TypeId::of::<S>(), Arc::new(value));
    }
}

impl fmt::Debug for TypeSlots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        write!(f, "TypeSlots({} values)", map.len())
    }
}

impl Ctx {
    /// The state of type `S` an op keeps with this context (and its clones), made by
    /// `S::default()` on first use: what the op learns at run time, such as a measured
    /// choice. Each op's state is a type of its own module.
    pub(crate) fn op_state<S: Default + Send + Sync + 'static>(&self) -> Arc<S> {
        self.inner.op_state.get_or_default()
    }

    /// The option of type `S` the builder was given
    /// ([`CtxBuilder::option`](super::CtxBuilder::option)), if any.
    pub(crate) fn option<S: Send + Sync + 'static>(&self) -> Option<Arc<S>> {
        self.inner.options.get()
    }
}
