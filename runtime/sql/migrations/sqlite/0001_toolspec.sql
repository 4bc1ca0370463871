-- toolspec's own tables in the app's SQLite database: the audit trail, `once` keys and `lock`s.
-- Times are RFC 3339 UTC text with microseconds (`2026-01-05T10:00:00.000000Z`), so text order
-- is time order; JSON is text.
CREATE TABLE IF NOT EXISTS toolspec_audit (
    id          TEXT    PRIMARY KEY,
    started_at  TEXT    NOT NULL,
    duration_us INTEGER NOT NULL,
    tool        TEXT    NOT NULL,
    adapter     TEXT,
    caller      TEXT,
    ambient     TEXT    NOT NULL,
    arguments   TEXT    NOT NULL,
    outcome     TEXT    NOT NULL,
    message     TEXT,
    exception   TEXT,
    result      TEXT,
    trace_id    TEXT    NOT NULL
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
    started_at  INTEGER NOT NULL,
    lease_until INTEGER NOT NULL,
    finished_at INTEGER,
    expires_at  INTEGER,
    outcome     TEXT,
    result      TEXT,
    PRIMARY KEY (tool, key_hash)
);

CREATE TABLE IF NOT EXISTS toolspec_locks (
    tool        TEXT    NOT NULL,
    key_hash    TEXT    NOT NULL,
    holder      TEXT    NOT NULL,
    acquired_at INTEGER NOT NULL,
    lease_until INTEGER NOT NULL,
    PRIMARY KEY (tool, key_hash)
);
