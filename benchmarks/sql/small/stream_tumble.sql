-- Small script (b): a streaming INSERT from a bounded datagen of 10,000 rows through a
-- 1-second TUMBLE window into a blackhole sink.
SET 'execution.runtime-mode' = 'streaming';
SET 'parallelism.default' = '2';
SET 'table.local-time-zone' = 'UTC';
-- The script waits for the job (the Flink SQL Client would only submit it).
SET 'table.dml-sync' = 'true';

CREATE TABLE clicks (
    id      BIGINT,
    user_id INT,
    -- 1 ms of event time per row: 10,000 rows span 10 s, ten 1-second windows.
    ts AS TO_TIMESTAMP_LTZ(id, 3),
    WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
    'connector' = 'datagen',
    'number-of-rows' = '10000',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '0',
    'fields.id.end' = '9999',
    'fields.user_id.min' = '0',
    'fields.user_id.max' = '9'
);

CREATE TABLE per_second (
    window_start TIMESTAMP(3),
    window_end   TIMESTAMP(3),
    user_id      INT,
    clicks       BIGINT
) WITH (
    'connector' = 'blackhole'
);

INSERT INTO per_second
SELECT window_start, window_end, user_id, COUNT(*) AS clicks
FROM TABLE(
    TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, user_id;
