-- Benchmark (b): stateless filter, half the rows pass.
SET 'parallelism.default' = '2';
SET 'table.local-time-zone' = 'UTC';
-- The process ends when the job does (the Flink SQL Client would only submit it).
SET 'table.dml-sync' = 'true';

CREATE TABLE src (
    id      BIGINT,
    -- Deterministic in id, so both engines read the same rows (run.py compares their
    -- outputs): two quadratic hashes modulo the prime 4294967291 (user_id in [0, 1000]; per-key
    -- counts spread as uniform random draws would).
    user_id AS CAST(MOD(MOD(MOD(id * id, 4294967291) * 48271 + id * 16807, 4294967291), 1001) AS BIGINT),
    -- A multiple of 1/1024 in [0, 1): sums are exact in any order.
    amount  AS CAST(MOD(MOD(MOD(id * id, 4294967291) * 16807 + id * 48271 + 12345, 4294967291), 1024) AS DOUBLE) / 1024,
    -- 1 ms of event time per row: 5,000,000 rows span 5,000 s.
    ts AS TO_TIMESTAMP_LTZ(id, 3),
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
    'connector' = 'datagen',
    'number-of-rows' = '5000000',
    'rows-per-second' = '1000000000',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '0',
    'fields.id.end' = '4999999'
);

-- blackhole when run alone; run.py puts a filesystem (csv) folder in its place and checks the output.
CREATE TABLE sink (
    id      BIGINT,
    user_id BIGINT,
    amount  DOUBLE
) WITH (
    'connector' = 'blackhole'
);

INSERT INTO sink
SELECT id, user_id, amount
FROM src
WHERE amount > 0.5;
