//! A query tool bound to a [`Storage`]: the [`Operation`] the generated `Bound` of a query tool
//! is. It needs no handler: the pipeline has checked the arguments and resolved the scope's
//! ambient fields; this runs the query and hands back the typed page.

use std::marker::PhantomData;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::model::context::Context;
use crate::model::contract::{BoxFuture, Contract, Described, NoGuard, Operation, Outcome};
use crate::model::failure::Failure;
use crate::model::guard::GuardStop;
use crate::storage::Storage;

/// Query tool `C` over a [`Storage`] (the app's database).
pub struct QueryOperation<C> {
    storage: Arc<dyn Storage>,
    tool: PhantomData<fn() -> C>,
}

impl<C> QueryOperation<C> {
    /// `C`, reading from `storage`.
    pub fn new(storage: impl Storage) -> Self {
        Self {
            storage: Arc::new(storage),
            tool: PhantomData,
        }
    }
}

impl<C> Operation for QueryOperation<C>
where
    C: Described + Contract<Guard = NoGuard>,
    C::Input: Serialize,
    C::Ambient: Serialize,
    C::Output: DeserializeOwned,
{
    type Contract = C;

    fn run<'a>(
        &'a self,
        input: C::Input,
        cx: Context<'a, C::Ambient>,
    ) -> BoxFuture<'a, Result<Outcome<C>, GuardStop>> {
        Box::pin(async move { Ok(self.query(input, cx).await) })
    }

    fn guard<'a>(
        &'a self,
        guard: NoGuard,
        _input: &'a C::Input,
        _cx: &'a Context<'a, C::Ambient>,
    ) -> BoxFuture<'a, Result<(), GuardStop>> {
        match guard {}
    }
}

impl<C> QueryOperation<C>
where
    C: Described + Contract<Guard = NoGuard>,
    C::Input: Serialize,
    C::Ambient: Serialize,
    C::Output: DeserializeOwned,
{
    /// Runs the query: the typed page, or why not.
    async fn query(&self, input: C::Input, cx: Context<'_, C::Ambient>) -> Outcome<C> {
        let decl = C::descriptor()
            .query
            .as_ref()
            .ok_or_else(|| Failure::internal(format!("`{}` is not a query tool", C::NAME)))?;
        let object = |value: Result<Value, serde_json::Error>, what: &str| match value {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err(Failure::internal(format!("the {what} is not an object"))),
            Err(e) => Err(Failure::internal(format!(
                "the {what} does not serialize: {e}"
            ))),
        };
        let args = object(serde_json::to_value(&input), "input")?;
        let ambient = object(serde_json::to_value(cx.ambient()), "ambient context")?;
        let page = self
            .storage
            .run_query(decl, &args, &ambient)
            .await
            .map_err(Failure::internal)?;
        serde_json::from_value(page)
            .map_err(|e| Failure::internal(format!("the page does not fit the output: {e}")))
    }
}
