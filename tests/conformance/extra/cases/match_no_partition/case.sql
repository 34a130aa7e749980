-- MATCH_RECOGNIZE without PARTITION BY: one ordered stream
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
CREATE TABLE vshapes (
  start_t TIMESTAMP(3),
  bottom INT,
  end_t TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/vshapes',
  'format' = 'json'
);

INSERT INTO vshapes
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  ORDER BY rowtime
  MEASURES
    A.rowtime AS start_t,
    MIN(B.price) AS bottom,
    C.rowtime AS end_t
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B+ C)
  DEFINE
    A AS A.price > 15,
    B AS B.price < LAST(price, 1),
    C AS C.price > LAST(price, 1)
);
