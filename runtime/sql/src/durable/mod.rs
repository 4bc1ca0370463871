//! `once` keys (`once`) and `lock`s (`lock`) in the app's database, shared by every process on
//! it; how long a claim or a SQLite lock stays good without its holder (`lease`); the request
//! states round trips have spent (`spent`); the rate budgets processes share (`budget`).

pub(crate) mod budget;
pub(crate) mod lease;
pub(crate) mod lock;
pub(crate) mod once;
pub(crate) mod spent;
