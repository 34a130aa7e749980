-- UPDATING: streaming GROUP BY over GROUP BY (histogram of clicks per user), materialized final result
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE clicks (
  user_id STRING,
  url STRING,
  ts TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/clicks.jsonl',
  'format' = 'json'
);
CREATE TABLE clicks_histogram (
  clicks BIGINT,
  users BIGINT,
  max_url STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/clicks_histogram',
  'format' = 'json'
);

INSERT INTO clicks_histogram
SELECT cnt, COUNT(*), MAX(last_url)
FROM (
  SELECT user_id, COUNT(*) AS cnt, MAX(url) AS last_url FROM clicks GROUP BY user_id
)
GROUP BY cnt;
