//! Serves the conformance fixtures over streamable HTTP:
//! `toolspec-conformance-fixtures DB_FILE [ADDRESS]` (the address defaults to a free loopback
//! port), printing `MCP endpoint: URL` on stderr once it listens.

use std::process::ExitCode;

use toolspec::mcp::McpServer;
use toolspec::mcp::http::{self, HttpTransport};
use toolspec::{Caller, CancellationToken};

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let mut args = std::env::args().skip(1);
    let Some(db) = args.next() else {
        eprintln!("usage: toolspec-conformance-fixtures DB_FILE [ADDRESS]");
        return ExitCode::from(2);
    };
    let address = args.next().unwrap_or_else(|| "127.0.0.1:0".into());
    let registry = match toolspec_test_conformance::registry(db.as_ref()).await {
        Ok(registry) => registry,
        Err(e) => {
            eprintln!("could not open {db}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let listener = match tokio::net::TcpListener::bind(&address).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("could not listen on {address}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let local = listener
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or(address);
    let server = McpServer::new(registry, Caller::new("conformance"));
    let shutdown = CancellationToken::new();
    tokio::spawn({
        let shutdown = shutdown.clone();
        async move {
            let _ = tokio::signal::ctrl_c().await;
            shutdown.cancel();
        }
    });
    eprintln!("MCP endpoint: http://{local}{}", http::PATH);
    // The suite opens a session or more per scenario, all as one caller, and closes few.
    let limits = http::SessionLimits {
        max_sessions_per_caller: 1024,
        ..http::SessionLimits::DEFAULT
    };
    let transport = HttpTransport::new(server).session_limits(limits);
    match transport.serve(listener, shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("serving failed: {e}");
            ExitCode::FAILURE
        }
    }
}
