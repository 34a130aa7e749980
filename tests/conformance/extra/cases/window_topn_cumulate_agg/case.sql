-- Window Top-N over a CUMULATE(5 min step, 15 min max) window aggregation: top 2 suppliers per window and item, rank column selected
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
CREATE TABLE cumulate_topn (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  item STRING,
  supplier STRING,
  total DECIMAL(38, 2),
  cnt BIGINT,
  rn BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/cumulate_topn',
  'format' = 'json'
);

INSERT INTO cumulate_topn
SELECT window_start, window_end, item, supplier, total, cnt, rn
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, item ORDER BY total DESC, supplier) AS rn
  FROM (
    SELECT window_start, window_end, item, supplier, SUM(price) AS total, COUNT(*) AS cnt
    FROM TABLE(CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '15' MINUTES))
    GROUP BY window_start, window_end, item, supplier
  )
) WHERE rn <= 2;
