-- A fair task queue, and bounded kept results.
--
-- `turn`: how many of its owner's tasks were unfinished when it was stored; a worker claims the
-- lowest turn first (then the oldest), so that each caller's first waiting task goes before any
-- caller's second, and a caller's backlog waits behind the others' new tasks.
-- `result_bytes`: the size of a task's stored result, which its owner's kept results add up to.
-- `unrecorded`: 1 for a task cancelled before a worker ran it, whose end a worker serving its
-- tool has yet to record in the audit trail (its arguments and ambient context are kept until
-- then, for the record).
ALTER TABLE toolspec_tasks ADD COLUMN turn INTEGER NOT NULL DEFAULT 0;
ALTER TABLE toolspec_tasks ADD COLUMN result_bytes BIGINT NOT NULL DEFAULT 0;
ALTER TABLE toolspec_tasks ADD COLUMN unrecorded INTEGER NOT NULL DEFAULT 0;

-- The task tools each running worker serves, under the instance (`toolspec_instances`) of its
-- process, each with how many of one owner's tasks of it the worker lets run at once (the
-- tool's `rate_limit.in_flight` on that process; 0: no bound): a worker claims only tasks of
-- its tools, and a task whose tool no live instance serves reads as waiting for one. A
-- worker's rows are deleted when it stops; a dead instance's are ignored, and deleted with
-- the instance.
CREATE TABLE IF NOT EXISTS toolspec_task_workers (
    worker    TEXT    NOT NULL,
    instance  TEXT    NOT NULL,
    tool      TEXT    NOT NULL,
    in_flight INTEGER NOT NULL,
    PRIMARY KEY (worker, tool)
);

CREATE INDEX IF NOT EXISTS toolspec_task_workers_by_tool ON toolspec_task_workers (tool, instance);

-- The claims a worker weighs: the waiting tasks by turn, the tasks whose claim holds, and those
-- cancelled before any ran that are yet to be recorded; what an owner keeps, counted when it
-- stores a task.
CREATE INDEX IF NOT EXISTS toolspec_tasks_turns ON toolspec_tasks (status, turn, created_at);
CREATE INDEX IF NOT EXISTS toolspec_tasks_leased ON toolspec_tasks (lease_until);
CREATE INDEX IF NOT EXISTS toolspec_tasks_unrecorded ON toolspec_tasks (unrecorded, updated_at);
CREATE INDEX IF NOT EXISTS toolspec_tasks_kept ON toolspec_tasks (owner, expires_at, result_bytes);
