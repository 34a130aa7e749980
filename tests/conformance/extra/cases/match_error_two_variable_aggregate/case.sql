-- MATCH_RECOGNIZE error: an aggregate over two variables
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE ticker (
  symbol STRING,
  price INT,
  tax INT,
  rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/ticker.jsonl',
  'format' = 'json'
);
CREATE TABLE sink_out (
  symbol STRING,
  n INT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/sink_out',
  'format' = 'json'
);

INSERT INTO sink_out
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    SUM(A.price + B.tax) AS n
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A+ B)
  DEFINE
    A AS A.price > 10
);
