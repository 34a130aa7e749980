-- MATCH_RECOGNIZE, the Flink docs' price-down pattern: START_ROW PRICE_DOWN+ PRICE_UP, logical offsets, AFTER MATCH SKIP TO LAST
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
CREATE TABLE price_down (
  symbol STRING,
  start_tstamp TIMESTAMP(3),
  bottom_tstamp TIMESTAMP(3),
  end_tstamp TIMESTAMP(3),
  downs BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/price_down',
  'format' = 'json'
);

INSERT INTO price_down
SELECT symbol, start_tstamp, bottom_tstamp, end_tstamp, downs
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    START_ROW.rowtime AS start_tstamp,
    LAST(PRICE_DOWN.rowtime) AS bottom_tstamp,
    LAST(PRICE_UP.rowtime) AS end_tstamp,
    COUNT(PRICE_DOWN.price) AS downs
  ONE ROW PER MATCH
  AFTER MATCH SKIP TO LAST PRICE_UP
  PATTERN (START_ROW PRICE_DOWN+ PRICE_UP)
  DEFINE
    PRICE_DOWN AS
        (LAST(PRICE_DOWN.price, 1) IS NULL AND PRICE_DOWN.price < START_ROW.price) OR
            PRICE_DOWN.price < LAST(PRICE_DOWN.price, 1),
    PRICE_UP AS
        PRICE_UP.price > LAST(PRICE_DOWN.price, 1)
);
