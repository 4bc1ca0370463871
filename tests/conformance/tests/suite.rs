//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, run with Node)
//! against the fixture tools served by toolspec's streamable HTTP transport: the 2026-07-28
//! requirement set, the scenarios of 2025-11-25 (whose clients get sessions), and each
//! scenario of the tasks extension. `expected-failures.yml` lists what toolspec deliberately
//! does not serve; `summary-2026-07-28.txt` and `summary-2025-11-25.txt` hold each scenario's
//! count of passed and failed checks, which a run must give exactly.
//!
//! The suite comes from the folder `TOOLSPEC_TEST_CONFORMANCE` names (the package, with its
//! `dist/index.js`), run by the Node `TOOLSPEC_TEST_NODE` names (22 or later); `.ci/run`
//! installs both from npm. Without them the test is skipped, unless `CI` is set: then it fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};

/// The tasks extension's scenarios, and whether toolspec serves what each needs: those that
/// ask for input in the middle of a task (MRTR) need input requests while the task runs, which
/// toolspec's tools cannot make yet — `tasks-dispatch-and-envelope` too, for one of its nine
/// checks (the `tasks/update` acknowledgement of a task parked on `confirm_delete`'s input
/// request). Asking before the task is created (`tasks-mrtr-composition`) is served: a tool's
/// `ask` runs before it is handed to the queue.
const TASK_SCENARIOS: &[(&str, bool)] = &[
    ("tasks-lifecycle", true),
    ("tasks-capability-negotiation", true),
    ("tasks-wire-fields", true),
    ("tasks-request-state-removal", true),
    ("tasks-mrtr-input", false),
    ("tasks-request-headers", true),
    ("tasks-dispatch-and-envelope", false),
    ("tasks-status-notifications", true),
    ("tasks-required-task-error", true),
    ("tasks-mrtr-composition", true),
];

/// Node and the suite's entry point, when both are given.
fn suite() -> Option<(PathBuf, PathBuf)> {
    let node = std::env::var_os("TOOLSPEC_TEST_NODE");
    let package = std::env::var_os("TOOLSPEC_TEST_CONFORMANCE");
    match (node, package) {
        (Some(node), Some(package)) => {
            Some((node.into(), Path::new(&package).join("dist/index.js")))
        }
        _ if std::env::var_os("CI").is_some() => panic!(
            "CI is set but TOOLSPEC_TEST_NODE or TOOLSPEC_TEST_CONFORMANCE is not: the conformance suite must run"
        ),
        _ => {
            eprintln!(
                "skipped: set TOOLSPEC_TEST_NODE and TOOLSPEC_TEST_CONFORMANCE to run the MCP conformance suite"
            );
            None
        }
    }
}

/// The fixtures served on a free loopback port, on a fresh SQLite file: the server and its
/// MCP endpoint.
async fn serve(dir: &Path) -> (tokio::process::Child, String) {
    let mut server = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolspec-test-conformance"))
        .arg(dir.join("fixtures.db"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the fixture server starts");
    let mut lines = BufReader::new(server.stderr.take().expect("piped stderr")).lines();
    let url = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await.expect("readable stderr") {
            if let Some(url) = line.strip_prefix("MCP endpoint: ") {
                return url.trim().to_owned();
            }
        }
        panic!("the fixture server exited before it listened")
    })
    .await
    .expect("the fixture server listens within 30 s");
    // Keep reading what it logs, so that it never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (server, url)
}

/// Runs the suite's `server` command against `url` with `args`, in `dir`: whether it passed,
/// and what it printed.
fn run(node: &Path, index: &Path, dir: &Path, url: &str, args: &[&str]) -> (bool, String) {
    let output = Command::new(node)
        .arg(index)
        .args(["server", "--url", url])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the conformance suite runs");
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), printed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_2026_07_28_requirements_pass_but_for_what_toolspec_does_not_serve() {
    let Some((node, index)) = suite() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (_server, url) = serve(dir.path()).await;
    let expected = Path::new(env!("CARGO_MANIFEST_DIR")).join("expected-failures.yml");
    let expected = expected.to_str().expect("a UTF-8 path").to_owned();
    let (node2, index2, path) = (node.clone(), index.clone(), dir.path().to_owned());
    let (passed, printed) = tokio::task::spawn_blocking(move || {
        run(
            &node2,
            &index2,
            &path,
            &url,
            &[
                "--requirements",
                "2026-07-28",
                "--expected-failures",
                &expected,
            ],
        )
    })
    .await
    .unwrap();
    assert!(passed, "the 2026-07-28 requirements failed:\n{printed}");
    // Every scenario's count of passed and failed checks, exactly as recorded: a change of
    // the transport that changes any check shows here (`EXPECTORATE=overwrite` records anew,
    // for a new suite).
    expectorate::assert_contents("summary-2026-07-28.txt", &summary(&printed));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_2025_11_25_scenarios_over_sessions_give_their_recorded_results() {
    let Some((node, index)) = suite() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (_server, url) = serve(dir.path()).await;
    let path = dir.path().to_owned();
    let (_, printed) = tokio::task::spawn_blocking(move || {
        run(
            &node,
            &index,
            &path,
            &url,
            &["--spec-version", "2025-11-25"],
        )
    })
    .await
    .unwrap();
    // What toolspec does not serve (resources, prompts, logging, sampling…) fails here as in
    // the 2026-07-28 set; every count must be as recorded, and tool calls answered beside a
    // session's worker must not change one.
    expectorate::assert_contents("summary-2025-11-25.txt", &summary(&printed));
}

/// The suite's summary in `printed`: one line per scenario with its passed and failed checks,
/// and the total, without colours.
fn summary(printed: &str) -> String {
    let plain: String = {
        let mut plain = String::with_capacity(printed.len());
        let mut rest = printed;
        // ANSI colour sequences: ESC `[` … `m`.
        while let Some(start) = rest.find('\u{1b}') {
            plain.push_str(&rest[..start]);
            rest = rest[start..].split_once('m').map_or("", |(_, after)| after);
        }
        plain.push_str(rest);
        plain
    };
    let mut lines: Vec<&str> = plain
        .lines()
        .skip_while(|line| line.trim() != "=== SUMMARY ===")
        .skip(1)
        .take_while(|line| !line.starts_with("Total:"))
        .filter(|line| !line.trim().is_empty())
        .collect();
    lines.extend(plain.lines().find(|line| line.starts_with("Total:")));
    lines.join("\n") + "\n"
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tasks_scenario_passes_but_those_that_need_input_requests() {
    let Some((node, index)) = suite() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (_server, url) = serve(dir.path()).await;
    let path = dir.path().to_owned();
    let report = tokio::task::spawn_blocking(move || {
        let mut report = Vec::new();
        for &(scenario, served) in TASK_SCENARIOS {
            let (passed, printed) = run(&node, &index, &path, &url, &["--scenario", scenario]);
            report.push((scenario, served, passed, printed));
        }
        report
    })
    .await
    .unwrap();
    let wrong: Vec<String> = report
        .iter()
        .filter(|(_, served, passed, _)| served != passed)
        .map(|(scenario, served, _, printed)| {
            let expected = if *served {
                "pass"
            } else {
                "fail (it needs input requests)"
            };
            format!("{scenario} was expected to {expected}:\n{printed}")
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}
