-- window aggregations with a WHERE, or a filtering and renaming subquery, between the window TVF and its GROUP BY (TUMBLE, HOP, CUMULATE with HAVING, SESSION with PARTITION BY)
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
CREATE TABLE tumble_where (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  channel STRING,
  n BIGINT,
  total DECIMAL(38, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/tumble_where',
  'format' = 'json'
);
CREATE TABLE hop_subquery (
  ws TIMESTAMP(3),
  we TIMESTAMP(3),
  n BIGINT,
  doubled DECIMAL(38, 2),
  top_user INT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/hop_subquery',
  'format' = 'json'
);
CREATE TABLE cumulate_having (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  user_id INT,
  n BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/cumulate_having',
  'format' = 'json'
);
CREATE TABLE session_where (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  user_id INT,
  n BIGINT,
  big DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/session_where',
  'format' = 'json'
);

INSERT INTO tumble_where
SELECT window_start, window_end, channel, COUNT(*), SUM(amount)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' MINUTES))
WHERE channel IS NOT NULL AND amount > 10
GROUP BY window_start, window_end, channel;

INSERT INTO hop_subquery
SELECT ws, we, COUNT(*), SUM(doubled), MAX(user_id)
FROM (
  SELECT user_id, amount * 2 AS doubled, window_start AS ws, window_end AS we
  FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))
  WHERE channel <> 'app'
)
WHERE doubled > 40
GROUP BY ws, we;

INSERT INTO cumulate_having
SELECT window_start, window_end, user_id, COUNT(*)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' MINUTES, INTERVAL '15' MINUTES))
WHERE user_id <= 3
GROUP BY window_start, window_end, user_id
HAVING COUNT(*) > 1;

INSERT INTO session_where
SELECT window_start, window_end, user_id, COUNT(*), MAX(amount)
FROM TABLE(SESSION(TABLE events PARTITION BY user_id, DESCRIPTOR(ts), INTERVAL '2' MINUTES))
WHERE amount > 30
GROUP BY window_start, window_end, user_id;
