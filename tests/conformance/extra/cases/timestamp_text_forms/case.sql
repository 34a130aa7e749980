-- timestamp text in JSON (SQL and ISO-8601 forms, TIMESTAMP and TIMESTAMP_LTZ) and CSV: valid, past the month's end, 24:00:00, out of range, other shapes (ignore-parse-errors)
SET 'execution.runtime-mode' = 'batch';
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE json_sql (
  i INT,
  ts TIMESTAMP(3),
  ltz TIMESTAMP_LTZ(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/times.jsonl',
  'format' = 'json',
  'json.ignore-parse-errors' = 'true'
);
CREATE TABLE json_iso (
  i INT,
  iso TIMESTAMP(6)
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/times.jsonl',
  'format' = 'json',
  'json.timestamp-format.standard' = 'ISO-8601',
  'json.ignore-parse-errors' = 'true'
);
CREATE TABLE csv_times (
  i INT,
  ts TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/times.csv',
  'format' = 'csv',
  'csv.ignore-parse-errors' = 'true'
);
CREATE TABLE json_out (
  i INT,
  ts TIMESTAMP(3),
  ltz_text STRING,
  iso TIMESTAMP(6)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/json_out',
  'format' = 'json'
);
CREATE TABLE csv_out (
  i INT,
  ts TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/csv_out',
  'format' = 'json'
);

INSERT INTO json_out
SELECT s.i, s.ts, CAST(s.ltz AS STRING), o.iso FROM json_sql s JOIN json_iso o ON s.i = o.i;

INSERT INTO csv_out
SELECT i, ts FROM csv_times;
