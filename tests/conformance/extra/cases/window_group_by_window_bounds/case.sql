-- GROUP BY the window_start and window_end of a window aggregation (Nexmark q5's form): a window aggregation itself, insert-only into an append-only sink, and a window join after it
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE bid (
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
CREATE TABLE hottest_items (
  item STRING,
  num BIGINT,
  starttime TIMESTAMP(3),
  endtime TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/hottest_items',
  'format' = 'json'
);
CREATE TABLE per_window (
  endtime TIMESTAMP(3),
  supplier STRING,
  starttime TIMESTAMP(3),
  items BIGINT,
  max_num BIGINT,
  total DECIMAL(38, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/per_window',
  'format' = 'json'
);
CREATE TABLE cumulated (
  ws TIMESTAMP(3),
  we TIMESTAMP(3),
  suppliers BIGINT,
  top_total DECIMAL(38, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/cumulated',
  'format' = 'json'
);

-- Nexmark q5: the items with the most bids per sliding window
INSERT INTO hottest_items
SELECT AuctionBids.item, AuctionBids.num, AuctionBids.starttime, AuctionBids.endtime
FROM (
  SELECT item, COUNT(*) AS num, window_start AS starttime, window_end AS endtime
  FROM TABLE(HOP(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, INTERVAL '10' MINUTES))
  GROUP BY item, window_start, window_end
) AS AuctionBids
JOIN (
  SELECT MAX(CountBids.num) AS maxn, CountBids.starttime, CountBids.endtime
  FROM (
    SELECT COUNT(*) AS num, window_start AS starttime, window_end AS endtime
    FROM TABLE(HOP(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, INTERVAL '10' MINUTES))
    GROUP BY item, window_start, window_end
  ) AS CountBids
  GROUP BY CountBids.starttime, CountBids.endtime
) AS MaxBids
ON AuctionBids.starttime = MaxBids.starttime AND AuctionBids.endtime = MaxBids.endtime
   AND AuctionBids.num >= MaxBids.maxn;

-- another key beside the window bounds, the keys in another order, a filter between
INSERT INTO per_window
SELECT endtime, supplier, starttime, COUNT(*), MAX(num), SUM(total)
FROM (
  SELECT supplier, item, window_end AS endtime, window_start AS starttime, COUNT(*) AS num, SUM(price) AS total
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))
  GROUP BY supplier, item, window_start, window_end
)
WHERE num > 0
GROUP BY endtime, supplier, starttime;

-- over CUMULATE windows
INSERT INTO cumulated
SELECT ws, we, COUNT(*), MAX(total)
FROM (
  SELECT supplier, window_start AS ws, window_end AS we, SUM(price) AS total
  FROM TABLE(CUMULATE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '15' MINUTES))
  GROUP BY supplier, window_start, window_end
)
GROUP BY ws, we;
