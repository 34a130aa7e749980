-- MATCH_RECOGNIZE in batch mode: the docs' price-down and average patterns
SET 'table.local-time-zone' = 'UTC';
SET 'execution.runtime-mode' = 'batch';

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
CREATE TABLE price_down (
  symbol STRING,
  start_tstamp TIMESTAMP(3),
  bottom_tstamp TIMESTAMP(3),
  end_tstamp TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/price_down',
  'format' = 'json'
);
CREATE TABLE avg_runs (
  symbol STRING,
  start_tstamp TIMESTAMP(3),
  end_tstamp TIMESTAMP(3),
  avg_price INT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/avg_runs',
  'format' = 'json'
);

INSERT INTO price_down
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    START_ROW.rowtime AS start_tstamp,
    LAST(PRICE_DOWN.rowtime) AS bottom_tstamp,
    LAST(PRICE_UP.rowtime) AS end_tstamp
  ONE ROW PER MATCH
  AFTER MATCH SKIP TO LAST PRICE_UP
  PATTERN (START_ROW PRICE_DOWN+ PRICE_UP)
  DEFINE
    PRICE_DOWN AS (LAST(PRICE_DOWN.price, 1) IS NULL AND PRICE_DOWN.price < START_ROW.price) OR PRICE_DOWN.price < LAST(PRICE_DOWN.price, 1),
    PRICE_UP AS PRICE_UP.price > LAST(PRICE_DOWN.price, 1)
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
    AVG(A.price) AS avg_price
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A+ B)
  DEFINE
    A AS AVG(A.price) < 20
);
