//! What a failed statement means, in the core's terms ([`StorageError`]): the database could
//! not be reached (the pool timed out or is closed, the connection broke, the server is
//! shutting down or refuses connections), so nothing the statement was part of happened and
//! the call may be retried; or the statement failed on a reachable database (a missing table,
//! a broken constraint), which is the developer's to fix. Either keeps sqlx's error as its
//! cause.

use toolspec_core::storage::StorageError;

/// sqlx's `error` while `doing` something.
pub(crate) fn of(doing: &str, error: sqlx::Error) -> StorageError {
    match unreachable(&error) {
        true => StorageError::unreachable(doing, error),
        false => StorageError::failed(doing, error),
    }
}

/// Whether `error` — one error of a chain — is sqlx's saying the database could not be reached.
pub(crate) fn driver_unreachable(error: &(dyn std::error::Error + 'static)) -> bool {
    error.downcast_ref::<sqlx::Error>().is_some_and(unreachable)
}

/// Whether `error` says the database could not be reached rather than that a statement failed
/// on it: the pool gave no connection in time or is closed, the connection broke (I/O, TLS),
/// or PostgreSQL refused or dropped it (SQLSTATE class 08, connection exception; 57P01–57P03,
/// the server shutting down, crashed or starting).
pub(crate) fn unreachable(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => true,
        sqlx::Error::Tls(_) | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(e) => e.code().is_some_and(|code| {
            code.starts_with("08") || matches!(&*code, "57P01" | "57P02" | "57P03")
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use std::fmt;

    use toolspec_core::storage::unreachable_in;

    use super::*;

    /// What tells sqlx's errors apart, as a [`Database`](crate::Database) does.
    struct Drivers;

    impl toolspec_core::storage::Availability for Drivers {
        fn known_down(&self) -> Option<String> {
            None
        }

        fn suspect(&self, _cause: &str) {}

        fn unreachable(&self, error: &(dyn std::error::Error + 'static)) -> bool {
            driver_unreachable(error)
        }
    }

    /// An app's error with a driver error as its cause.
    #[derive(Debug)]
    struct Loading(sqlx::Error);

    impl fmt::Display for Loading {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("loading order 3")
        }
    }

    impl std::error::Error for Loading {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn a_timed_out_pool_or_a_broken_connection_is_unreachable_a_bad_statement_is_not() {
        assert!(unreachable(&sqlx::Error::PoolTimedOut));
        assert!(unreachable(&sqlx::Error::PoolClosed));
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert!(unreachable(&sqlx::Error::Io(refused)));
        assert!(!unreachable(&sqlx::Error::RowNotFound));
        assert!(!unreachable(&sqlx::Error::ColumnNotFound("id".into())));
    }

    #[test]
    fn the_cause_is_found_anywhere_in_the_chain() {
        let drivers = Some(&Drivers as &dyn toolspec_core::storage::Availability);
        assert!(unreachable_in(&Loading(sqlx::Error::PoolTimedOut), drivers));
        assert!(!unreachable_in(&Loading(sqlx::Error::RowNotFound), drivers));
        let ours = of("claiming a key", sqlx::Error::PoolTimedOut);
        assert!(unreachable_in(&ours, None));
        assert_eq!(
            ours.chain(),
            "claiming a key: pool timed out while waiting for an open connection"
        );
        assert!(!unreachable_in(
            &StorageError::invalid("a value does not decode"),
            None
        ));
    }
}
