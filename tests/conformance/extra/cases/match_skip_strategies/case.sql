-- MATCH_RECOGNIZE AFTER MATCH strategies: SKIP PAST LAST ROW, TO NEXT ROW, TO FIRST var, TO LAST var
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
CREATE TABLE past_last_row (
  symbol STRING,
  a_time TIMESTAMP(3),
  b_first TIMESTAMP(3),
  b_last TIMESTAMP(3),
  c_time TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/past_last_row',
  'format' = 'json'
);
CREATE TABLE to_next_row (
  symbol STRING,
  a_time TIMESTAMP(3),
  b_first TIMESTAMP(3),
  b_last TIMESTAMP(3),
  c_time TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/to_next_row',
  'format' = 'json'
);
CREATE TABLE to_first_b (
  symbol STRING,
  a_time TIMESTAMP(3),
  b_first TIMESTAMP(3),
  b_last TIMESTAMP(3),
  c_time TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/to_first_b',
  'format' = 'json'
);
CREATE TABLE to_last_b (
  symbol STRING,
  a_time TIMESTAMP(3),
  b_first TIMESTAMP(3),
  b_last TIMESTAMP(3),
  c_time TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/to_last_b',
  'format' = 'json'
);

INSERT INTO past_last_row
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    A.rowtime AS a_time,
    FIRST(B.rowtime) AS b_first,
    LAST(B.rowtime) AS b_last,
    C.rowtime AS c_time
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B+ C)
  DEFINE
    A AS A.price < 20,
    B AS B.price > A.price,
    C AS C.price < LAST(B.price)
);

INSERT INTO to_next_row
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    A.rowtime AS a_time,
    FIRST(B.rowtime) AS b_first,
    LAST(B.rowtime) AS b_last,
    C.rowtime AS c_time
  ONE ROW PER MATCH
  AFTER MATCH SKIP TO NEXT ROW
  PATTERN (A B+ C)
  DEFINE
    A AS A.price < 20,
    B AS B.price > A.price,
    C AS C.price < LAST(B.price)
);

INSERT INTO to_first_b
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    A.rowtime AS a_time,
    FIRST(B.rowtime) AS b_first,
    LAST(B.rowtime) AS b_last,
    C.rowtime AS c_time
  ONE ROW PER MATCH
  AFTER MATCH SKIP TO FIRST B
  PATTERN (A B+ C)
  DEFINE
    A AS A.price < 20,
    B AS B.price > A.price,
    C AS C.price < LAST(B.price)
);

INSERT INTO to_last_b
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    A.rowtime AS a_time,
    FIRST(B.rowtime) AS b_first,
    LAST(B.rowtime) AS b_last,
    C.rowtime AS c_time
  ONE ROW PER MATCH
  AFTER MATCH SKIP TO LAST B
  PATTERN (A B+ C)
  DEFINE
    A AS A.price < 20,
    B AS B.price > A.price,
    C AS C.price < LAST(B.price)
);
