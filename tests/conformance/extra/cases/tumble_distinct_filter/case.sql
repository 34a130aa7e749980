-- TUMBLE(5 min) window aggregation with COUNT(DISTINCT ..), FILTER (WHERE ..) clauses on COUNT/SUM/COUNT DISTINCT, NULL channels
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE events (
  user_id INT,
  channel STRING,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/events.jsonl',
  'format' = 'json'
);
CREATE TABLE distinct_filter (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  n BIGINT,
  users BIGINT,
  big_orders BIGINT,
  web_amount DECIMAL(38, 2),
  app_users BIGINT,
  no_channel BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/distinct_filter',
  'format' = 'json'
);

INSERT INTO distinct_filter
SELECT window_start, window_end,
  COUNT(*),
  COUNT(DISTINCT user_id),
  COUNT(*) FILTER (WHERE amount > 50),
  SUM(amount) FILTER (WHERE channel = 'web'),
  COUNT(DISTINCT user_id) FILTER (WHERE channel = 'app'),
  COUNT(*) FILTER (WHERE channel IS NULL)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' MINUTES))
GROUP BY window_start, window_end;
