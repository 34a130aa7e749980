-- MATCH_RECOGNIZE greedy and reluctant quantifiers (the docs' A B* C against A B*? C, and A+? B)
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
CREATE TABLE greedy (
  symbol STRING,
  a_time TIMESTAMP(3),
  c_time TIMESTAMP(3),
  last_price INT,
  bs BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/greedy',
  'format' = 'json'
);
CREATE TABLE reluctant (
  symbol STRING,
  a_time TIMESTAMP(3),
  c_time TIMESTAMP(3),
  last_price INT,
  bs BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/reluctant',
  'format' = 'json'
);
CREATE TABLE reluctant_plus (
  symbol STRING,
  a_first TIMESTAMP(3),
  a_last TIMESTAMP(3),
  b_time TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/reluctant_plus',
  'format' = 'json'
);

INSERT INTO greedy
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    A.rowtime AS a_time,
    C.rowtime AS c_time,
    C.price AS last_price,
    COUNT(B.price) AS bs
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B* C)
  DEFINE
    A AS A.price > 10,
    B AS B.price < 20,
    C AS C.price > 15
);

INSERT INTO reluctant
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    A.rowtime AS a_time,
    C.rowtime AS c_time,
    C.price AS last_price,
    COUNT(B.price) AS bs
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B*? C)
  DEFINE
    A AS A.price > 10,
    B AS B.price < 20,
    C AS C.price > 15
);

INSERT INTO reluctant_plus
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    FIRST(A.rowtime) AS a_first,
    LAST(A.rowtime) AS a_last,
    B.rowtime AS b_time
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A+? B)
  DEFINE
    A AS A.price < 20,
    B AS B.price >= 16
);
