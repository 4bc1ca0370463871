-- Durable tasks: one row per call stored as a task. A task is `working` until a worker writes
-- its end (`completed`, `failed`) or its owner cancels it (`cancelled`); while it runs,
-- `claimed_by` names the worker and `lease_until` says until when the claim holds without
-- renewal (past it, another worker takes the task over). `arguments` and `ambient` are what
-- the run needs and are erased when the task ends; `result` is kept until `expires_at`.
-- Times are milliseconds since the Unix epoch.
CREATE TABLE IF NOT EXISTS toolspec_tasks (
    id               TEXT    PRIMARY KEY,
    owner            TEXT    NOT NULL,
    tool             TEXT    NOT NULL,
    adapter          TEXT,
    scopes           TEXT,
    ambient          TEXT,
    arguments        TEXT,
    trace_id         TEXT,
    status           TEXT    NOT NULL,
    result           TEXT,
    progress         REAL,
    progress_message TEXT,
    attempts         INTEGER NOT NULL DEFAULT 0,
    claimed_by       TEXT,
    lease_until      INTEGER,
    timeout_ms       INTEGER    NOT NULL,
    created_at       INTEGER    NOT NULL,
    updated_at       INTEGER    NOT NULL,
    expires_at       INTEGER    NOT NULL
);

CREATE INDEX IF NOT EXISTS toolspec_tasks_claimable ON toolspec_tasks (status, created_at);
CREATE INDEX IF NOT EXISTS toolspec_tasks_owner ON toolspec_tasks (owner, status);
CREATE INDEX IF NOT EXISTS toolspec_tasks_expiry ON toolspec_tasks (expires_at);
