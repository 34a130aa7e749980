-- MATCH_RECOGNIZE logical offsets: LAST(A.price, 1), FIRST(A.price, 1), LAST(A.price, 2), LAST(price, 1) over every row
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
CREATE TABLE rising (
  symbol STRING,
  start_price INT,
  second_price INT,
  top_price INT,
  before_top INT,
  last_price INT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/rising',
  'format' = 'json'
);
CREATE TABLE steps (
  symbol STRING,
  first_t TIMESTAMP(3),
  last_t TIMESTAMP(3),
  prev_of_b INT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/steps',
  'format' = 'json'
);

INSERT INTO rising
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    FIRST(A.price) AS start_price,
    FIRST(A.price, 1) AS second_price,
    LAST(A.price) AS top_price,
    LAST(A.price, 2) AS before_top,
    B.price AS last_price
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A+ B)
  DEFINE
    A AS LAST(A.price, 1) IS NULL OR A.price > LAST(A.price, 1),
    B AS B.price < LAST(A.price)
);

INSERT INTO steps
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    FIRST(A.rowtime) AS first_t,
    B.rowtime AS last_t,
    LAST(price, 1) AS prev_of_b
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A{2,} B)
  DEFINE
    A AS A.price >= LAST(price, 1) OR LAST(price, 1) IS NULL,
    B AS B.price + 2 < LAST(price, 1)
);
