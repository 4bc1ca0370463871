//! The specs folder as an attacker lays it out, built in a temporary folder at test time (these
//! entries cannot be committed): a FIFO, a socket, links to `/dev/zero`, out of the tree,
//! dangling, looping and back into an ancestor, a file over the size cap, a text and names
//! that are not UTF-8. Reading it never hangs, never reads or shows what lies outside, and
//! reports each entry by name; links inside the tree are followed.
#![cfg(unix)]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use toolspec_codegen::Config;
use toolspec_codegen::Project;

const SECRET: &str = "TOP SECRET first line";

fn write(path: impl AsRef<Path>, text: impl AsRef<[u8]>) {
    std::fs::write(path, text).expect("written");
}

/// Builds the hostile specs folder in `specs`, with a secret file in `outside`.
fn lay_out(specs: &Path, outside: &Path) {
    write(specs.join("ok.yaml"), "description: Fine.\n");
    std::fs::create_dir(specs.join("real")).expect("a folder");
    write(specs.join("real/inner.yaml"), "description: Inner.\n");
    symlink(specs.join("real/inner.yaml"), specs.join("linked.yaml")).expect("a link");
    symlink(specs.join("real"), specs.join("alias")).expect("a link");

    let fifo = std::ffi::CString::new(specs.join("pipe.yaml").as_os_str().as_bytes())
        .expect("a path without NUL");
    // SAFETY: `fifo` is a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0, "mkfifo");
    let fifo = std::ffi::CString::new(specs.join("notes").as_os_str().as_bytes())
        .expect("a path without NUL");
    // SAFETY: as above. A FIFO without a spec name is never looked at.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0, "mkfifo");
    std::os::unix::net::UnixListener::bind(specs.join("sock.yaml")).expect("a socket");

    symlink("/dev/zero", specs.join("zero.yaml")).expect("a link");
    write(
        outside.join("secret.yaml"),
        format!("description: {SECRET}\n"),
    );
    symlink(outside.join("secret.yaml"), specs.join("secret.yaml")).expect("a link");
    symlink(outside, specs.join("elsewhere")).expect("a link");
    symlink(specs.join("missing.yaml"), specs.join("dangling.yaml")).expect("a link");
    symlink("looping.yaml", specs.join("looping.yaml")).expect("a link");
    symlink(specs, specs.join("real/up")).expect("a link");
    symlink(specs.join("pipe.yaml"), specs.join("to-pipe.yaml")).expect("a link");

    let mut big = b"description: Big.\n".to_vec();
    big.resize(1024 * 1024 + 1, b'#');
    write(specs.join("big.yaml"), big);
    write(
        specs.join("latin1.yaml"),
        b"description: ok\ntitle: caf\xe9\n",
    );
    write(
        specs.join(OsStr::from_bytes(b"caf\xe9.yaml")),
        "description: x\n",
    );
    std::fs::create_dir(specs.join(OsStr::from_bytes(b"dir\xff"))).expect("a folder");
}

/// Loads `specs` on another thread; `None` if it takes more than 30 seconds.
fn load_in_time(config: Config, specs: &Path) -> Option<Project> {
    let (send, receive) = mpsc::channel();
    let specs = specs.to_owned();
    std::thread::spawn(move || {
        let _ = send.send(config.load(&specs).expect("the specs folder is readable"));
    });
    receive.recv_timeout(Duration::from_secs(30)).ok()
}

#[test]
fn hostile_entries_are_reported_and_never_read() {
    let specs = tempfile::tempdir().expect("a temporary folder");
    let outside = tempfile::tempdir().expect("a temporary folder");
    lay_out(specs.path(), outside.path());
    let project = load_in_time(Config::new().display_root("specs"), specs.path())
        .expect("reading the folder does not hang");
    let rendered = project.render_diagnostics();
    assert!(!rendered.contains("TOP SECRET"), "{rendered}");
    let mut messages: Vec<(String, String)> = project
        .diagnostics()
        .iter()
        .map(|d| (d.file.clone(), d.message.clone()))
        .collect();
    messages.sort();
    let expect = |file: &str, message: &str| (file.to_owned(), message.to_owned());
    assert_eq!(
        messages,
        [
            expect(
                "specs/alias/up",
                "`alias/up` leads back into a folder it is inside of"
            ),
            expect(
                "specs/big.yaml",
                "`big.yaml` is larger than 1 MiB, the most a spec file may hold"
            ),
            expect(
                "specs/caf\u{fffd}.yaml",
                "the file name `caf\u{fffd}.yaml` is not valid UTF-8"
            ),
            expect(
                "specs/dangling.yaml",
                "`dangling.yaml` is a symbolic link that does not resolve (dangling, or a loop)"
            ),
            expect(
                "specs/dir\u{fffd}",
                "the folder name `dir\u{fffd}` is not valid UTF-8"
            ),
            expect(
                "specs/elsewhere",
                "`elsewhere` is a symbolic link to somewhere outside the specs folder"
            ),
            expect(
                "specs/latin1.yaml",
                "`latin1.yaml` is not valid UTF-8 (byte 26)"
            ),
            expect(
                "specs/looping.yaml",
                "`looping.yaml` is a symbolic link that does not resolve (dangling, or a loop)"
            ),
            expect(
                "specs/pipe.yaml",
                "`pipe.yaml` is a named pipe (FIFO), not a regular file"
            ),
            expect(
                "specs/real/up",
                "`real/up` leads back into a folder it is inside of"
            ),
            expect(
                "specs/secret.yaml",
                "`secret.yaml` is a symbolic link to somewhere outside the specs folder"
            ),
            expect(
                "specs/sock.yaml",
                "`sock.yaml` is a socket, not a regular file"
            ),
            expect(
                "specs/to-pipe.yaml",
                "`to-pipe.yaml` is a symbolic link to a named pipe (FIFO), not to a regular file"
            ),
            expect(
                "specs/zero.yaml",
                "`zero.yaml` is a symbolic link to somewhere outside the specs folder"
            ),
        ]
    );
    let latin1 = project
        .diagnostics()
        .iter()
        .find(|d| d.file == "specs/latin1.yaml")
        .and_then(|d| d.span)
        .expect("a position");
    assert_eq!((latin1.start.line, latin1.start.col), (2, 11));
    // Links inside the tree are followed, to files and to folders.
    let mut tools: Vec<&str> = project.tools().iter().map(|t| t.name()).collect();
    tools.sort();
    assert_eq!(tools, ["alias_inner", "linked", "ok", "real_inner"]);
}

#[test]
fn the_size_cap_is_configurable() {
    let specs = tempfile::tempdir().expect("a temporary folder");
    write(specs.path().join("ok.yaml"), "description: Fine.\n");
    let project = load_in_time(Config::new().max_file_size(8), specs.path()).expect("in time");
    assert!(
        project.diagnostics()[0]
            .message
            .starts_with("`ok.yaml` is larger than 8 bytes"),
        "{:?}",
        project.diagnostics()
    );
}
