-- Window LEFT JOIN of two HOP(5 min slide, 10 min size) windowed tables on k and the window bounds
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
CREATE TABLE hop_left_join (
  k INT,
  l_tag STRING,
  r_tag STRING,
  diff DECIMAL(11, 2),
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/hop_left_join',
  'format' = 'json'
);

INSERT INTO hop_left_join
SELECT L.k, L.tag, R.tag, L.v - R.v, L.window_start, L.window_end
FROM (
  SELECT * FROM TABLE(HOP(TABLE L, DESCRIPTOR(rt), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))
) L
LEFT JOIN (
  SELECT * FROM TABLE(HOP(TABLE R, DESCRIPTOR(rt), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))
) R
ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
