//! The CLI's durable tasks: `call --task` stores a call of a tool that may run as a task and
//! prints the task (with `--wait`, this process's worker runs it and the ended task is
//! printed); `tasks list|get|cancel` read and cancel the tasks of a caller (`cli` unless
//! `--caller` says otherwise: the CLI is trusted, as an operator's).

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Subcommand;
use serde_json::{Value, json};
use toolspec::tasks::{Accept, Submitted, Task, TaskError};
use toolspec::{AmbientContext, CallOptions, Caller, Registry};

/// `tasks …`: the caller's tasks.
#[derive(Debug, Subcommand)]
pub(crate) enum TasksCommand {
    /// The caller's unfinished tasks, newest first.
    List,
    /// One task: its status, progress, and its result once it ended.
    Get {
        /// The task's id.
        id: String,
    },
    /// Cancel a task that has not ended (nothing changes for one that has).
    Cancel {
        /// The task's id.
        id: String,
    },
}

/// How often `call --task --wait` reads the task.
const POLL: Duration = Duration::from_millis(200);

/// Stores a call of `tool` as a task as `caller` and prints it; with `wait`, runs it in this
/// process and prints it once it ended. Exits 0 when stored (and, waiting, completed without
/// an error).
pub(crate) async fn call_as_task(
    registry: Arc<Registry>,
    tool: &str,
    args: Value,
    ambient: &AmbientContext,
    caller: &Caller,
    wait: bool,
) -> anyhow::Result<ExitCode> {
    let Some(registered) = registry.get(tool) else {
        anyhow::bail!("tool `{tool}` is described but not registered");
    };
    if registered.descriptor().task.is_none() {
        eprintln!("error: `{tool}` does not run as a task (its spec has no `task:`)");
        return Ok(ExitCode::from(2));
    }
    let options = CallOptions::for_caller("cli", caller);
    let submitted = registered
        .submit_with(args, ambient, options, Accept::Tasks)
        .await;
    let exit = stored(&registry, submitted, caller, wait).await;
    // Every record of the call (and, waiting, of its run) is written before the store closes.
    registry.flush_audit().await;
    exit
}

/// Prints what a call stored as a task answered, waiting for the task to end when asked.
async fn stored(
    registry: &Arc<Registry>,
    submitted: Submitted,
    caller: &Caller,
    wait: bool,
) -> anyhow::Result<ExitCode> {
    let task = match submitted {
        Submitted::Task(task) => task,
        // The CLI has no user to ask: the call is refused, saying what it would ask.
        submitted @ (Submitted::Done(_) | Submitted::Input(_)) => {
            let result = submitted.into_result();
            println!("{}", serde_json::to_string_pretty(&result.to_model_json())?);
            if let Some(error) = result.error() {
                eprintln!("error [{}]: {}", error.code, error.message);
            }
            return Ok(ExitCode::FAILURE);
        }
    };
    if !wait {
        println!("{}", serde_json::to_string_pretty(&task.to_json())?);
        return Ok(ExitCode::SUCCESS);
    }
    registry.start_tasks();
    let id = task.id.to_string();
    let ended = loop {
        let task = registry.task(&id, caller).await?;
        if task.status.is_terminal() {
            break task;
        }
        if let Some(progress) = &task.progress {
            eprintln!(
                "progress: {:>3.0}% {}",
                progress.fraction * 100.0,
                progress.message
            );
        }
        tokio::time::sleep(POLL).await;
    };
    print_task(&ended)
}

/// Runs `command` as `caller`.
pub(crate) async fn run(
    registry: &Registry,
    command: TasksCommand,
    caller: &Caller,
) -> anyhow::Result<ExitCode> {
    let answer = match command {
        TasksCommand::List => registry.tasks_of(caller).await.map(|tasks| {
            let tasks: Vec<Value> = tasks.iter().map(Task::to_json).collect();
            println!("{}", json!({ "tasks": tasks }));
        }),
        TasksCommand::Get { id } => registry.task(&id, caller).await.map(|task| {
            let _ = print_task(&task);
        }),
        TasksCommand::Cancel { id } => registry.cancel_task(&id, caller).await.map(|task| {
            let _ = print_task(&task);
        }),
    };
    match answer {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(error @ (TaskError::Malformed(_) | TaskError::Unknown)) => {
            eprintln!("error: {error}");
            Ok(ExitCode::from(2))
        }
        Err(error) => Err(anyhow::Error::new(error).context("the task queue")),
    }
}

/// Prints `task` as JSON; 0 unless it failed, was cancelled, or completed with an error.
fn print_task(task: &Task) -> anyhow::Result<ExitCode> {
    println!("{}", serde_json::to_string_pretty(&task.to_json())?);
    let failed = task.result.as_ref().is_some_and(|r| !r.is_ok());
    let ended_badly = matches!(
        task.status,
        toolspec::tasks::TaskStatus::Failed | toolspec::tasks::TaskStatus::Cancelled
    );
    Ok(if failed || ended_badly {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
