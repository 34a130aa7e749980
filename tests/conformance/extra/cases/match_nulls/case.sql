-- MATCH_RECOGNIZE over NULLs: a condition that is NULL rejects the row, aggregates skip NULLs, COUNT of a column vs COUNT(*), navigation to a NULL
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
CREATE TABLE runs (
  symbol STRING,
  first_t TIMESTAMP(3),
  b_t TIMESTAMP(3),
  n_price BIGINT,
  n_rows BIGINT,
  total INT,
  lo INT,
  taxes INT,
  last_tax INT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/runs',
  'format' = 'json'
);

INSERT INTO runs
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    FIRST(A.rowtime) AS first_t,
    B.rowtime AS b_t,
    COUNT(A.price) AS n_price,
    COUNT(*) AS n_rows,
    SUM(A.price) AS total,
    MIN(A.price) AS lo,
    SUM(A.tax) AS taxes,
    LAST(A.tax) AS last_tax
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A{2,} B)
  DEFINE
    A AS A.price IS NULL OR A.price >= 14,
    B AS B.price < LAST(A.price, 1) OR B.tax IS NULL
);
