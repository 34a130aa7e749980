-- Window SEMI join (IN subquery) and window ANTI join (NOT EXISTS) on TUMBLE(5 min) windows, two sinks
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
CREATE TABLE semi_out (
  k INT,
  tag STRING,
  v DECIMAL(10, 2),
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/semi_out',
  'format' = 'json'
);
CREATE TABLE anti_out (
  k INT,
  tag STRING,
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/anti_out',
  'format' = 'json'
);

EXECUTE STATEMENT SET
BEGIN
INSERT INTO semi_out
SELECT L.k, L.tag, L.v, L.window_start, L.window_end
FROM (
  SELECT * FROM TABLE(TUMBLE(TABLE L, DESCRIPTOR(rt), INTERVAL '5' MINUTES))
) L WHERE L.k IN (
  SELECT R.k FROM (
    SELECT * FROM TABLE(TUMBLE(TABLE R, DESCRIPTOR(rt), INTERVAL '5' MINUTES))
  ) R WHERE L.window_start = R.window_start AND L.window_end = R.window_end
);
INSERT INTO anti_out
SELECT L.k, L.tag, L.window_start, L.window_end
FROM (
  SELECT * FROM TABLE(TUMBLE(TABLE L, DESCRIPTOR(rt), INTERVAL '5' MINUTES))
) L WHERE NOT EXISTS (
  SELECT * FROM (
    SELECT * FROM TABLE(TUMBLE(TABLE R, DESCRIPTOR(rt), INTERVAL '5' MINUTES))
  ) R WHERE L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end
);
END;
