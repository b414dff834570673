-- Named queries for PostgreSQL (psycopg 3 placeholders). "{table}" is the
-- validated table name, "{name}" its unqualified part (used for index names).

-- name: queue_schema
CREATE TABLE IF NOT EXISTS {table} (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name text NOT NULL,
    payload jsonb NOT NULL DEFAULT '{}',
    state text NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending', 'running', 'done', 'dead')),
    attempts integer NOT NULL DEFAULT 0,
    max_attempts integer NOT NULL DEFAULT 5 CHECK (max_attempts > 0),
    run_at timestamptz NOT NULL DEFAULT now(),
    locked_at timestamptz,
    locked_by text,
    last_error text,
    idempotency_key text,
    created_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    failed_at timestamptz
);
-- Claim order; partial, so done rows never slow the claim down.
CREATE INDEX IF NOT EXISTS {name}_pending_idx ON {table} (run_at, id) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS {name}_running_idx ON {table} (locked_at) WHERE state = 'running';
CREATE INDEX IF NOT EXISTS {name}_dead_idx ON {table} (id) WHERE state = 'dead';
CREATE INDEX IF NOT EXISTS {name}_finished_idx ON {table} (finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS {name}_failed_idx ON {table} (failed_at) WHERE failed_at IS NOT NULL;

-- name: queue_enqueue
INSERT INTO {table} (name, payload, run_at, max_attempts, idempotency_key)
VALUES (%(name)s, %(payload)s::jsonb, coalesce(%(run_at)s, now()), %(max_attempts)s,
        %(idempotency_key)s)
RETURNING id;

-- name: queue_claim
-- One statement: the sub-select locks the first due row nobody else holds,
-- the UPDATE leases it. Concurrent workers skip each other's rows instead of
-- queueing behind them, and nobody can claim a row twice.
UPDATE {table}
SET state = 'running', attempts = attempts + 1, locked_at = now(), locked_by = %(worker_id)s
WHERE id = (
    SELECT id FROM {table}
    WHERE state = 'pending' AND run_at <= now()
    ORDER BY run_at, id
    FOR UPDATE SKIP LOCKED
    LIMIT 1
)
RETURNING id, name, payload, attempts, max_attempts, idempotency_key;

-- name: queue_complete
-- "attempts" is the fencing token: a worker whose lease was reclaimed (and
-- maybe re-claimed by another worker) can no longer touch the row.
UPDATE {table}
SET state = 'done', finished_at = now(), locked_at = NULL
WHERE id = %(id)s AND state = 'running' AND attempts = %(attempts)s;

-- name: queue_heartbeat
UPDATE {table}
SET locked_at = now()
WHERE id = %(id)s AND state = 'running' AND attempts = %(attempts)s;

-- name: queue_fail
UPDATE {table}
SET state = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'pending' END,
    run_at = CASE WHEN attempts >= max_attempts THEN run_at
                  ELSE now() + make_interval(secs => %(delay)s) END,
    finished_at = CASE WHEN attempts >= max_attempts THEN now() END,
    failed_at = now(),
    last_error = %(error)s,
    locked_at = NULL
WHERE id = %(id)s AND state = 'running' AND attempts = %(attempts)s
RETURNING state;

-- name: queue_reclaim_stale
-- The claim already counted the lost attempt, so a job that kills its worker
-- every time ends up dead instead of looping forever.
UPDATE {table}
SET state = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'pending' END,
    finished_at = CASE WHEN attempts >= max_attempts THEN now() END,
    run_at = now(),
    failed_at = now(),
    last_error = 'lease expired: worker ' || coalesce(locked_by, '?') || ' stopped heartbeating',
    locked_at = NULL
WHERE state = 'running' AND locked_at < now() - make_interval(secs => %(older_than_s)s);

-- name: queue_replay_dead
UPDATE {table}
SET state = 'pending', attempts = 0, run_at = now(), finished_at = NULL, locked_at = NULL
WHERE state = 'dead' AND (%(all)s OR id = ANY(%(ids)s::bigint[]));

-- name: queue_health
SELECT
    (SELECT count(*) FROM {table} WHERE state = 'dead'),
    (SELECT coalesce(extract(epoch FROM now() - min(run_at)), 0)::float8
       FROM {table} WHERE state = 'pending' AND run_at <= now()),
    (SELECT count(*) FROM {table}
       WHERE state = 'done' AND finished_at >= now() - interval '10 minutes'),
    (SELECT count(*) FROM {table}
       WHERE state <> 'done' AND failed_at >= now() - interval '10 minutes');

-- name: runs_schema
CREATE TABLE IF NOT EXISTS {table} (
    job_key text PRIMARY KEY,
    claimed_at timestamptz NOT NULL DEFAULT now()
);

-- name: runs_claim
-- A concurrent duplicate blocks on the uncommitted key until the first
-- transaction ends: COMMIT makes it a no-op, ROLLBACK lets it claim.
INSERT INTO {table} (job_key) VALUES (%(key)s) ON CONFLICT (job_key) DO NOTHING;

-- name: runs_release
DELETE FROM {table} WHERE job_key = %(key)s;

-- name: runs_forget
DELETE FROM {table} WHERE claimed_at < now() - make_interval(secs => %(older_than_s)s);

-- name: outbox_schema
CREATE TABLE IF NOT EXISTS {table} (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_name text NOT NULL,
    args jsonb NOT NULL DEFAULT '[]',
    kwargs jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    sent_at timestamptz,
    attempts integer NOT NULL DEFAULT 0,
    last_error text
);
CREATE INDEX IF NOT EXISTS {name}_unsent_idx ON {table} (attempts, id) WHERE sent_at IS NULL;

-- name: outbox_add
INSERT INTO {table} (task_name, args, kwargs)
VALUES (%(task_name)s, %(args)s::jsonb, %(kwargs)s::jsonb)
RETURNING id;

-- name: outbox_claim
-- Rows that failed to publish sort after fresh ones, so one poison message
-- cannot hold up the rest.
SELECT id, task_name, args, kwargs FROM {table}
WHERE sent_at IS NULL
ORDER BY attempts, id
LIMIT %(batch)s
FOR UPDATE SKIP LOCKED;

-- name: outbox_mark_sent
UPDATE {table} SET sent_at = now(), attempts = attempts + 1 WHERE id = ANY(%(ids)s::bigint[]);

-- name: outbox_mark_failed
UPDATE {table} SET attempts = attempts + 1, last_error = %(error)s WHERE id = %(id)s;

-- name: outbox_purge
DELETE FROM {table} WHERE sent_at < now() - make_interval(secs => %(older_than_s)s);
