-- Window Top-1 directly on a HOP(5 min slide, 10 min size) TVF: highest bid per item per window (rn <= 1, rank column not selected)
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
CREATE TABLE hop_top1 (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  item STRING,
  price DECIMAL(10, 2),
  bidder_id INT,
  bidtime TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/hop_top1',
  'format' = 'json'
);

INSERT INTO hop_top1
SELECT window_start, window_end, item, price, bidder.id, bidtime
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, item ORDER BY price DESC) AS rn
  FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))
) WHERE rn <= 1;
