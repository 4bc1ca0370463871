//! `tools/list` of many tools: in this process (the listing built, a page joined from the
//! tools' prepared texts, and the same page as rmcp `Tool`s serialized), and served by a child
//! process over stdio and streamable HTTP (its resident memory, and its CPU per list).

use std::time::{Duration, Instant};

use rmcp::model::ListToolsResult;
use toolspec::descriptor::AdapterBinding;
use toolspec::mcp::Listing;
use toolspec::settings::PresentAs;
use toolspec::{Caller, Descriptor};

use super::tools::catalog::{order, quote};
use super::{Runtime, Server, Transport, connect, cpu_time, memory_mb};

/// `count` tools: copies of `templates` in turn, under their own names.
pub(crate) fn many_tools(count: usize, templates: &[&Descriptor]) -> Vec<(Descriptor, PresentAs)> {
    (0..count)
        .map(|i| {
            let template = templates[i % templates.len()];
            let name: std::borrow::Cow<'static, str> =
                std::borrow::Cow::Owned(format!("{}_{i:04}", template.name));
            let adapters = vec![AdapterBinding {
                adapter: "mcp".into(),
                name: Some(name.clone()),
                ..AdapterBinding::member("")
            }];
            let descriptor = Descriptor::baked(toolspec::__private::DescriptorParts {
                name,
                adapters: adapters.into(),
                ..template.clone().0
            });
            (descriptor, PresentAs::Structured)
        })
        .collect()
}

/// Median and p99 of 200 runs of `work`, and the size of what it serialized.
fn timed(mut work: impl FnMut() -> anyhow::Result<usize>) -> anyhow::Result<(f64, f64, usize)> {
    let mut times = Vec::new();
    let mut bytes = 0;
    for _ in 0..200 {
        let started = Instant::now();
        bytes = work()?;
        times.push(started.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    Ok((times[times.len() / 2], times[times.len() * 99 / 100], bytes))
}

/// This process's resident memory now, in MB.
fn resident_mb() -> f64 {
    memory_mb(Some(std::process::id()), "VmRSS").unwrap_or(0.0)
}

pub(crate) fn run_list(count: usize, page_size: usize) -> anyhow::Result<()> {
    let tools = many_tools(count, &[&quote::DESCRIPTOR, &order::DESCRIPTOR]);
    let before = resident_mb();
    let started = Instant::now();
    let listing = Listing::from_descriptors(tools);
    let built = started.elapsed();
    let grown = (resident_mb() - before).max(0.0);
    let everyone = Caller::new("bench");
    let scoped = Caller::new("bench").with_scopes(["catalog:read"]);
    // What `tools/list` does the first time a caller with these scopes asks over stdio or
    // stateless HTTP: the page joined from the tools' prepared texts (then kept, and written
    // as it is around the rest of the result).
    let prepared = |offset: usize, size: Option<usize>| -> anyhow::Result<usize> {
        Ok(listing.page_json(&everyone, offset, size).0.len())
    };
    // What it does for a client with a session (rmcp writes the result): the page as rmcp
    // `Tool`s, built on the first list, cloned and serialized.
    let serialized = |offset: usize, size: Option<usize>| -> anyhow::Result<usize> {
        let (tools, next) = listing.page(&everyone, offset, size);
        let mut result = ListToolsResult::with_all_items(tools);
        result.next_cursor = next.map(|n| n.to_string());
        Ok(serde_json::to_vec(&result)?.len())
    };
    let whole = timed(|| prepared(0, None))?;
    let paged = timed(|| prepared(count / 2, Some(page_size)))?;
    let filtered = timed(|| Ok(listing.page_json(&scoped, 0, None).0.len()))?;
    let before_trees = resident_mb();
    let first = Instant::now();
    serialized(0, None)?;
    let first = first.elapsed();
    let trees = (resident_mb() - before_trees).max(0.0);
    let sessions = timed(|| serialized(0, None))?;
    println!(
        "tools/list of {count} tools (server side; the listing is built once, in {:.1} ms, \
         resident memory +{:.1} MB):",
        built.as_secs_f64() * 1e3,
        grown
    );
    println!(
        "  whole list joined from the prepared texts, {} KB: median {:.3} ms, p99 {:.3} ms",
        whole.2 / 1024,
        whole.0,
        whole.1
    );
    println!(
        "  one page of {page_size} (--page-size), {} KB: median {:.3} ms, p99 {:.3} ms",
        paged.2 / 1024,
        paged.0,
        paged.1
    );
    println!(
        "  a caller with a scope (filter + join): median {:.3} ms, p99 {:.3} ms",
        filtered.0, filtered.1
    );
    println!(
        "  whole list with a session (rmcp Tools, built on the first list in {:.1} ms, +{:.1} MB): \
         median {:.2} ms, p99 {:.2} ms",
        first.as_secs_f64() * 1e3,
        trees,
        sessions.0,
        sessions.1
    );
    Ok(())
}

/// toolspec's server with 3 tools and with `counts` more, in a child process, listed by an
/// rmcp client over each transport: its resident memory once the client is connected (before
/// any list) and after the lists, and its CPU time per whole list.
pub(crate) async fn run_served_lists(counts: &[usize]) -> anyhow::Result<()> {
    println!(
        "tools/list served by toolspec in a child process (the 3-tool server, then with more \
         tools), read whole by rmcp's client:"
    );
    println!(
        "| tools | transport | resident, connected | after the lists | server CPU per list | list |"
    );
    println!("|---|---|---|---|---|---|");
    for &copies in std::iter::once(&0).chain(counts) {
        for transport in [
            Transport::Stdio,
            Transport::HttpSession,
            Transport::HttpStateless,
        ] {
            let connection =
                connect(Server::Toolspec, transport, copies, Runtime::MultiThread).await?;
            let pid = connection
                .pid
                .ok_or_else(|| anyhow::anyhow!("no server process"))?;
            tokio::time::sleep(Duration::from_millis(200)).await;
            let idle = memory_mb(Some(pid), "VmRSS").unwrap_or(0.0);
            let tools = connection.client.list_all_tools().await?;
            let size = serde_json::to_vec(&tools)?.len();
            let lists = (200_000 / tools.len().max(1)).clamp(20, 2_000);
            let before = cpu_time(Some(pid)).unwrap_or_default();
            for _ in 0..lists {
                connection.client.list_all_tools().await?;
            }
            let spent = cpu_time(Some(pid))
                .unwrap_or_default()
                .saturating_sub(before);
            let per_list = spent.as_secs_f64() * 1e3 / lists as f64;
            println!(
                "| {} | {} | {idle:.1} MB | {:.1} MB | {per_list:.3} ms | {} KB |",
                tools.len(),
                transport.name(),
                memory_mb(Some(pid), "VmRSS").unwrap_or(0.0),
                size / 1024
            );
            connection.client.cancel().await?;
        }
    }
    Ok(())
}
