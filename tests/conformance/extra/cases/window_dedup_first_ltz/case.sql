-- Window deduplication keep-first (ROW_NUMBER ORDER BY rowtime ASC = 1) per user per TUMBLE(5 min), TIMESTAMP_LTZ rowtime from a computed TO_TIMESTAMP_LTZ column, NULL keys
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE visits (
  user_id STRING,
  page STRING,
  epoch_ms BIGINT,
  vt AS TO_TIMESTAMP_LTZ(epoch_ms, 3),
  WATERMARK FOR vt AS vt - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/visits.jsonl',
  'format' = 'json'
);
CREATE TABLE first_visit (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  user_id STRING,
  page STRING,
  vt TIMESTAMP_LTZ(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/first_visit',
  'format' = 'json'
);

INSERT INTO first_visit
SELECT window_start, window_end, user_id, page, vt
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, user_id ORDER BY vt ASC) AS rn
  FROM TABLE(TUMBLE(TABLE visits, DESCRIPTOR(vt), INTERVAL '5' MINUTES))
) WHERE rn = 1;
