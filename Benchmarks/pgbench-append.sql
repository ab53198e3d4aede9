-- One ListDelta append as the service sends it (PostgresStore.append: one call of listdelta_append_v1, the
-- compare-and-set of the head, with the head's new values, the revision row and the announcement), for pgbench:
-- what PostgreSQL alone spends per revision, without the service. 100 lists, 600-byte deltas, retention 1000.
-- The expected head is read in the same statement (the service knows it; pgbench keeps no state between
-- transactions). Needs the function, which any ListDelta instance creates on start.
\set k random(0, 99)
SELECT * FROM listdelta_append_v1('pgbench-' || :k,
    (SELECT revision FROM list_head WHERE id = 'pgbench-' || :k), false,
    coalesce((SELECT revision FROM list_head WHERE id = 'pgbench-' || :k), 0) + 1,
    greatest(1, coalesce((SELECT revision FROM list_head WHERE id = 'pgbench-' || :k), 0) - 998), 1, 1, 'sections', 3, 30, 600, 600,
    0, 'put', NULL, 3, 30, 0, 0, 0, 0, 0, 3, 1, 2,
    decode(repeat('ab', 600), 'hex'),
    CASE WHEN NOT EXISTS (SELECT 1 FROM list_head WHERE id = 'pgbench-' || :k) THEN decode(repeat('ef', 600), 'hex') END,
    decode(repeat('cd', 300), 'hex'), 'pgbench c 0 pgbench-' || :k);
