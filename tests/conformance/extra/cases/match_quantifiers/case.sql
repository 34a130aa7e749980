-- MATCH_RECOGNIZE quantifiers: {n}, {n,m} reluctant and greedy, {n,}, ?
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
CREATE TABLE exact2 (
  symbol STRING,
  a_time TIMESTAMP(3),
  c_time TIMESTAMP(3),
  bs BIGINT,
  last_b INT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/exact2',
  'format' = 'json'
);
CREATE TABLE range_reluctant (
  symbol STRING,
  a_time TIMESTAMP(3),
  c_time TIMESTAMP(3),
  bs BIGINT,
  last_b INT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/range_reluctant',
  'format' = 'json'
);
CREATE TABLE at_least2 (
  symbol STRING,
  a_time TIMESTAMP(3),
  c_time TIMESTAMP(3),
  bs BIGINT,
  last_b INT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/at_least2',
  'format' = 'json'
);
CREATE TABLE optional (
  symbol STRING,
  a_time TIMESTAMP(3),
  c_time TIMESTAMP(3),
  bs BIGINT,
  last_b INT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/optional',
  'format' = 'json'
);
CREATE TABLE range_greedy (
  symbol STRING,
  a_time TIMESTAMP(3),
  c_time TIMESTAMP(3),
  bs BIGINT,
  last_b INT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/range_greedy',
  'format' = 'json'
);

INSERT INTO exact2
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    A.rowtime AS a_time,
    C.rowtime AS c_time,
    COUNT(B.price) AS bs,
    LAST(B.price) AS last_b
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B{2} C)
  DEFINE
    A AS A.price < 22,
    B AS B.price >= A.price,
    C AS C.price < A.price
);

INSERT INTO range_reluctant
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    A.rowtime AS a_time,
    C.rowtime AS c_time,
    COUNT(B.price) AS bs,
    LAST(B.price) AS last_b
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B{1,3}? C)
  DEFINE
    A AS A.price < 22,
    B AS B.price >= A.price,
    C AS C.price < A.price
);

INSERT INTO at_least2
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    A.rowtime AS a_time,
    C.rowtime AS c_time,
    COUNT(B.price) AS bs,
    LAST(B.price) AS last_b
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B{2,} C)
  DEFINE
    A AS A.price < 22,
    B AS B.price >= A.price,
    C AS C.price < A.price
);

INSERT INTO optional
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    A.rowtime AS a_time,
    C.rowtime AS c_time,
    COUNT(B.price) AS bs,
    LAST(B.price) AS last_b
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B? C)
  DEFINE
    A AS A.price < 22,
    B AS B.price >= A.price,
    C AS C.price < A.price
);

INSERT INTO range_greedy
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    A.rowtime AS a_time,
    C.rowtime AS c_time,
    COUNT(B.price) AS bs,
    LAST(B.price) AS last_b
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B{1,2} C)
  DEFINE
    A AS A.price < 22,
    B AS B.price >= A.price,
    C AS C.price < A.price
);
