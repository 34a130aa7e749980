EXPLAIN CHANGELOG_MODE
SELECT * FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY total DESC) AS rownum
  FROM (SELECT window_start, window_end, supplier_id, SUM(price) AS total
        FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))
        GROUP BY window_start, window_end, supplier_id))
WHERE rownum <= 3;
