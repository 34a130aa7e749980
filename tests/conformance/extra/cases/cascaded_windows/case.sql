-- Cascaded window aggregation: TUMBLE(5 min) per user, then TUMBLE(15 min) over the first aggregation's window_time (a view)
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE events (
  user_id STRING,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/events.jsonl',
  'format' = 'json'
);
CREATE TABLE cascaded_totals (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  active_users BIGINT,
  sub_windows BIGINT,
  total DECIMAL(38, 2),
  max_user_total DECIMAL(38, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/cascaded_totals',
  'format' = 'json'
);

CREATE TEMPORARY VIEW per_user_5m AS
SELECT user_id, window_start AS w5_start, window_time AS rowtime, SUM(amount) AS total
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' MINUTES))
GROUP BY user_id, window_start, window_end, window_time;

INSERT INTO cascaded_totals
SELECT window_start, window_end, COUNT(DISTINCT user_id), COUNT(*), SUM(total), MAX(total)
FROM TABLE(TUMBLE(TABLE per_user_5m, DESCRIPTOR(rowtime), INTERVAL '15' MINUTES))
GROUP BY window_start, window_end;
