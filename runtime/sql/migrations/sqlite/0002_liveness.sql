-- The processes on this database (each beats while it lives, so that what a dead one left
-- lapses within seconds), which process holds each `once` claim and lock, and audit records
-- opened before their call runs (`required` tools): a record's `state` is `started` until its
-- outcome is written (`finished`), or `interrupted` when the process that ran the call died
-- first; its `outcome` is empty until then.
CREATE TABLE IF NOT EXISTS toolspec_instances (
    id          TEXT    PRIMARY KEY,
    started_at  INTEGER NOT NULL,
    seen_at     INTEGER NOT NULL
);

ALTER TABLE toolspec_once ADD COLUMN instance TEXT;
ALTER TABLE toolspec_locks ADD COLUMN instance TEXT;

-- SQLite cannot make a column nullable in place: the audit table is rebuilt.
CREATE TABLE toolspec_audit_next (
    id          TEXT    PRIMARY KEY,
    started_at  TEXT    NOT NULL,
    duration_us INTEGER NOT NULL,
    tool        TEXT    NOT NULL,
    adapter     TEXT,
    caller      TEXT,
    ambient     TEXT    NOT NULL,
    arguments   TEXT    NOT NULL,
    outcome     TEXT,
    message     TEXT,
    exception   TEXT,
    result      TEXT,
    trace_id    TEXT    NOT NULL,
    state       TEXT    NOT NULL DEFAULT 'finished'
                CHECK (state IN ('started', 'finished', 'interrupted')),
    instance    TEXT
);
INSERT INTO toolspec_audit_next (id, started_at, duration_us, tool, adapter, caller, ambient,
        arguments, outcome, message, exception, result, trace_id)
    SELECT id, started_at, duration_us, tool, adapter, caller, ambient, arguments, outcome,
        message, exception, result, trace_id
    FROM toolspec_audit;
DROP TABLE toolspec_audit;
ALTER TABLE toolspec_audit_next RENAME TO toolspec_audit;
CREATE INDEX IF NOT EXISTS toolspec_audit_by_time ON toolspec_audit (started_at);
CREATE INDEX IF NOT EXISTS toolspec_audit_by_tool ON toolspec_audit (tool, started_at);
CREATE INDEX IF NOT EXISTS toolspec_audit_by_caller ON toolspec_audit (caller, started_at);
CREATE INDEX IF NOT EXISTS toolspec_audit_open ON toolspec_audit (instance) WHERE state = 'started';
