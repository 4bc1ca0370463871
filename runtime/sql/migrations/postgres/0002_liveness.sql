-- The processes on this database (each beats while it lives, so that what a dead one left
-- lapses within seconds), which process holds each `once` claim, and audit records opened
-- before their call runs (`required` tools): a record's `state` is `started` until its outcome
-- is written (`finished`), or `interrupted` when the process that ran the call died first;
-- its `outcome` is empty until then.
CREATE TABLE IF NOT EXISTS toolspec_instances (
    id          TEXT   PRIMARY KEY,
    started_at  BIGINT NOT NULL,
    seen_at     BIGINT NOT NULL
);

ALTER TABLE toolspec_once ADD COLUMN IF NOT EXISTS instance TEXT;

ALTER TABLE toolspec_audit ALTER COLUMN outcome DROP NOT NULL;
ALTER TABLE toolspec_audit ADD COLUMN IF NOT EXISTS state TEXT NOT NULL DEFAULT 'finished'
    CHECK (state IN ('started', 'finished', 'interrupted'));
ALTER TABLE toolspec_audit ADD COLUMN IF NOT EXISTS instance TEXT;
CREATE INDEX IF NOT EXISTS toolspec_audit_open ON toolspec_audit (instance) WHERE state = 'started';
