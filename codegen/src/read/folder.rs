//! The specs folder on disk: which of its entries become sources, and how they are read.
//!
//! Spec files (`.yaml`, `.yml`) and the JSON Schemas `shape: { file: … }` names (`.json`) are
//! read, and the folders below, hidden entries skipped. Nothing is opened before its type is
//! known from [`std::fs::symlink_metadata`], and only regular files are opened (non-blocking,
//! their type checked again on the open file), each through a reader that stops after the
//! size cap. A symbolic link is followed only when it resolves, canonicalized, to a regular
//! file or a folder inside the specs folder, and never into a folder it is inside of. Every
//! other entry the compiler would use — a FIFO, socket or device with a spec name, a link out
//! of the tree, dangling or looping, a file over the cap, a name or a text that is not
//! UTF-8, a folder nested too deep or that cannot be read — is a diagnostic naming the entry
//! (its name shown lossily); nothing of a link's target is read or shown. The folder itself
//! must be readable ([`scan`] fails otherwise). This module does not parse what it reads.

use std::ffi::OsStr;
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::diagnostic::Diagnostic;
use crate::diagnostic::kind::Kind as Problem;
use crate::source::Lines;
use crate::source::Source;
use crate::source::{Pos, Span};

/// The largest spec or JSON file read by default: 1 MiB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 1 << 20;

/// How many folders deep below the specs folder are read.
pub const MAX_FOLDER_DEPTH: usize = 32;

/// What [`scan`] found.
#[derive(Debug, Default)]
pub struct Scanned {
    /// The files read, by path below the specs folder ('/'-separated), sorted folder by folder.
    pub sources: Vec<Source>,
    /// The folders below the specs folder, sorted.
    pub dirs: Vec<String>,
    /// The entries that could not be used, each with the reason.
    pub diagnostics: Vec<Diagnostic>,
    /// Every file and folder considered, refused ones included (for `cargo::rerun-if-changed`).
    pub watched: Vec<PathBuf>,
}

/// Reads the specs folder `dir`, shown as `display_root` in diagnostics; files larger than
/// `max_file_size` bytes are refused.
pub fn scan(dir: &Path, display_root: &str, max_file_size: u64) -> std::io::Result<Scanned> {
    let root = dir.canonicalize()?;
    let entries = std::fs::read_dir(&root)?;
    let mut walk = Walk {
        root: root.clone(),
        display_root: display_root.trim_end_matches('/').to_owned(),
        max_file_size,
        open: vec![root],
        scanned: Scanned::default(),
    };
    walk.entries(entries, "");
    let mut scanned = walk.scanned;
    // Folder by folder: `orders/cancel.yaml` before `orders.yaml`.
    scanned
        .sources
        .sort_by(|a, b| a.path.split('/').cmp(b.path.split('/')));
    scanned.dirs.sort_by(|a, b| a.split('/').cmp(b.split('/')));
    Ok(scanned)
}

/// What an entry turned out to be, its links followed.
enum Kind {
    File(PathBuf),
    Folder(PathBuf),
    /// Neither: why it is not read, and whether it is (or leads to) a folder.
    Refused(String, bool),
}

struct Walk {
    /// The specs folder, canonicalized.
    root: PathBuf,
    display_root: String,
    max_file_size: u64,
    /// The folders being read, one inside the next (canonicalized).
    open: Vec<PathBuf>,
    scanned: Scanned,
}

impl Walk {
    fn display(&self, rel: &str) -> String {
        match (self.display_root.is_empty(), rel.is_empty()) {
            (_, true) => self.display_root.clone(),
            (true, false) => rel.to_owned(),
            (false, false) => format!("{}/{rel}", self.display_root),
        }
    }

    fn refuse(&mut self, rel: &str, span: Option<Span>, message: String, help: &str) {
        let d = Diagnostic::error(Problem::Unreadable, self.display(rel), span, message)
            .with_help(help);
        self.scanned.diagnostics.push(d);
    }

    /// Reads the folder at `path` (canonicalized), `rel` below the specs folder.
    fn folder(&mut self, path: &Path, rel: &str) {
        match std::fs::read_dir(path) {
            Ok(entries) => self.entries(entries, rel),
            Err(e) => {
                let what = format!("cannot read the folder `{rel}`: {e}");
                self.refuse(rel, None, what, "make the folder readable, or move it out");
            }
        }
    }

    /// Reads the entries of the folder `rel`, in name order.
    fn entries(&mut self, entries: std::fs::ReadDir, rel: &str) {
        let mut entries: Vec<_> = entries
            .filter_map(Result::ok)
            .map(|e| (e.file_name(), e))
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, entry) in entries {
            let shown = name.to_string_lossy();
            if shown.starts_with('.') {
                continue;
            }
            let child = if rel.is_empty() {
                shown.clone().into_owned()
            } else {
                format!("{rel}/{shown}")
            };
            self.entry(&entry.path(), &name, &child);
        }
    }

    fn entry(&mut self, path: &Path, name: &OsStr, rel: &str) {
        let shown = name.to_string_lossy();
        let spec_name = [".yaml", ".yml", ".json"]
            .iter()
            .any(|e| shown.ends_with(e));
        let kind = match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.is_symlink() => self.follow(path),
            Ok(meta) if meta.is_dir() => Kind::Folder(path.to_owned()),
            Ok(meta) if meta.is_file() => Kind::File(path.to_owned()),
            Ok(meta) => Kind::Refused(format!("is {}, not a regular file", special(&meta)), false),
            Err(e) => Kind::Refused(format!("cannot be read: {e}"), false),
        };
        // Only what the compiler would use is looked at further: folders and spec files.
        let folder = matches!(kind, Kind::Folder(_) | Kind::Refused(_, true));
        if !folder && !spec_name {
            return;
        }
        self.scanned.watched.push(path.to_owned());
        if name.to_str().is_none() {
            let what = if folder { "folder" } else { "file" };
            let message = format!("the {what} name `{shown}` is not valid UTF-8");
            self.refuse(
                rel,
                None,
                message,
                "rename it with UTF-8 characters (ASCII is best)",
            );
            return;
        }
        match kind {
            Kind::Folder(target) => self.subfolder(&target, rel),
            Kind::File(target) => self.file(&target, rel),
            Kind::Refused(why, _) => {
                let message = format!("`{shown}` {why}");
                self.refuse(rel, None, message, "the specs folder may hold only regular files and folders, and links to them inside it");
            }
        }
    }

    /// What a symbolic link resolves to, without opening it: a file or folder inside the
    /// specs folder, or why not.
    fn follow(&self, link: &Path) -> Kind {
        let Ok(target) = link.canonicalize() else {
            let why = "is a symbolic link that does not resolve (dangling, or a loop)";
            return Kind::Refused(why.into(), false);
        };
        let meta = match std::fs::metadata(&target) {
            Ok(meta) => meta,
            Err(e) => {
                let why = format!("is a symbolic link that cannot be followed: {e}");
                return Kind::Refused(why, false);
            }
        };
        if !target.starts_with(&self.root) {
            let why = "is a symbolic link to somewhere outside the specs folder";
            return Kind::Refused(why.into(), meta.is_dir());
        }
        if meta.is_dir() {
            Kind::Folder(target)
        } else if meta.is_file() {
            Kind::File(target)
        } else {
            let why = format!(
                "is a symbolic link to {}, not to a regular file",
                special(&meta)
            );
            Kind::Refused(why, false)
        }
    }

    fn subfolder(&mut self, path: &Path, rel: &str) {
        let canonical = path.canonicalize().unwrap_or_else(|_| path.to_owned());
        if self.open.contains(&canonical) {
            let message = format!("`{rel}` leads back into a folder it is inside of");
            self.refuse(
                rel,
                None,
                message,
                "remove the symbolic link: folders are read once",
            );
            return;
        }
        if self.open.len() > MAX_FOLDER_DEPTH {
            let message = format!("`{rel}` is nested more than {MAX_FOLDER_DEPTH} folders deep");
            self.refuse(rel, None, message, "keep spec folders fewer levels deep");
            return;
        }
        self.scanned.dirs.push(rel.to_owned());
        self.open.push(canonical.clone());
        self.folder(&canonical, rel);
        self.open.pop();
    }

    fn file(&mut self, path: &Path, rel: &str) {
        match read_bounded(path, self.max_file_size) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => self.scanned.sources.push(Source {
                    path: rel.to_owned(),
                    text,
                }),
                Err(e) => {
                    let bytes = e.as_bytes();
                    let valid = e.utf8_error().valid_up_to();
                    let at = position(&bytes[..valid]);
                    let message = format!("`{rel}` is not valid UTF-8 (byte {valid})");
                    self.refuse(rel, Some(at), message, "save the file as UTF-8");
                }
            },
            Err(Unread::TooLarge) => {
                let message = format!(
                    "`{rel}` is larger than {}, the most a spec file may hold",
                    toolspec_vocab::result_cap::Size(self.max_file_size)
                );
                let help =
                    "split it into several files, or raise the limit with `Config::max_file_size`";
                self.refuse(rel, None, message, help);
            }
            Err(Unread::NotRegular(what)) => {
                let message = format!("`{rel}` is {what}, not a regular file");
                self.refuse(rel, None, message, "replace it with a regular file");
            }
            Err(Unread::Io(e)) => {
                let message = format!("`{rel}` cannot be read: {e}");
                self.refuse(rel, None, message, "make the file readable, or move it out");
            }
        }
    }
}

/// Why a file was not read.
enum Unread {
    TooLarge,
    /// What it is instead ([`special`]).
    NotRegular(&'static str),
    Io(std::io::Error),
}

/// The bytes of the regular file at `path`, at most `max` of them. The file is opened without
/// blocking (a FIFO put in its place since it was looked at does not hang the open) and its
/// type is checked on the open file before anything is read.
fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, Unread> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file: File = options.open(path).map_err(Unread::Io)?;
    let meta = file.metadata().map_err(Unread::Io)?;
    if !meta.is_file() {
        return Err(Unread::NotRegular(special(&meta)));
    }
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Unread::Io)?;
    if bytes.len() as u64 > max {
        return Err(Unread::TooLarge);
    }
    Ok(bytes)
}

/// The position just after `valid`, the UTF-8 text before a bad byte.
fn position(valid: &[u8]) -> Span {
    let text = std::str::from_utf8(valid).unwrap_or_default();
    let lines = Lines::new(text);
    let to_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let at = Pos {
        line: to_u32(lines.index_of(text.len()) + 1),
        col: to_u32(lines.column(text.len())),
        offset: valid.len(),
    };
    Span { start: at, end: at }
}

/// What a special file is, for messages ("a named pipe (FIFO)").
fn special(meta: &Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = meta.file_type();
        if kind.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    let _ = meta;
    "a special file"
}
