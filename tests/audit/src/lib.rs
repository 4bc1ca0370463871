//! A crate whose tool `vault_keep` carries `sensitive` values at every depth — a plain
//! field, inside a named type in an array, in a map's values, in each variant of a tagged
//! union, in the ambient context — and shows them back in its output, so the audit trail's
//! redaction can be checked against generated values; `vault_note` (recorded after the answer)
//! and `vault_quiet` (never recorded) are the benchmark's pair; `vault_must` may not run
//! unrecorded (its runs are counted in [`MUST_RAN`]); `vault_hold` holds a `lock` for a while; `vault_claim` runs `once` per ticket
//! behind a guard that fails with a declared code until [`open_counter`] opens its ticket.
//! `kept_tools` (from `specs_kept/`) keep their records two seconds.

toolspec::include_tools!();
toolspec::include_tools!(kept_tools, "kept_tools.rs");

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use tools::vault::{claim, hold, keep, must, note, quiet};

/// How many times `vault_must`'s handler ran.
pub static MUST_RAN: AtomicU64 = AtomicU64::new(0);

/// The tickets `vault_claim`'s counter is open for.
static OPEN: Mutex<BTreeSet<i64>> = Mutex::new(BTreeSet::new());

/// Opens the counter for `ticket`.
pub fn open_counter(ticket: i64) {
    OPEN.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(ticket);
}

/// The handler: the note back as it came, the ambient session included; a title of `refuse`
/// fails with the declared error instead.
#[derive(Debug, Clone, Default)]
pub struct Vault;

impl keep::Handler for Vault {
    async fn call(&self, input: keep::Input, cx: keep::Context<'_>) -> keep::Outcome {
        if input.title == "refuse" {
            return Err(keep::Error::Refused.into());
        }
        // Through JSON: the output has the input's fields (but `proof`) and the session.
        let mut value = serde_json::to_value(&input).map_err(toolspec::Failure::internal)?;
        if let Some(fields) = value.as_object_mut() {
            fields.remove("proof");
            fields.insert("session".into(), cx.ambient().session.clone().into());
        }
        serde_json::from_value(value).map_err(toolspec::Failure::internal)
    }
}

impl note::Handler for Vault {
    async fn call(&self, input: note::Input, _cx: note::Context<'_>) -> note::Outcome {
        let length = (input.text.len() + input.secret.len()) as i64;
        Ok(note::Output { length })
    }
}

impl quiet::Handler for Vault {
    async fn call(&self, input: quiet::Input, _cx: quiet::Context<'_>) -> quiet::Outcome {
        let length = (input.text.len() + input.secret.len()) as i64;
        Ok(quiet::Output { length })
    }
}

impl must::Handler for Vault {
    async fn call(&self, input: must::Input, _cx: must::Context<'_>) -> must::Outcome {
        MUST_RAN.fetch_add(1, Ordering::SeqCst);
        Ok(must::Output {
            length: input.text.len() as i64,
        })
    }
}

impl hold::Handler for Vault {
    async fn call(&self, input: hold::Input, _cx: hold::Context<'_>) -> hold::Outcome {
        let millis = u64::try_from(input.millis).unwrap_or(0);
        tokio::time::sleep(std::time::Duration::from_millis(millis)).await;
        Ok(hold::Output { shelf: input.shelf })
    }
}

/// Ticket 13 is gone (the handler's declared error); any other answers itself.
impl claim::Handler for Vault {
    async fn call(&self, input: claim::Input, _cx: claim::Context<'_>) -> claim::Outcome {
        if input.ticket == 13 {
            return Err(claim::Error::Gone.into());
        }
        Ok(claim::Output {
            ticket: input.ticket,
        })
    }

    async fn counter_open(
        &self,
        input: &claim::Input,
        _cx: &claim::Context<'_>,
    ) -> claim::counter_open::Outcome {
        let open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        if open.contains(&input.ticket) {
            Ok(())
        } else {
            Err(claim::counter_open::Error::Closed.into())
        }
    }
}

impl kept_tools::vault::brief::Handler for Vault {
    async fn call(
        &self,
        input: kept_tools::vault::brief::Input,
        _cx: kept_tools::vault::brief::Context<'_>,
    ) -> kept_tools::vault::brief::Outcome {
        Ok(kept_tools::vault::brief::Output {
            length: input.text.len() as i64,
        })
    }
}
