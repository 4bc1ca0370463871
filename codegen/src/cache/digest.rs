//! SHA-256 digests of what a compile reads, and the identity of the compiler that reads it.
//!
//! A digest decides whether earlier output may stand in for new work, so it must never match
//! by accident: SHA-256 (the `sha2` crate, which uses the CPU's SHA extensions where there are
//! some) rather than a 64-bit hasher, every piece framed by its length so that no two
//! sequences of pieces hash alike.

use std::path::Path;
use std::sync::OnceLock;
use std::time::UNIX_EPOCH;

use sha2::{Digest as _, Sha256};

/// A SHA-256 digest.
pub type Digest = [u8; 32];

/// A SHA-256 over pieces, each followed by its length (so `["ab", "c"]` and `["a", "bc"]`
/// differ).
pub struct Hasher {
    sha: Sha256,
}

impl Hasher {
    /// A hasher whose digests are of `purpose` only (a digest of one purpose never equals
    /// another's).
    pub fn new(purpose: &str) -> Self {
        let mut hasher = Self { sha: Sha256::new() };
        hasher.str(purpose);
        hasher
    }

    /// Adds `bytes` as one piece.
    pub fn bytes(&mut self, bytes: &[u8]) {
        self.sha.update(bytes);
        self.sha.update((bytes.len() as u64).to_le_bytes());
    }

    /// Adds `text` as one piece.
    pub fn str(&mut self, text: &str) {
        self.bytes(text.as_bytes());
    }

    /// Adds a number as one piece.
    pub fn number(&mut self, n: u64) {
        self.bytes(&n.to_le_bytes());
    }

    /// The digest.
    pub fn finish(self) -> Digest {
        self.sha.finalize().into()
    }
}

/// A digest in lowercase hexadecimal.
pub fn hex(digest: &Digest) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// What identifies the compiler that runs: its version, and the program it runs in (the build
/// script, which cargo builds again whenever the compiler, a crate it uses or the script
/// changes) by path, size, modification time and, on Unix, device and inode. `None` when the
/// program cannot be looked at: nothing is then cached, since output from another build of
/// the compiler could not be told apart.
pub fn compiler() -> Option<&'static str> {
    static IDENTITY: OnceLock<Option<String>> = OnceLock::new();
    IDENTITY
        .get_or_init(|| {
            let exe = std::env::current_exe().ok()?;
            let file = file_identity(&exe)?;
            Some(format!(
                "toolspec-codegen {} in {} ({file})",
                env!("CARGO_PKG_VERSION"),
                exe.display()
            ))
        })
        .as_deref()
}

/// A file's size, modification time (to the nanosecond) and, on Unix, device and inode: what
/// changes when the file is written or replaced.
pub fn file_identity(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    let modified = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    #[cfg(unix)]
    let node = {
        use std::os::unix::fs::MetadataExt;
        format!(" dev {} ino {}", meta.dev(), meta.ino())
    };
    #[cfg(not(unix))]
    let node = String::new();
    Some(format!(
        "{} bytes, modified {}.{:09}{node}",
        meta.len(),
        modified.as_secs(),
        modified.subsec_nanos()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_framed() {
        let digest = |pieces: &[&str]| {
            let mut h = Hasher::new("test");
            pieces.iter().for_each(|p| h.str(p));
            h.finish()
        };
        assert_ne!(digest(&["ab", "c"]), digest(&["a", "bc"]));
        assert_ne!(digest(&["ab"]), digest(&["ab", ""]));
        assert_eq!(digest(&["ab", "c"]), digest(&["ab", "c"]));
        let mut purpose = Hasher::new("other");
        purpose.str("ab");
        assert_ne!(purpose.finish(), digest(&["ab"]));
    }

    #[test]
    fn a_digest_is_written_in_64_hex_digits() {
        assert_eq!(hex(&[0xab; 32]), "ab".repeat(32));
    }
}
