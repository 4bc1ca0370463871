//! The crate a specs folder belongs to: its name titles what the CLI prints as the build
//! would (the OpenAPI document, the generated file, the catalog), since a build script's
//! compile takes the crate's `CARGO_PKG_NAME`.

use std::path::{Path, PathBuf};

/// The name of the package whose manifest is the nearest `Cargo.toml` at or above `specs`;
/// `None` when there is none, or it declares no package (a workspace's own manifest). A
/// manifest that cannot be read or parsed is said on stderr and names nothing.
pub(crate) fn name(specs: &Path) -> Option<String> {
    let manifest = manifest(specs)?;
    let parsed = std::fs::read_to_string(&manifest)
        .map_err(|e| e.to_string())
        .and_then(|text| text.parse::<toml::Table>().map_err(|e| e.to_string()));
    match parsed {
        Ok(table) => table
            .get("package")?
            .get("name")?
            .as_str()
            .map(str::to_owned),
        Err(e) => {
            eprintln!(
                "warning: could not read the crate's name from {}: {e}",
                manifest.display()
            );
            None
        }
    }
}

/// The nearest `Cargo.toml` at or above `specs`.
fn manifest(specs: &Path) -> Option<PathBuf> {
    let start = std::fs::canonicalize(specs).ok()?;
    start
        .ancestors()
        .map(|dir| dir.join("Cargo.toml"))
        .find(|manifest| manifest.is_file())
}
