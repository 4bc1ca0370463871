//! Compiles the golden outputs of `toolspec-codegen` (checked in under
//! `codegen/tests/golden/*/expected/`) with every warning denied, and exercises them.
#![deny(warnings)]

macro_rules! golden {
    ($name:ident, $path:literal) => {
        // As `toolspec::include_tools!` includes a generated file.
        #[allow(
            clippy::all,
            clippy::pedantic,
            clippy::nursery,
            dead_code,
            missing_docs,
            unused_qualifications
        )]
        pub mod $name {
            include!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../codegen/tests/golden/",
                $path,
                "/expected/toolspec_tools.rs"
            ));
        }
    };
}

golden!(empty, "empty");
golden!(fields, "fields");
golden!(membership, "membership");
golden!(shapes, "shapes");
golden!(store, "store");

#[cfg(test)]
mod tests;
