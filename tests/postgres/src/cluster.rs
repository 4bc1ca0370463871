//! A PostgreSQL cluster of one test's own, to stop and start again mid-test (the shared server
//! of `TOOLSPEC_TEST_POSTGRES_URL` is never stopped): `initdb` into a temporary folder, a free
//! loopback port, trust authentication. Run as root (as CI does), the cluster runs as the
//! `postgres` user. The server binaries are Debian's (`/usr/lib/postgresql/*/bin`), which
//! `.ci/postgres` installs when they are missing.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A cluster of one test's own; stopped and deleted when dropped.
#[derive(Debug)]
pub struct Cluster {
    bin: PathBuf,
    dir: tempfile::TempDir,
    port: u16,
    as_postgres: bool,
}

impl Cluster {
    /// Creates and starts a cluster; `None` (with a note on stderr) where no PostgreSQL server
    /// is installed, which CI never allows (it panics there).
    pub fn start() -> Option<Self> {
        let Some(bin) = server_binaries() else {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI is set but no PostgreSQL server is installed (/usr/lib/postgresql/*/bin)"
            );
            eprintln!("no PostgreSQL server is installed: skipping a test of its own cluster");
            return None;
        };
        let as_postgres = is_root();
        let dir = tempfile::Builder::new()
            .prefix("toolspec-cluster")
            .tempdir()
            .expect("a temporary folder");
        if as_postgres {
            run(Command::new("chown")
                .arg("postgres:postgres")
                .arg(dir.path()));
        }
        let port = free_port();
        let cluster = Self {
            bin,
            dir,
            port,
            as_postgres,
        };
        cluster.run_tool(
            "initdb",
            &[
                "-D",
                &cluster.data(),
                "-A",
                "trust",
                "-U",
                "postgres",
                "--no-locale",
                "-E",
                "UTF8",
            ],
        );
        cluster.resume();
        Some(cluster)
    }

    /// The URL of its `postgres` database.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Stops the server at once (`immediate`: as if it crashed; connections are cut).
    pub fn stop(&self) {
        self.run_tool(
            "pg_ctl",
            &["-D", &self.data(), "-m", "immediate", "-w", "stop"],
        );
    }

    /// Starts the server again, on the same port, and waits until it takes connections.
    pub fn resume(&self) {
        let options = format!(
            "-c listen_addresses=127.0.0.1 -c port={} -c unix_socket_directories={} -c fsync=off",
            self.port,
            self.dir.path().display()
        );
        let log = self.dir.path().join("log").display().to_string();
        self.run_tool(
            "pg_ctl",
            &[
                "-D",
                &self.data(),
                "-l",
                &log,
                "-w",
                "-o",
                &options,
                "start",
            ],
        );
    }

    fn data(&self) -> String {
        self.dir.path().join("data").display().to_string()
    }

    fn run_tool(&self, tool: &str, args: &[&str]) {
        run(self.tool(tool).args(args));
    }

    /// The server's program `tool`, run as the `postgres` user when this is root.
    fn tool(&self, tool: &str) -> Command {
        let program = self.bin.join(tool);
        if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(&program);
            command
        } else {
            Command::new(&program)
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.data();
        // Already stopped is fine.
        let _ = self
            .tool("pg_ctl")
            .args(["-D", &data, "-m", "immediate", "stop"])
            .output();
    }
}

/// The newest installed server's `bin` folder.
fn server_binaries() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|entry| entry.ok().map(|e| e.path().join("bin")))
        .filter(|bin| bin.join("initdb").exists())
        .collect();
    found.sort_by_key(|bin| {
        bin.parent()
            .and_then(Path::file_name)
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
    });
    found.pop()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.stdout.trim_ascii() == b"0")
}

/// A loopback port nothing listens on now.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

fn run(command: &mut Command) {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    assert!(
        out.status.success(),
        "{command:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
