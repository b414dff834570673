-- Named queries for SQLite (sqlite3 named placeholders). Timestamps are UTC
-- text 'YYYY-MM-DD HH:MM:SS.SSS', which sorts correctly and reads well.

-- name: queue_schema
CREATE TABLE IF NOT EXISTS {table} (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    payload TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(payload)),
    state TEXT NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending', 'running', 'done', 'dead')),
    attempts INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL DEFAULT 5 CHECK (max_attempts > 0),
    run_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    locked_at TEXT,
    locked_by TEXT,
    last_error TEXT,
    idempotency_key TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    finished_at TEXT,
    failed_at TEXT
);
CREATE INDEX IF NOT EXISTS {name}_pending_idx ON {table} (run_at, id) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS {name}_running_idx ON {table} (locked_at) WHERE state = 'running';
CREATE INDEX IF NOT EXISTS {name}_dead_idx ON {table} (id) WHERE state = 'dead';
CREATE INDEX IF NOT EXISTS {name}_finished_idx ON {table} (finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS {name}_failed_idx ON {table} (failed_at) WHERE failed_at IS NOT NULL;

-- name: queue_enqueue
INSERT INTO {table} (name, payload, run_at, max_attempts, idempotency_key)
VALUES (:name, :payload, coalesce(:run_at, strftime('%Y-%m-%d %H:%M:%f', 'now')),
        :max_attempts, :idempotency_key)
RETURNING id;

-- name: queue_claim
-- Run inside BEGIN IMMEDIATE: SQLite has one writer at a time, so taking the
-- write lock first is what makes the select-then-update atomic.
UPDATE {table}
SET state = 'running', attempts = attempts + 1,
    locked_at = strftime('%Y-%m-%d %H:%M:%f', 'now'), locked_by = :worker_id
WHERE id = (
    SELECT id FROM {table}
    WHERE state = 'pending' AND run_at <= strftime('%Y-%m-%d %H:%M:%f', 'now')
    ORDER BY run_at, id
    LIMIT 1
)
RETURNING id, name, payload, attempts, max_attempts, idempotency_key;

-- name: queue_complete
UPDATE {table}
SET state = 'done', finished_at = strftime('%Y-%m-%d %H:%M:%f', 'now'), locked_at = NULL
WHERE id = :id AND state = 'running' AND attempts = :attempts;

-- name: queue_heartbeat
UPDATE {table}
SET locked_at = strftime('%Y-%m-%d %H:%M:%f', 'now')
WHERE id = :id AND state = 'running' AND attempts = :attempts;

-- name: queue_fail
UPDATE {table}
SET state = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'pending' END,
    run_at = CASE WHEN attempts >= max_attempts THEN run_at
                  ELSE strftime('%Y-%m-%d %H:%M:%f', 'now', printf('%.3f seconds', :delay)) END,
    finished_at = CASE WHEN attempts >= max_attempts
                       THEN strftime('%Y-%m-%d %H:%M:%f', 'now') END,
    failed_at = strftime('%Y-%m-%d %H:%M:%f', 'now'),
    last_error = :error,
    locked_at = NULL
WHERE id = :id AND state = 'running' AND attempts = :attempts
RETURNING state;

-- name: queue_reclaim_stale
UPDATE {table}
SET state = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'pending' END,
    finished_at = CASE WHEN attempts >= max_attempts
                       THEN strftime('%Y-%m-%d %H:%M:%f', 'now') END,
    run_at = strftime('%Y-%m-%d %H:%M:%f', 'now'),
    failed_at = strftime('%Y-%m-%d %H:%M:%f', 'now'),
    last_error = 'lease expired: worker ' || coalesce(locked_by, '?') || ' stopped heartbeating',
    locked_at = NULL
WHERE state = 'running'
  AND locked_at < strftime('%Y-%m-%d %H:%M:%f', 'now', printf('-%.3f seconds', :older_than_s));

-- name: queue_replay_dead
UPDATE {table}
SET state = 'pending', attempts = 0, run_at = strftime('%Y-%m-%d %H:%M:%f', 'now'),
    finished_at = NULL, locked_at = NULL
WHERE state = 'dead' AND (:all OR id IN (SELECT value FROM json_each(:ids)));

-- name: queue_health
SELECT
    (SELECT count(*) FROM {table} WHERE state = 'dead'),
    (SELECT coalesce((julianday('now') - julianday(min(run_at))) * 86400.0, 0.0)
       FROM {table} WHERE state = 'pending' AND run_at <= strftime('%Y-%m-%d %H:%M:%f', 'now')),
    (SELECT count(*) FROM {table}
       WHERE state = 'done' AND finished_at >= strftime('%Y-%m-%d %H:%M:%f', 'now', '-10 minutes')),
    (SELECT count(*) FROM {table}
       WHERE state <> 'done' AND failed_at >= strftime('%Y-%m-%d %H:%M:%f', 'now', '-10 minutes'));

-- name: runs_schema
CREATE TABLE IF NOT EXISTS {table} (
    job_key TEXT PRIMARY KEY,
    claimed_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now'))
);

-- name: runs_claim
INSERT INTO {table} (job_key) VALUES (:key) ON CONFLICT (job_key) DO NOTHING;

-- name: runs_release
DELETE FROM {table} WHERE job_key = :key;

-- name: runs_forget
DELETE FROM {table}
WHERE claimed_at < strftime('%Y-%m-%d %H:%M:%f', 'now', printf('-%.3f seconds', :older_than_s));
