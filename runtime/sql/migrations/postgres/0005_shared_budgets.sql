-- Rate budgets that every process on the database shares (a serve option): one row per caller
-- and tool, its key a digest of both, `tat` the GCRA's theoretical arrival time (milliseconds
-- since the Unix epoch): a call may pass while `tat` is at most the burst's tolerance ahead of
-- now. A row whose `tat` has passed holds a full budget, like no row: it is swept.
CREATE TABLE IF NOT EXISTS toolspec_budgets (
    key  TEXT   PRIMARY KEY,
    tat  BIGINT NOT NULL
);

CREATE INDEX IF NOT EXISTS toolspec_budgets_by_tat ON toolspec_budgets (tat);
