-- Benchmark (g): regular join of two datagen tables feeding a Top-3 per group.
-- src.user_id (random in [0, 99999]) joins users.uid (a sequence 0..99999, 100,000 rows
-- counted as events), each user has one of 1,000 regions; the 3 largest amounts per region.
SET 'parallelism.default' = '2';
SET 'table.local-time-zone' = 'UTC';
-- The process ends when the job does (the Flink SQL Client would only submit it).
SET 'table.dml-sync' = 'true';

CREATE TABLE src (
    id      BIGINT,
    user_id BIGINT,
    amount  DOUBLE,
    -- 1 ms of event time per row: 5,000,000 rows span 5,000 s.
    ts AS TO_TIMESTAMP_LTZ(id, 3),
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
    'connector' = 'datagen',
    'number-of-rows' = '5000000',
    'rows-per-second' = '1000000000',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '0',
    'fields.id.end' = '4999999',
    'fields.user_id.kind' = 'random',
    'fields.user_id.min' = '0',
    'fields.user_id.max' = '99999',
    'fields.amount.kind' = 'random',
    'fields.amount.min' = '0',
    'fields.amount.max' = '1'
);

CREATE TABLE users (
    uid    BIGINT,
    region BIGINT
) WITH (
    'connector' = 'datagen',
    'number-of-rows' = '100000',
    'rows-per-second' = '1000000000',
    'fields.uid.kind' = 'sequence',
    'fields.uid.start' = '0',
    'fields.uid.end' = '99999',
    'fields.region.kind' = 'random',
    'fields.region.min' = '0',
    'fields.region.max' = '999'
);

CREATE TABLE sink (
    region  BIGINT,
    id      BIGINT,
    amount  DOUBLE,
    rn      BIGINT
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
