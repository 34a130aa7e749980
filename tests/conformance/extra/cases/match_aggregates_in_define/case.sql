-- MATCH_RECOGNIZE with aggregates in DEFINE (the row being tested included) and MEASURES: AVG, SUM, COUNT, MIN, MAX, over one variable and over the whole match
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
CREATE TABLE avg_runs (
  symbol STRING,
  start_tstamp TIMESTAMP(3),
  end_tstamp TIMESTAMP(3),
  avg_price INT,
  sum_price INT,
  n BIGINT,
  lo INT,
  hi INT,
  total INT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/avg_runs',
  'format' = 'json'
);
CREATE TABLE tax_runs (
  symbol STRING,
  first_t TIMESTAMP(3),
  last_t TIMESTAMP(3),
  taxes INT,
  spread INT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/tax_runs',
  'format' = 'json'
);

INSERT INTO avg_runs
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    FIRST(A.rowtime) AS start_tstamp,
    LAST(A.rowtime) AS end_tstamp,
    AVG(A.price) AS avg_price,
    SUM(A.price) AS sum_price,
    COUNT(A.price) AS n,
    MIN(A.price) AS lo,
    MAX(A.price) AS hi,
    SUM(price) AS total
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A+ B)
  DEFINE
    A AS AVG(A.price) < 20
);

INSERT INTO tax_runs
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    FIRST(A.rowtime) AS first_t,
    B.rowtime AS last_t,
    SUM(A.tax) AS taxes,
    MAX(A.price) - MIN(A.price) AS spread
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A+ B)
  DEFINE
    A AS SUM(A.tax) <= 4 AND MAX(A.price) - MIN(A.price) < 6,
    B AS B.tax > 0
);
