-- Benchmark (f): GROUP BY over an updating GROUP BY: how many of the 100,000 keys
-- have been seen n times (the inner counts retract as they grow).
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

CREATE TABLE sink (
    cnt     BIGINT,
    n_keys  BIGINT
) WITH (
    'connector' = 'blackhole'
);

INSERT INTO sink
SELECT cnt, COUNT(*) AS n_keys
FROM (SELECT user_id, COUNT(*) AS cnt FROM src GROUP BY user_id)
GROUP BY cnt;
