//! The formatted tool modules of the last successful compile, each under its key (the digest
//! of everything its emission reads), in one file: written whole after each compile with the
//! modules that compile used and no other, so it never grows past one build's worth.
//!
//! The file: a header line, then for each module its 32-byte key, its length (8 bytes, little
//! endian) and its text. A file that does not parse to its end is read as empty.

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

use crate::cache::digest::Digest;

const HEADER: &[u8] = b"toolspec-codegen formatted modules, format 1\n";

/// The modules of a pack file.
#[derive(Debug, Default)]
pub struct Pack {
    bytes: Vec<u8>,
    /// Where each key's text is in `bytes`.
    entries: HashMap<Digest, Range<usize>>,
    /// The keys in the file's order.
    keys: Vec<Digest>,
}

impl Pack {
    /// The pack in `path`; empty when there is none, or it is not whole.
    pub fn read(path: &Path) -> Pack {
        std::fs::read(path)
            .ok()
            .and_then(Pack::parse)
            .unwrap_or_default()
    }

    fn parse(bytes: Vec<u8>) -> Option<Pack> {
        let mut at = HEADER.len();
        if bytes.get(..at)? != HEADER {
            return None;
        }
        let mut entries = HashMap::new();
        let mut keys = Vec::new();
        while at < bytes.len() {
            let key: Digest = bytes.get(at..at + 32)?.try_into().ok()?;
            let len: [u8; 8] = bytes.get(at + 32..at + 40)?.try_into().ok()?;
            let start = at + 40;
            let end = start.checked_add(usize::try_from(u64::from_le_bytes(len)).ok()?)?;
            std::str::from_utf8(bytes.get(start..end)?).ok()?;
            entries.insert(key, start..end);
            keys.push(key);
            at = end;
        }
        Some(Pack {
            bytes,
            entries,
            keys,
        })
    }

    /// The text under `key`.
    pub fn get(&self, key: &Digest) -> Option<&str> {
        let range = self.entries.get(key)?.clone();
        std::str::from_utf8(&self.bytes[range]).ok()
    }

    /// Whether the pack holds exactly `keys`, in this order.
    pub fn holds_exactly(&self, keys: &[Digest]) -> bool {
        self.keys == keys
    }
}

/// Writes the modules `keys` and `texts` (in pairs) into `path`, through a file beside it
/// renamed over it: a reader finds the old pack or the new one, whole.
pub fn write(path: &Path, keys: &[Digest], texts: &[&str]) -> std::io::Result<()> {
    let size = texts.iter().map(|t| t.len() + 40).sum::<usize>() + HEADER.len();
    let mut bytes = Vec::with_capacity(size);
    bytes.extend_from_slice(HEADER);
    for (key, text) in keys.iter().zip(texts) {
        bytes.extend_from_slice(key);
        bytes.extend_from_slice(&(text.len() as u64).to_le_bytes());
        bytes.extend_from_slice(text.as_bytes());
    }
    crate::cache::files::replace(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pack_reads_back_and_a_cut_one_is_empty() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = dir.path().join("modules");
        let keys = [[1u8; 32], [2u8; 32]];
        write(&path, &keys, &["pub mod a {}\n", "pub mod b {}\n"]).expect("written");
        let pack = Pack::read(&path);
        assert_eq!(pack.get(&[1; 32]), Some("pub mod a {}\n"));
        assert_eq!(pack.get(&[2; 32]), Some("pub mod b {}\n"));
        assert_eq!(pack.get(&[3; 32]), None);
        assert!(pack.holds_exactly(&keys));
        assert!(!pack.holds_exactly(&keys[..1]));
        let bytes = std::fs::read(&path).expect("read");
        std::fs::write(&path, &bytes[..bytes.len() - 1]).expect("cut");
        assert_eq!(Pack::read(&path).get(&[1; 32]), None, "a cut pack is empty");
        assert_eq!(Pack::read(&dir.path().join("none")).get(&[1; 32]), None);
    }
}
