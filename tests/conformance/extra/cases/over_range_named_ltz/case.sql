-- OVER RANGE BETWEEN INTERVAL '30' MINUTE PRECEDING AND CURRENT ROW in a named WINDOW clause, TIMESTAMP_LTZ(3) rowtime, DECIMAL amounts, equal timestamps (RANGE peers)
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE tx (
  account STRING,
  amount DECIMAL(10, 2),
  tx_time TIMESTAMP_LTZ(3),
  WATERMARK FOR tx_time AS tx_time - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/tx.jsonl',
  'format' = 'json'
);
CREATE TABLE tx_range (
  account STRING,
  tx_time TIMESTAMP_LTZ(3),
  amount DECIMAL(10, 2),
  sum30 DECIMAL(38, 2),
  cnt30 BIGINT,
  min30 DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/tx_range',
  'format' = 'json'
);

INSERT INTO tx_range
SELECT account, tx_time, amount,
  SUM(amount) OVER w,
  COUNT(amount) OVER w,
  MIN(amount) OVER w
FROM tx
WINDOW w AS (PARTITION BY account ORDER BY tx_time RANGE BETWEEN INTERVAL '30' MINUTE PRECEDING AND CURRENT ROW);
