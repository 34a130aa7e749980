EXPLAIN CHANGELOG_MODE INSERT INTO updates
SELECT s.city, COUNT(b.item), CAST(SUM(b.price) AS BIGINT) FROM Supplier s LEFT JOIN Bid b
  ON b.supplier_id = s.name AND b.price > 2 GROUP BY s.city;
