//! Files of the cache written so that a reader never sees one half written.

use std::path::Path;

/// Writes `bytes` into a file beside `path`, then renames it over `path`.
pub fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    std::fs::write(&partial, bytes)?;
    std::fs::rename(&partial, path)
}
