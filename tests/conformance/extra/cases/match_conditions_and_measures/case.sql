-- MATCH_RECOGNIZE conditions mixing the current row with navigated values (BETWEEN, OR, arithmetic) and measures with functions (CONCAT, CASE, TIMESTAMPDIFF)
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
CREATE TABLE jumps (
  symbol STRING,
  tag STRING,
  jump STRING,
  score INT,
  secs INT,
  nb BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/jumps',
  'format' = 'json'
);

INSERT INTO jumps
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    CONCAT(symbol, '-', CAST(A.price AS STRING)) AS tag,
    CASE WHEN C.price - A.price > 4 THEN 'big' ELSE 'small' END AS jump,
    A.price * 2 + C.tax AS score,
    TIMESTAMPDIFF(SECOND, A.rowtime, C.rowtime) AS secs,
    COUNT(B.price) AS nb
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B* C)
  DEFINE
    A AS A.tax = 0 AND A.price > 12,
    B AS B.price BETWEEN A.price - 2 AND A.price + 2,
    C AS C.price > A.price + 2 OR (C.tax = 3 AND C.price > A.price)
)