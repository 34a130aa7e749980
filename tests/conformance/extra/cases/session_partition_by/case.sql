-- SESSION window TVF with PARTITION BY item (3 min gap) aggregation: per-session count, sum, max, distinct suppliers
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE Bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier STRING,
  bidder ROW<id INT, country STRING>,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/bid.jsonl',
  'format' = 'json'
);
CREATE TABLE sessions (
  item STRING,
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  cnt BIGINT,
  total DECIMAL(38, 2),
  max_price DECIMAL(10, 2),
  suppliers BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/sessions',
  'format' = 'json'
);

INSERT INTO sessions
SELECT item, window_start, window_end, COUNT(*), SUM(price), MAX(price), COUNT(DISTINCT supplier)
FROM TABLE(SESSION(TABLE Bid PARTITION BY item, DESCRIPTOR(bidtime), INTERVAL '3' MINUTES))
GROUP BY item, window_start, window_end;
