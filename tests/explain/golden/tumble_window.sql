EXPLAIN CHANGELOG_MODE
SELECT window_start, window_end, item, SUM(price) AS total, COUNT(DISTINCT supplier_id) AS sellers
FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
GROUP BY window_start, window_end, item;
