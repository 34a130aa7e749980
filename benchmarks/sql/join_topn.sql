-- Benchmark (g): regular join of two datagen tables feeding a Top-3 per group.
-- src.user_id (in [0, 99999]) joins users.uid (a sequence 0..99999, 100,000 rows
-- counted as events), each user has one of 1,000 regions; the 3 largest amounts per region
-- (amounts tie: run.py compares region, amount and rn, not which id won a tie).
SET 'parallelism.default' = '2';
SET 'table.local-time-zone' = 'UTC';
-- The process ends when the job does (the Flink SQL Client would only submit it).
SET 'table.dml-sync' = 'true';

CREATE TABLE src (
    id      BIGINT,
    -- Deterministic in id, so both engines read the same rows (run.py compares their
    -- outputs): two quadratic hashes modulo the prime 4294967291 (user_id in [0, 99999]; per-key
    -- counts spread as uniform random draws would).
    user_id AS CAST(MOD(MOD(MOD(id * id, 4294967291) * 48271 + id * 16807, 4294967291), 100000) AS BIGINT),
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

CREATE TABLE users (
    uid    BIGINT,
    -- Deterministic in uid, as src's columns are.
    region AS CAST(MOD(MOD(MOD(uid * uid, 4294967291) * 16807 + uid * 48271 + 12345, 4294967291), 1000) AS BIGINT)
) WITH (
    'connector' = 'datagen',
    'number-of-rows' = '100000',
    'rows-per-second' = '1000000000',
    'fields.uid.kind' = 'sequence',
    'fields.uid.start' = '0',
    'fields.uid.end' = '99999'
);

-- blackhole when run alone; run.py puts a upsert-kafka topic in its place and checks the output.
CREATE TABLE sink (
    region  BIGINT,
    id      BIGINT,
    amount  DOUBLE,
    rn      BIGINT,
    PRIMARY KEY (region, rn) NOT ENFORCED
) WITH (
    'connector' = 'blackhole'
);

INSERT INTO sink
SELECT region, id, amount, rn
FROM (
    SELECT u.region, s.id, s.amount,
           ROW_NUMBER() OVER (PARTITION BY u.region ORDER BY s.amount DESC) AS rn
    FROM src AS s
    JOIN users AS u ON s.user_id = u.uid)
WHERE rn <= 3;
