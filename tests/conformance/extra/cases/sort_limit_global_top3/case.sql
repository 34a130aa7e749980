-- UPDATING: streaming ORDER BY price DESC LIMIT 3 over all bids (Flink's SortLimit: a global Top-N), materialized final result
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE Bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/bid.jsonl',
  'format' = 'json'
);
CREATE TABLE top3 (
  item STRING,
  price DECIMAL(10, 2),
  supplier STRING,
  bidtime TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/top3',
  'format' = 'json'
);

INSERT INTO top3
SELECT item, price, supplier, bidtime FROM Bid ORDER BY price DESC LIMIT 3;
