//! The dialects' tests: the providers' rules as a checker, and the cases it runs on.

mod cases;
mod rules;
