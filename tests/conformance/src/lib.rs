//! The fixture tools of the official MCP conformance suite (`@modelcontextprotocol/conformance`),
//! as a toolspec app: specs in `specs/`, handlers here, served by `main.rs` over streamable
//! HTTP on an SQLite file (tasks are kept there).

use std::time::Duration;

toolspec::include_tools!();

use tools::{echo, greet, jobs, test};

/// The fixtures' handlers: no state.
#[derive(Debug, Default, Clone, Copy)]
pub struct Fixtures;

impl echo::Handler for Fixtures {
    async fn call(&self, input: echo::Input, _cx: echo::Context<'_>) -> echo::Outcome {
        Ok(echo::Output { text: input.text })
    }
}

impl greet::Handler for Fixtures {
    async fn call(&self, input: greet::Input, _cx: greet::Context<'_>) -> greet::Outcome {
        Ok(greet::Output {
            greeting: format!("Hello, {}!", input.name),
        })
    }
}

impl jobs::slow_compute::Handler for Fixtures {
    /// Sleeps, stopping as soon as the call (or its task) is cancelled.
    async fn call(
        &self,
        input: jobs::slow_compute::Input,
        cx: jobs::slow_compute::Context<'_>,
    ) -> jobs::slow_compute::Outcome {
        let seconds = input.seconds.unsigned_abs();
        for second in 0..seconds {
            cx.progress(
                second as f64 / seconds as f64,
                format!("{second} of {seconds} seconds"),
            );
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        let label = input.label.unwrap_or_else(|| "slow_compute".into());
        Ok(jobs::slow_compute::Output {
            result: format!("{label}: computed after {seconds} seconds"),
        })
    }
}

impl jobs::failing_job::Handler for Fixtures {
    async fn call(
        &self,
        _input: jobs::failing_job::Input,
        _cx: jobs::failing_job::Context<'_>,
    ) -> jobs::failing_job::Outcome {
        tokio::time::sleep(Duration::from_secs(1)).await;
        Err(jobs::failing_job::Error::JobFailed.into())
    }
}

impl jobs::protocol_error_job::Handler for Fixtures {
    #[allow(
        clippy::panic,
        reason = "the fixture's whole point: a handler that breaks"
    )]
    async fn call(
        &self,
        _input: jobs::protocol_error_job::Input,
        _cx: jobs::protocol_error_job::Context<'_>,
    ) -> jobs::protocol_error_job::Outcome {
        tokio::time::sleep(Duration::from_millis(200)).await;
        panic!("protocol_error_job breaks on purpose")
    }
}

impl test::simple_text::Handler for Fixtures {
    async fn call(
        &self,
        _input: test::simple_text::Input,
        _cx: test::simple_text::Context<'_>,
    ) -> test::simple_text::Outcome {
        Ok(test::simple_text::Output {
            text: "This is a simple text response for testing.".into(),
        })
    }
}

impl test::error_handling::Handler for Fixtures {
    async fn call(
        &self,
        _input: test::error_handling::Input,
        _cx: test::error_handling::Context<'_>,
    ) -> test::error_handling::Outcome {
        Err(test::error_handling::Error::Intentional.into())
    }
}

impl test::tool_with_progress::Handler for Fixtures {
    async fn call(
        &self,
        _input: test::tool_with_progress::Input,
        cx: test::tool_with_progress::Context<'_>,
    ) -> test::tool_with_progress::Outcome {
        for step in 0..3 {
            if step > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            cx.progress(f64::from(step) / 2.0, format!("step {} of 3", step + 1));
        }
        Ok(test::tool_with_progress::Output {
            text: "Progress reported three times.".into(),
        })
    }
}

/// The registry of the fixtures over the SQLite file at `path` (created when missing).
pub async fn registry(path: &std::path::Path) -> Result<toolspec::Registry, sqlx::Error> {
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true);
    let pool = sqlx::SqlitePool::connect_with(options).await?;
    Ok(tools::registry(Fixtures, toolspec::Database::sqlite(pool)))
}

impl test::streaming_elicitation::Handler for Fixtures {
    async fn call(
        &self,
        _input: test::streaming_elicitation::Input,
        _cx: test::streaming_elicitation::Context<'_>,
    ) -> test::streaming_elicitation::Outcome {
        Ok(test::streaming_elicitation::Output {
            text: "Streaming complete".into(),
        })
    }
}

impl test::logging_tool::Handler for Fixtures {
    async fn call(
        &self,
        _input: test::logging_tool::Input,
        _cx: test::logging_tool::Context<'_>,
    ) -> test::logging_tool::Outcome {
        Ok(test::logging_tool::Output {
            text: "Logging evaluated".into(),
        })
    }
}

impl test::tool_with_task::Handler for Fixtures {
    async fn call(
        &self,
        input: test::tool_with_task::Input,
        _cx: test::tool_with_task::Context<'_>,
    ) -> test::tool_with_task::Outcome {
        Ok(test::tool_with_task::Output {
            greeting: format!("Hello, {}!", input.name),
        })
    }
}

impl test::elicitation::Handler for Fixtures {
    async fn call(
        &self,
        input: test::elicitation::Input,
        _cx: test::elicitation::Context<'_>,
    ) -> test::elicitation::Outcome {
        Ok(test::elicitation::Output {
            username: input.username,
            email: input.email,
        })
    }
}

impl test::input_required_result::elicitation::Handler for Fixtures {
    async fn call(
        &self,
        input: test::input_required_result::elicitation::Input,
        _cx: test::input_required_result::elicitation::Context<'_>,
    ) -> test::input_required_result::elicitation::Outcome {
        Ok(test::input_required_result::elicitation::Output {
            greeting: format!("Hello, {}!", input.name),
        })
    }
}

impl test::input_required_result::request_state::Handler for Fixtures {
    async fn call(
        &self,
        _input: test::input_required_result::request_state::Input,
        _cx: test::input_required_result::request_state::Context<'_>,
    ) -> test::input_required_result::request_state::Outcome {
        Ok(test::input_required_result::request_state::Output {
            text: "state-ok: the request state was opened and the call confirmed".into(),
        })
    }
}

impl test::input_required_result::tampered_state::Handler for Fixtures {
    async fn call(
        &self,
        _input: test::input_required_result::tampered_state::Input,
        _cx: test::input_required_result::tampered_state::Context<'_>,
    ) -> test::input_required_result::tampered_state::Outcome {
        Ok(test::input_required_result::tampered_state::Output {
            text: "confirmed".into(),
        })
    }
}

impl test::input_required_result::multi_round::Handler for Fixtures {
    async fn call(
        &self,
        input: test::input_required_result::multi_round::Input,
        _cx: test::input_required_result::multi_round::Context<'_>,
    ) -> test::input_required_result::multi_round::Outcome {
        Ok(test::input_required_result::multi_round::Output {
            greeting: format!("Hello, {}!", input.name),
        })
    }
}
