-- A call that `once` answered with an earlier call's recorded result (nothing ran): the id of
-- that call's audit record (the nil id when it was not recorded); none on other calls.
ALTER TABLE toolspec_audit ADD COLUMN replay_of UUID;
