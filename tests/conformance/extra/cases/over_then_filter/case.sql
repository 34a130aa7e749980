-- OVER aggregation inside a subquery feeding a WHERE filter: bids that set a new high among the item's last 4 bids (ROWS 3 PRECEDING)
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
CREATE TABLE new_highs (
  item STRING,
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  prev_cnt BIGINT,
  avg4 DECIMAL(38, 6)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/new_highs',
  'format' = 'json'
);

INSERT INTO new_highs
SELECT item, bidtime, price, cnt4 - 1, avg4
FROM (
  SELECT item, bidtime, price,
    MAX(price) OVER w AS max4,
    COUNT(*) OVER w AS cnt4,
    AVG(price) OVER w AS avg4
  FROM Bid
  WINDOW w AS (PARTITION BY item ORDER BY bidtime ROWS BETWEEN 3 PRECEDING AND CURRENT ROW)
)
WHERE price = max4 AND cnt4 = 4;
