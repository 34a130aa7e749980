-- Benchmark (b): stateless filter, half the rows pass.
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
    'fields.user_id.max' = '1000',
    'fields.amount.kind' = 'random',
    'fields.amount.min' = '0',
    'fields.amount.max' = '1'
);

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
