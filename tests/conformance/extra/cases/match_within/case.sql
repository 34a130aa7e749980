-- MATCH_RECOGNIZE with WITHIN (Nexmark CEP q3's shape): runs older than the interval end
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
CREATE TABLE drops (
  symbol STRING,
  a_time TIMESTAMP(3),
  drop_time TIMESTAMP(3),
  drop_diff INT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/drops',
  'format' = 'json'
);

INSERT INTO drops
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    A.rowtime AS a_time,
    C.rowtime AS drop_time,
    A.price - C.price AS drop_diff
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B* C) WITHIN INTERVAL '40' SECOND
  DEFINE
    B AS B.price >= A.price - 2,
    C AS C.price < A.price - 2
);
