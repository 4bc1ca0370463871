-- Refusals coalesced: a record may stand for several calls of one caller and tool refused
-- alike (out of scope, over the rate limit) within one second — the first has a record of its
-- own, the others are counted on one more. `calls`: how many calls the record stands for.
ALTER TABLE toolspec_audit ADD COLUMN calls BIGINT NOT NULL DEFAULT 1;
