-- UPDATING: streaming Top-3 bids per item (ROW_NUMBER <= 3, rank column selected, unique prices), materialized final result
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE Bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier STRING,
  bidder ROW<id INT, country STRING>
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/bid.jsonl',
  'format' = 'json'
);
CREATE TABLE top3 (
  item STRING,
  price DECIMAL(10, 2),
  supplier STRING,
  bidtime TIMESTAMP(3),
  rn BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/top3',
  'format' = 'json'
);

INSERT INTO top3
SELECT item, price, supplier, bidtime, rn
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY item ORDER BY price DESC) AS rn FROM Bid
) WHERE rn <= 3;
