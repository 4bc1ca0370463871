-- Round trips (a confirmation, a form a user fills in).
--
-- Request states spent: a sealed state opens once, on whichever process its client comes back
-- to. A row is kept until the state has expired
-- (`expires_at`, milliseconds since the Unix epoch), then swept.
CREATE TABLE IF NOT EXISTS toolspec_spent_states (
    id          TEXT   PRIMARY KEY,
    spent_at    BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);

CREATE INDEX IF NOT EXISTS toolspec_spent_states_by_expiry ON toolspec_spent_states (expires_at);

-- What the user answered, on the record of the call that continued a round trip: each
-- request's response (`{"confirm": {"action": "accept"}}`); none on other calls.
ALTER TABLE toolspec_audit ADD COLUMN answers TEXT;
