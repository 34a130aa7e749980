-- MATCH_RECOGNIZE over strings: FIRST/LAST/MAX of a computed string column, a string comparison with a navigated value in DEFINE
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
CREATE TABLE tags (
  symbol STRING,
  first_tag STRING,
  last_tag STRING,
  b_tag STRING,
  max_tag STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/tags',
  'format' = 'json'
);

INSERT INTO tags
SELECT *
FROM (SELECT *, CONCAT(symbol, '-', CAST(price AS STRING)) AS tag FROM ticker)
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    FIRST(A.tag) AS first_tag,
    LAST(A.tag) AS last_tag,
    B.tag AS b_tag,
    MAX(A.tag) AS max_tag
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A{2,} B)
  DEFINE
    A AS A.price >= 15 AND (LAST(A.tag, 1) IS NULL OR LAST(A.tag, 1) <> A.tag),
    B AS B.price < 15
);
