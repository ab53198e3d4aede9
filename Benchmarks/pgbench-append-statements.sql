-- The statements of one ListDelta append before the append function (eight round trips: BEGIN, the lock, the
-- head, its update, the revision, the pruning, NOTIFY, COMMIT), for pgbench: the figure the append function is
-- compared with. 100 lists, 600-byte deltas, retention 1000.
\set k random(0, 99)
BEGIN;
SELECT pg_advisory_xact_lock(hashtextextended('pgbench-s-' || :k, 0));
SELECT id, revision, is_deleted FROM list_head WHERE id = 'pgbench-s-' || :k;
INSERT INTO list_head (id, revision, is_deleted, oldest_revision, first_revision, checkpoint_revision, kind, section_count,
    item_count, delta_bytes_since_checkpoint, checkpoint_bytes)
    VALUES ('pgbench-s-' || :k, 1, false, 1, 1, 1, 'sections', 3, 30, 0, 600)
    ON CONFLICT (id) DO UPDATE SET revision = list_head.revision + 1, delta_bytes_since_checkpoint = list_head.delta_bytes_since_checkpoint + 600
    RETURNING revision \gset
INSERT INTO revision (list_id, revision, is_checkpoint, committed_at_ms, origin, section_count, item_count, delta, undo)
    VALUES ('pgbench-s-' || :k, :revision, :revision = 1, 0, 'put', 3, 30, decode(repeat('ab', 600), 'hex'), decode(repeat('cd', 300), 'hex'));
DELETE FROM revision WHERE list_id = 'pgbench-s-' || :k AND revision < :revision - 1000;
SELECT pg_notify('listdelta_commits', 'pgbench c ' || :revision || ' pgbench-' || :k);
COMMIT;
