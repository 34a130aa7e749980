EXPLAIN CHANGELOG_MODE INSERT INTO rows_out
SELECT * FROM (
  SELECT item, city, price, ROW_NUMBER() OVER (PARTITION BY city ORDER BY price DESC) AS rn
  FROM Bid b JOIN Supplier s ON b.supplier_id = s.name)
WHERE rn <= 3;
