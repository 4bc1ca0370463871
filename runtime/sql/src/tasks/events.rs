//! What wakes task workers: a broadcast channel per database handle, fed by this process's own
//! enqueues, cancels and ends at once and, on PostgreSQL, by every process's enqueues and
//! cancels through the `toolspec_tasks` notification channel, which one listener per handle
//! forwards (reconnecting after a second when the database is lost; workers also look for work
//! every few seconds, so a lost notification delays a task by that much at most).

use tokio::sync::broadcast;
use toolspec_core::storage::TaskEvent;
#[cfg(feature = "postgres")]
use toolspec_core::tasks::TaskId;

use crate::database::Database;

/// The notification channel.
#[cfg(feature = "postgres")]
pub(crate) const CHANNEL: &str = "toolspec_tasks";

/// The payload of a stored task's notification.
#[cfg(feature = "postgres")]
pub(crate) const ENQUEUED: &str = "enqueued";

/// The payload of a cancelled task's notification.
#[cfg(feature = "postgres")]
pub(crate) fn cancelled(id: &TaskId) -> String {
    format!("cancelled:{id}")
}

/// Sends `payload` on the channel (delivered when the transaction commits).
#[cfg(feature = "postgres")]
pub(crate) async fn notify<'e>(
    executor: impl sqlx::PgExecutor<'e>,
    payload: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT pg_notify($1, $2)")
        .bind(CHANNEL)
        .bind(payload)
        .execute(executor)
        .await
        .map(|_| ())
}

/// The event a notification's `payload` says, if any.
#[cfg(feature = "postgres")]
fn parse(payload: &str) -> Option<TaskEvent> {
    if payload == ENQUEUED {
        return Some(TaskEvent::Enqueued);
    }
    let id = payload.strip_prefix("cancelled:")?;
    TaskId::parse(id).ok().map(TaskEvent::Cancelled)
}

impl Database {
    /// The sender of this handle's task events.
    pub(crate) fn task_events(&self) -> &broadcast::Sender<TaskEvent> {
        self.events()
    }

    /// A receiver of the task events from now on; on PostgreSQL, starts the listener once.
    pub(crate) fn subscribe_tasks(&self) -> broadcast::Receiver<TaskEvent> {
        let receiver = self.events().subscribe();
        #[cfg(feature = "postgres")]
        if let crate::database::Pool::Postgres(pool) = self.pool()
            && self.start_listening()
        {
            tokio::spawn(listen(self.downgrade(), pool.clone()));
        }
        receiver
    }
}

/// Forwards the channel's notifications to the handle's events while a handle is held.
#[cfg(feature = "postgres")]
async fn listen(database: crate::database::WeakDatabase, pool: sqlx::PgPool) {
    use std::time::Duration;
    loop {
        let connected = async {
            let mut listener = sqlx::postgres::PgListener::connect_with(&pool).await?;
            listener.listen(CHANNEL).await?;
            Ok::<_, sqlx::Error>(listener)
        }
        .await;
        let mut listener = match connected {
            Ok(listener) => listener,
            Err(e) => {
                tracing::debug!(error = %e, "task notifications: could not listen; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
                if database.upgrade().is_none() {
                    return;
                }
                continue;
            }
        };
        loop {
            let received = tokio::time::timeout(Duration::from_secs(5), listener.recv()).await;
            let Some(handle) = database.upgrade() else {
                return;
            };
            match received {
                Err(_elapsed) => continue,
                Ok(Ok(notification)) => {
                    if let Some(event) = parse(notification.payload()) {
                        let _ = handle.task_events().send(event);
                    }
                }
                Ok(Err(e)) => {
                    tracing::debug!(error = %e, "task notifications: connection lost; reconnecting");
                    break;
                }
            }
        }
    }
}
