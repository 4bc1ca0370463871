//! toolspec runtime
