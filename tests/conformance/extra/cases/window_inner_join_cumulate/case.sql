-- Window INNER JOIN of two CUMULATE(5 min step, 15 min max) windowed tables on k and the window bounds, with a residual predicate
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE L (
  k INT,
  tag STRING,
  v DECIMAL(10, 2),
  rt TIMESTAMP(3),
  WATERMARK FOR rt AS rt - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/left.jsonl',
  'format' = 'json'
);
CREATE TABLE R (
  k INT,
  tag STRING,
  v DECIMAL(10, 2),
  rt TIMESTAMP(3),
  WATERMARK FOR rt AS rt - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/right.jsonl',
  'format' = 'json'
);
CREATE TABLE cumulate_join (
  k INT,
  l_tag STRING,
  r_tag STRING,
  l_v DECIMAL(10, 2),
  r_v DECIMAL(10, 2),
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/cumulate_join',
  'format' = 'json'
);

INSERT INTO cumulate_join
SELECT L.k, L.tag, R.tag, L.v, R.v, L.window_start, L.window_end
FROM (
  SELECT * FROM TABLE(CUMULATE(TABLE L, DESCRIPTOR(rt), INTERVAL '5' MINUTES, INTERVAL '15' MINUTES))
) L
JOIN (
  SELECT * FROM TABLE(CUMULATE(TABLE R, DESCRIPTOR(rt), INTERVAL '5' MINUTES, INTERVAL '15' MINUTES))
) R
ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end AND L.v < R.v;
