-- OVER ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW per sensor with SUM, COUNT(*), COUNT(col), MIN, MAX, AVG over a DOUBLE column with NULLs
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE readings (
  sensor STRING,
  reading DOUBLE,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/readings.jsonl',
  'format' = 'json'
);
CREATE TABLE running_stats (
  sensor STRING,
  ts TIMESTAMP(3),
  reading DOUBLE,
  total DOUBLE,
  n_rows BIGINT,
  n_readings BIGINT,
  lo DOUBLE,
  hi DOUBLE,
  mean DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/running_stats',
  'format' = 'json'
);

INSERT INTO running_stats
SELECT sensor, ts, reading,
  SUM(reading) OVER (PARTITION BY sensor ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
  COUNT(*) OVER (PARTITION BY sensor ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
  COUNT(reading) OVER (PARTITION BY sensor ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
  MIN(reading) OVER (PARTITION BY sensor ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
  MAX(reading) OVER (PARTITION BY sensor ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
  AVG(reading) OVER (PARTITION BY sensor ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
FROM readings;
