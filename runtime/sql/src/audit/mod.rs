//! The audit trail's table (`sql`): records written in batches, closed when their process died,
//! swept past the retention, read back a page at a time.

mod sql;
