-- toolspec's own tables in the app's PostgreSQL database: the audit trail and `once` keys
-- (`lock`s are advisory locks, not rows).
CREATE TABLE IF NOT EXISTS toolspec_audit (
    id          UUID        PRIMARY KEY,
    started_at  TIMESTAMPTZ NOT NULL,
    duration_us BIGINT      NOT NULL,
    tool        TEXT        NOT NULL,
    adapter     TEXT,
    caller      TEXT,
    ambient     JSONB       NOT NULL,
    arguments   JSONB       NOT NULL,
    outcome     TEXT        NOT NULL,
    message     TEXT,
    exception   TEXT,
    result      JSONB,
    trace_id    TEXT        NOT NULL
);
CREATE INDEX IF NOT EXISTS toolspec_audit_by_time ON toolspec_audit (started_at);
CREATE INDEX IF NOT EXISTS toolspec_audit_by_tool ON toolspec_audit (tool, started_at);
CREATE INDEX IF NOT EXISTS toolspec_audit_by_caller ON toolspec_audit (caller, started_at);

-- `once` keys and (SQLite only) `lock`s are toolspec's bookkeeping, read by nobody else:
-- times are milliseconds since the Unix epoch, values JSON text, alike on both databases.
CREATE TABLE IF NOT EXISTS toolspec_once (
    tool        TEXT   NOT NULL,
    key_hash    TEXT   NOT NULL,
    key         TEXT   NOT NULL,
    state       TEXT   NOT NULL CHECK (state IN ('running', 'done')),
    holder      TEXT   NOT NULL,
    started_at  BIGINT NOT NULL,
    lease_until BIGINT NOT NULL,
    finished_at BIGINT,
    expires_at  BIGINT,
    outcome     TEXT,
    result      TEXT,
    PRIMARY KEY (tool, key_hash)
);
