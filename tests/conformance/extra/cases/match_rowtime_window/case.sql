-- MATCH_ROWTIME() is a time attribute: matches counted in a TUMBLE window downstream
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
CREATE TABLE match_rows (
  symbol STRING,
  mt TIMESTAMP(3),
  rises BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/match_rows',
  'format' = 'json'
);
CREATE TABLE per_minute (
  symbol STRING,
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  n BIGINT,
  rises BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/per_minute',
  'format' = 'json'
);

CREATE TEMPORARY VIEW rises AS
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    MATCH_ROWTIME() AS mt,
    COUNT(UP.price) AS rises
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (S UP+ DN)
  DEFINE
    UP AS UP.price > LAST(price, 1),
    DN AS DN.price < LAST(price, 1)
);

INSERT INTO match_rows
SELECT symbol, CAST(mt AS TIMESTAMP(3)), rises FROM rises;

INSERT INTO per_minute
SELECT symbol, window_start, window_end, COUNT(*), SUM(rises)
FROM TABLE(TUMBLE(TABLE rises, DESCRIPTOR(mt), INTERVAL '1' MINUTE))
GROUP BY symbol, window_start, window_end;
