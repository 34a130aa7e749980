-- Flink SQL queries (window TVFs, window aggregation/Top-N/dedup/join, group windows, OVER, joins,
-- Top-N, deduplication, grouping sets, set operations, WITH, ORDER BY/LIMIT, ...) copied verbatim
-- from the Apache Flink documentation. SQL-client prompts ("Flink SQL>", ">") were stripped.
-- Format: see README.md.

-- source: https://github.com/apache/flink/blob/07cc57490fa38a318df9e03cd6d352b353784283/docs/content/docs/dev/table/sql/queries/window-tvf.md
desc Bid;

-- source: https://github.com/apache/flink/blob/07cc57490fa38a318df9e03cd6d352b353784283/docs/content/docs/dev/table/sql/queries/window-tvf.md
SELECT * FROM Bid;

-- source: https://github.com/apache/flink/blob/07cc57490fa38a318df9e03cd6d352b353784283/docs/content/docs/dev/table/sql/queries/window-tvf.md
SELECT * FROM TABLE(
   TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES));

-- source: https://github.com/apache/flink/blob/07cc57490fa38a318df9e03cd6d352b353784283/docs/content/docs/dev/table/sql/queries/window-tvf.md
SELECT * FROM TABLE(
   TUMBLE(
     DATA => TABLE Bid,
     TIMECOL => DESCRIPTOR(bidtime),
     SIZE => INTERVAL '10' MINUTES));

-- source: https://github.com/apache/flink/blob/07cc57490fa38a318df9e03cd6d352b353784283/docs/content/docs/dev/table/sql/queries/window-tvf.md
SELECT window_start, window_end, SUM(price)
  FROM TABLE(
    TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end;

-- source: https://github.com/apache/flink/blob/07cc57490fa38a318df9e03cd6d352b353784283/docs/content/docs/dev/table/sql/queries/window-tvf.md
SELECT * FROM TABLE(
    HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES));

-- source: https://github.com/apache/flink/blob/07cc57490fa38a318df9e03cd6d352b353784283/docs/content/docs/dev/table/sql/queries/window-tvf.md
SELECT * FROM TABLE(
    HOP(
      DATA => TABLE Bid,
      TIMECOL => DESCRIPTOR(bidtime),
      SLIDE => INTERVAL '5' MINUTES,
      SIZE => INTERVAL '10' MINUTES));

-- source: https://github.com/apache/flink/blob/07cc57490fa38a318df9e03cd6d352b353784283/docs/content/docs/dev/table/sql/queries/window-tvf.md
SELECT window_start, window_end, SUM(price)
  FROM TABLE(
    HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end;

-- source: https://github.com/apache/flink/blob/07cc57490fa38a318df9e03cd6d352b353784283/docs/content/docs/dev/table/sql/queries/window-tvf.md
SELECT * FROM TABLE(
    CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, INTERVAL '10' MINUTES));

-- source: https://github.com/apache/flink/blob/07cc57490fa38a318df9e03cd6d352b353784283/docs/content/docs/dev/table/sql/queries/window-tvf.md
SELECT * FROM TABLE(
    CUMULATE(
      DATA => TABLE Bid,
      TIMECOL => DESCRIPTOR(bidtime),
      STEP => INTERVAL '2' MINUTES,
      SIZE => INTERVAL '10' MINUTES));

-- source: https://github.com/apache/flink/blob/07cc57490fa38a318df9e03cd6d352b353784283/docs/content/docs/dev/table/sql/queries/window-tvf.md
SELECT window_start, window_end, SUM(price)
  FROM TABLE(
    CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end;

-- source: https://github.com/apache/flink/blob/07cc57490fa38a318df9e03cd6d352b353784283/docs/content/docs/dev/table/sql/queries/window-tvf.md
SELECT * FROM TABLE(
   TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES, INTERVAL '1' MINUTES));

-- source: https://github.com/apache/flink/blob/07cc57490fa38a318df9e03cd6d352b353784283/docs/content/docs/dev/table/sql/queries/window-tvf.md
SELECT * FROM TABLE(
   TUMBLE(
     DATA => TABLE Bid,
     TIMECOL => DESCRIPTOR(bidtime),
     SIZE => INTERVAL '10' MINUTES,
     OFFSET => INTERVAL '1' MINUTES));

-- source: https://github.com/apache/flink/blob/07cc57490fa38a318df9e03cd6d352b353784283/docs/content/docs/dev/table/sql/queries/window-tvf.md
SELECT window_start, window_end, SUM(price)
  FROM TABLE(
    TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES, INTERVAL '1' MINUTES))
  GROUP BY window_start, window_end;

-- source: https://github.com/apache/flink/blob/eff073ff1199acf0f26a0f04ede7d692837301c3/docs/content/docs/dev/table/sql/queries/window-tvf.md
SELECT * FROM TABLE(
    SESSION(TABLE Bid PARTITION BY item, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES));

-- source: https://github.com/apache/flink/blob/eff073ff1199acf0f26a0f04ede7d692837301c3/docs/content/docs/dev/table/sql/queries/window-tvf.md
SELECT window_start, window_end, item, SUM(price) AS total_price
  FROM TABLE(
    SESSION(TABLE Bid PARTITION BY item, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))
  GROUP BY item, window_start, window_end;

-- source: https://github.com/apache/flink/blob/eff073ff1199acf0f26a0f04ede7d692837301c3/docs/content/docs/dev/table/sql/queries/window-tvf.md
SELECT * FROM TABLE(
    SESSION(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES));

-- source: https://github.com/apache/flink/blob/eff073ff1199acf0f26a0f04ede7d692837301c3/docs/content/docs/dev/table/sql/queries/window-tvf.md
SELECT window_start, window_end, SUM(price) AS total_price
  FROM TABLE(
      SESSION(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))
  GROUP BY window_start, window_end;

-- source: https://github.com/apache/flink/blob/eff073ff1199acf0f26a0f04ede7d692837301c3/docs/content/docs/dev/table/sql/queries/window-tvf.md
SELECT * FROM TABLE(
   TUMBLE(
     DATA => TABLE Bid,
     TIMECOL => DESCRIPTOR(bidtime),
     SIZE => INTERVAL '10' MINUTES,
     `OFFSET` => INTERVAL '1' MINUTES));

-- source: https://github.com/apache/flink/blob/eff073ff1199acf0f26a0f04ede7d692837301c3/docs/content/docs/dev/table/sql/queries/window-tvf.md
SELECT window_start, window_end, SUM(price) AS total_price
  FROM TABLE(
    TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES, INTERVAL '1' MINUTES))
  GROUP BY window_start, window_end;

-- source: https://github.com/apache/flink/blob/0b4b6013feea3602a81bdbe97229ec1a595ae26f/docs/content/docs/dev/table/sql/queries/window-agg.md
SELECT window_start, window_end, supplier_id, SUM(price) as price
  FROM TABLE(
    TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end, GROUPING SETS ((supplier_id), ());

-- source: https://github.com/apache/flink/blob/0b4b6013feea3602a81bdbe97229ec1a595ae26f/docs/content/docs/dev/table/sql/queries/window-agg.md
SELECT window_start, window_end, supplier_id, SUM(price) as price
FROM TABLE(
    TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
GROUP BY window_start, window_end, ROLLUP (supplier_id);

-- source: https://github.com/apache/flink/blob/0b4b6013feea3602a81bdbe97229ec1a595ae26f/docs/content/docs/dev/table/sql/queries/window-agg.md
SELECT window_start, window_end, item, supplier_id, SUM(price) as price
  FROM TABLE(
    TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end, CUBE (supplier_id, item);

-- source: https://github.com/apache/flink/blob/0b4b6013feea3602a81bdbe97229ec1a595ae26f/docs/content/docs/dev/table/sql/queries/window-agg.md
SELECT window_start, window_end, item, supplier_id, SUM(price) as price
  FROM TABLE(
    TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end, GROUPING SETS (
      (supplier_id, item),
      (supplier_id      ),
      (             item),
      (                 )
);

-- source: https://github.com/apache/flink/blob/0b4b6013feea3602a81bdbe97229ec1a595ae26f/docs/content/docs/dev/table/sql/queries/window-agg.md
CREATE VIEW window1 AS
SELECT window_start, window_end, window_time as rowtime, SUM(price) as partial_price
  FROM TABLE(
    TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))
  GROUP BY supplier_id, window_start, window_end, window_time;

-- source: https://github.com/apache/flink/blob/0b4b6013feea3602a81bdbe97229ec1a595ae26f/docs/content/docs/dev/table/sql/queries/window-agg.md
SELECT window_start, window_end, SUM(partial_price) as total_price
  FROM TABLE(
      TUMBLE(TABLE window1, DESCRIPTOR(rowtime), INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end;

-- source: https://github.com/apache/flink/blob/0b4b6013feea3602a81bdbe97229ec1a595ae26f/docs/content/docs/dev/table/sql/queries/window-agg.md
SELECT
  user,
  TUMBLE_START(order_time, INTERVAL '1' DAY) AS wStart,
  SUM(amount) FROM Orders
GROUP BY
  TUMBLE(order_time, INTERVAL '1' DAY),
  user;

-- source: https://github.com/apache/flink/blob/26e2c3ae987581d9195e69041701efd2d50744b4/docs/content/docs/dev/table/sql/queries/window-topn.md
SELECT *
  FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) as rownum
    FROM (
      SELECT window_start, window_end, supplier_id, SUM(price) as price, COUNT(*) as cnt
      FROM TABLE(
        TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
      GROUP BY window_start, window_end, supplier_id
    )
  ) WHERE rownum <= 3;

-- source: https://github.com/apache/flink/blob/26e2c3ae987581d9195e69041701efd2d50744b4/docs/content/docs/dev/table/sql/queries/window-topn.md
SELECT *
  FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) as rownum
    FROM TABLE(
               TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
  ) WHERE rownum <= 3;

-- source: https://github.com/apache/flink/blob/306e2af34581c8dfb18e4c11f8eb51c9dc2f462c/docs/content/docs/dev/table/sql/queries/window-join.md
desc LeftTable;

-- source: https://github.com/apache/flink/blob/306e2af34581c8dfb18e4c11f8eb51c9dc2f462c/docs/content/docs/dev/table/sql/queries/window-join.md
SELECT L.num as L_Num, L.id as L_Id, R.num as R_Num, R.id as R_Id, L.window_start, L.window_end
           FROM (
               SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
           ) L
           FULL JOIN (
               SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
           ) R
           ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;

-- source: https://github.com/apache/flink/blob/306e2af34581c8dfb18e4c11f8eb51c9dc2f462c/docs/content/docs/dev/table/sql/queries/window-join.md
SELECT *
           FROM (
               SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
           ) L WHERE L.num IN (
             SELECT num FROM (   
               SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
             ) R WHERE L.window_start = R.window_start AND L.window_end = R.window_end);

-- source: https://github.com/apache/flink/blob/306e2af34581c8dfb18e4c11f8eb51c9dc2f462c/docs/content/docs/dev/table/sql/queries/window-join.md
SELECT *
           FROM (
               SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
           ) L WHERE EXISTS (
             SELECT * FROM (
               SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
             ) R WHERE L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end);

-- source: https://github.com/apache/flink/blob/306e2af34581c8dfb18e4c11f8eb51c9dc2f462c/docs/content/docs/dev/table/sql/queries/window-join.md
SELECT *
           FROM (
               SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
           ) L WHERE L.num NOT IN (
             SELECT num FROM (   
               SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
             ) R WHERE L.window_start = R.window_start AND L.window_end = R.window_end);

-- source: https://github.com/apache/flink/blob/306e2af34581c8dfb18e4c11f8eb51c9dc2f462c/docs/content/docs/dev/table/sql/queries/window-join.md
SELECT *
           FROM (
               SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
           ) L WHERE NOT EXISTS (
             SELECT * FROM (
               SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
             ) R WHERE L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end);

-- source: https://github.com/apache/flink/blob/329605b1d8a8c1c20ade8196c383387ffeb19b33/docs/content/docs/dev/table/sql/queries/window-deduplication.md
SELECT *
  FROM (
    SELECT bidtime, price, item, supplier_id, window_start, window_end, 
      ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY bidtime DESC) as rownum
    FROM TABLE(
               TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
  ) WHERE rownum <= 1;

-- source: https://github.com/apache/flink/blob/235486a8ba9b62e75275d7f47d17e62730603a72/docs/content/docs/dev/table/sql/queries/deduplication.md
SELECT order_id, user, product, num
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY proctime ASC) AS row_num
  FROM Orders)
WHERE row_num = 1;

-- source: https://github.com/apache/flink/blob/04e7433cc4ea4ffc8f254212f0d6a4355a4c051a/docs/content/docs/dev/table/sql/queries/joins.md
SELECT * FROM Orders
INNER JOIN Product
ON Orders.productId = Product.id;

-- source: https://github.com/apache/flink/blob/04e7433cc4ea4ffc8f254212f0d6a4355a4c051a/docs/content/docs/dev/table/sql/queries/joins.md
SELECT *
FROM Orders
INNER JOIN Product
ON Orders.product_id = Product.id;

-- source: https://github.com/apache/flink/blob/04e7433cc4ea4ffc8f254212f0d6a4355a4c051a/docs/content/docs/dev/table/sql/queries/joins.md
SELECT *
FROM Orders
LEFT JOIN Product
ON Orders.product_id = Product.id;

-- source: https://github.com/apache/flink/blob/04e7433cc4ea4ffc8f254212f0d6a4355a4c051a/docs/content/docs/dev/table/sql/queries/joins.md
SELECT *
FROM Orders
RIGHT JOIN Product
ON Orders.product_id = Product.id;

-- source: https://github.com/apache/flink/blob/04e7433cc4ea4ffc8f254212f0d6a4355a4c051a/docs/content/docs/dev/table/sql/queries/joins.md
SELECT *
FROM Orders
FULL OUTER JOIN Product
ON Orders.product_id = Product.id;

-- source: https://github.com/apache/flink/blob/04e7433cc4ea4ffc8f254212f0d6a4355a4c051a/docs/content/docs/dev/table/sql/queries/joins.md
SELECT *
FROM Orders o, Shipments s
WHERE o.id = s.order_id
AND o.order_time BETWEEN s.ship_time - INTERVAL '4' HOUR AND s.ship_time;

-- source: https://github.com/apache/flink/blob/04e7433cc4ea4ffc8f254212f0d6a4355a4c051a/docs/content/docs/dev/table/sql/queries/joins.md
SELECT * FROM LatestRates;

-- source: https://github.com/apache/flink/blob/04e7433cc4ea4ffc8f254212f0d6a4355a4c051a/docs/content/docs/dev/table/sql/queries/joins.md
SELECT * FROM Orders;

-- source: https://github.com/apache/flink/blob/04e7433cc4ea4ffc8f254212f0d6a4355a4c051a/docs/content/docs/dev/table/sql/queries/joins.md
SELECT
  o.amount, o.currency, r.rate, o.amount * r.rate
FROM
  Orders AS o
  JOIN LatestRates FOR SYSTEM_TIME AS OF o.proctime AS r
  ON r.currency = o.currency;

-- source: https://github.com/apache/flink/blob/04e7433cc4ea4ffc8f254212f0d6a4355a4c051a/docs/content/docs/dev/table/sql/queries/joins.md
SELECT o.order_id, o.total, c.country, c.zip
FROM Orders AS o
  JOIN Customers FOR SYSTEM_TIME AS OF o.proc_time AS c
    ON o.customer_id = c.id;

-- source: https://github.com/apache/flink/blob/04e7433cc4ea4ffc8f254212f0d6a4355a4c051a/docs/content/docs/dev/table/sql/queries/joins.md
SELECT order_id, tag
FROM Orders CROSS JOIN UNNEST(tags) AS t (tag);

-- source: https://github.com/apache/flink/blob/04e7433cc4ea4ffc8f254212f0d6a4355a4c051a/docs/content/docs/dev/table/sql/queries/joins.md
SELECT order_id, res
FROM Orders,
LATERAL TABLE(table_func(order_id)) t(res);

-- source: https://github.com/apache/flink/blob/04e7433cc4ea4ffc8f254212f0d6a4355a4c051a/docs/content/docs/dev/table/sql/queries/joins.md
SELECT order_id, res
FROM Orders
LEFT OUTER JOIN LATERAL TABLE(table_func(order_id)) t(res)
  ON TRUE;

-- source: https://github.com/apache/flink/blob/1f3f219c410d12e73a61083805267887c9d16129/docs/content/docs/dev/table/sql/queries/over-agg.md
SELECT order_id, order_time, amount,
  SUM(amount) OVER (
    PARTITION BY product
    ORDER BY order_time
    RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW
  ) AS one_hour_prod_amount_sum
FROM Orders;

-- source: https://github.com/apache/flink/blob/1f3f219c410d12e73a61083805267887c9d16129/docs/content/docs/dev/table/sql/queries/over-agg.md
SELECT order_id, order_time, amount,
  SUM(amount) OVER w AS sum_amount,
  AVG(amount) OVER w AS avg_amount
FROM Orders
WINDOW w AS (
  PARTITION BY product
  ORDER BY order_time
  RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW);

-- source: https://github.com/apache/flink/blob/064b1dd7a53088f45e7f5b3f6f8e1e7e85e6c011/docs/content/docs/dev/table/sql/queries/topn.md
SELECT *
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY sales DESC) AS row_num
  FROM ShopSales)
WHERE row_num <= 5;

-- source: https://github.com/apache/flink/blob/064b1dd7a53088f45e7f5b3f6f8e1e7e85e6c011/docs/content/docs/dev/table/sql/queries/topn.md
SELECT product_id, category, product_name, sales
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY sales DESC) AS row_num
  FROM ShopSales)
WHERE row_num <= 5;

-- source: https://github.com/apache/flink/blob/235486a8ba9b62e75275d7f47d17e62730603a72/docs/content/docs/dev/table/sql/queries/group-agg.md
SELECT COUNT(*) FROM Orders;

-- source: https://github.com/apache/flink/blob/235486a8ba9b62e75275d7f47d17e62730603a72/docs/content/docs/dev/table/sql/queries/group-agg.md
SELECT COUNT(*)
FROM Orders
GROUP BY order_id;

-- source: https://github.com/apache/flink/blob/235486a8ba9b62e75275d7f47d17e62730603a72/docs/content/docs/dev/table/sql/queries/group-agg.md
SELECT COUNT(DISTINCT order_id) FROM Orders;

-- source: https://github.com/apache/flink/blob/235486a8ba9b62e75275d7f47d17e62730603a72/docs/content/docs/dev/table/sql/queries/group-agg.md
SELECT supplier_id, rating, COUNT(*) AS total
FROM (VALUES
    ('supplier1', 'product1', 4),
    ('supplier1', 'product2', 3),
    ('supplier2', 'product3', 3),
    ('supplier2', 'product4', 4))
AS Products(supplier_id, product_id, rating)
GROUP BY GROUPING SETS ((supplier_id, rating), (supplier_id), ());

-- source: https://github.com/apache/flink/blob/235486a8ba9b62e75275d7f47d17e62730603a72/docs/content/docs/dev/table/sql/queries/group-agg.md
SELECT supplier_id, rating, COUNT(*)
FROM (VALUES
    ('supplier1', 'product1', 4),
    ('supplier1', 'product2', 3),
    ('supplier2', 'product3', 3),
    ('supplier2', 'product4', 4))
AS Products(supplier_id, product_id, rating)
GROUP BY ROLLUP (supplier_id, rating);

-- source: https://github.com/apache/flink/blob/235486a8ba9b62e75275d7f47d17e62730603a72/docs/content/docs/dev/table/sql/queries/group-agg.md
SELECT supplier_id, rating, product_id, COUNT(*)
FROM (VALUES
    ('supplier1', 'product1', 4),
    ('supplier1', 'product2', 3),
    ('supplier2', 'product3', 3),
    ('supplier2', 'product4', 4))
AS Products(supplier_id, product_id, rating)
GROUP BY CUBE (supplier_id, rating, product_id);

-- source: https://github.com/apache/flink/blob/235486a8ba9b62e75275d7f47d17e62730603a72/docs/content/docs/dev/table/sql/queries/group-agg.md
SELECT SUM(amount)
FROM Orders
GROUP BY users
HAVING SUM(amount) > 50;

-- source: https://github.com/apache/flink/blob/60c01d3aa144c761ace16bc2cbe05fef3745c109/docs/content/docs/dev/table/sql/queries/set-ops.md
create view t1(s) as values ('c'), ('a'), ('b'), ('b'), ('c');

-- source: https://github.com/apache/flink/blob/60c01d3aa144c761ace16bc2cbe05fef3745c109/docs/content/docs/dev/table/sql/queries/set-ops.md
create view t2(s) as values ('d'), ('e'), ('a'), ('b'), ('b');

-- source: https://github.com/apache/flink/blob/60c01d3aa144c761ace16bc2cbe05fef3745c109/docs/content/docs/dev/table/sql/queries/set-ops.md
(SELECT s FROM t1) UNION (SELECT s FROM t2);

-- source: https://github.com/apache/flink/blob/60c01d3aa144c761ace16bc2cbe05fef3745c109/docs/content/docs/dev/table/sql/queries/set-ops.md
(SELECT s FROM t1) UNION ALL (SELECT s FROM t2);

-- source: https://github.com/apache/flink/blob/60c01d3aa144c761ace16bc2cbe05fef3745c109/docs/content/docs/dev/table/sql/queries/set-ops.md
(SELECT s FROM t1) INTERSECT (SELECT s FROM t2);

-- source: https://github.com/apache/flink/blob/60c01d3aa144c761ace16bc2cbe05fef3745c109/docs/content/docs/dev/table/sql/queries/set-ops.md
(SELECT s FROM t1) INTERSECT ALL (SELECT s FROM t2);

-- source: https://github.com/apache/flink/blob/60c01d3aa144c761ace16bc2cbe05fef3745c109/docs/content/docs/dev/table/sql/queries/set-ops.md
(SELECT s FROM t1) EXCEPT (SELECT s FROM t2);

-- source: https://github.com/apache/flink/blob/60c01d3aa144c761ace16bc2cbe05fef3745c109/docs/content/docs/dev/table/sql/queries/set-ops.md
(SELECT s FROM t1) EXCEPT ALL (SELECT s FROM t2);

-- source: https://github.com/apache/flink/blob/60c01d3aa144c761ace16bc2cbe05fef3745c109/docs/content/docs/dev/table/sql/queries/set-ops.md
SELECT user, amount
FROM Orders
WHERE product IN (
    SELECT product FROM NewProducts
);

-- source: https://github.com/apache/flink/blob/5bb9e6f3e0283d9f9df8bfbc65953adb194bdb48/docs/content/docs/dev/table/sql/queries/with.md
WITH orders_with_total AS (
    SELECT order_id, price + tax AS total
    FROM Orders
)
SELECT order_id, SUM(total)
FROM orders_with_total
GROUP BY order_id;

-- source: https://github.com/apache/flink/blob/5bb9e6f3e0283d9f9df8bfbc65953adb194bdb48/docs/content/docs/dev/table/sql/queries/orderby.md
SELECT *
FROM Orders
ORDER BY order_time, order_id;

-- source: https://github.com/apache/flink/blob/60c01d3aa144c761ace16bc2cbe05fef3745c109/docs/content/docs/dev/table/sql/queries/select.md
SELECT order_id, price + tax FROM Orders;

-- source: https://github.com/apache/flink/blob/60c01d3aa144c761ace16bc2cbe05fef3745c109/docs/content/docs/dev/table/sql/queries/select.md
SELECT order_id, price FROM (VALUES (1, 2.0), (2, 3.1))  AS t (order_id, price);

-- source: https://github.com/apache/flink/blob/60c01d3aa144c761ace16bc2cbe05fef3745c109/docs/content/docs/dev/table/sql/queries/select.md
SELECT price + tax FROM Orders WHERE id = 10;

-- source: https://github.com/apache/flink/blob/60c01d3aa144c761ace16bc2cbe05fef3745c109/docs/content/docs/dev/table/sql/queries/select.md
SELECT PRETTY_PRINT(order_id) FROM Orders;

-- source: https://github.com/apache/flink/blob/60c01d3aa144c761ace16bc2cbe05fef3745c109/docs/content/docs/dev/table/sql/queries/select-distinct.md
SELECT DISTINCT id FROM Orders;

-- source: https://github.com/apache/flink/blob/3e5c3d255a0db7c0061b03b543d0439328b4b694/docs/content/docs/dev/table/sql/queries/overview.md
SELECT a AS `my field` FROM t;

-- source: https://github.com/apache/flink/blob/3e5c3d255a0db7c0061b03b543d0439328b4b694/docs/content/docs/dev/table/sql/queries/overview.md
SELECT 'Hello World';

-- source: https://github.com/apache/flink/blob/3e5c3d255a0db7c0061b03b543d0439328b4b694/docs/content/docs/dev/table/sql/queries/overview.md
SELECT 'It''s me.';

-- source: https://github.com/apache/flink/blob/0c0d7cfb7b32e01c86ddd33f97e09f48d9df9d34/docs/content/docs/dev/table/sql/queries/hints.md
SELECT o.order_id, o.total, c.country, c.zip
FROM Orders AS o
  JOIN Customers FOR SYSTEM_TIME AS OF o.proc_time AS c
    ON o.customer_id = c.id and c.country = 'US';

-- source: https://github.com/apache/flink/blob/1a0227f86d34f43d414f9f48e3e0cb7d7124dbcf/docs/content/docs/dev/table/sql/gettingStarted.md
SELECT CURRENT_TIMESTAMP;

-- source: https://github.com/apache/flink/blob/1a0227f86d34f43d414f9f48e3e0cb7d7124dbcf/docs/content/docs/dev/table/sql/gettingStarted.md
SELECT * from employee_information WHERE dept_id = 1;

-- source: https://github.com/apache/flink/blob/1a0227f86d34f43d414f9f48e3e0cb7d7124dbcf/docs/content/docs/dev/table/sql/gettingStarted.md
SELECT 
	dept_id,
	COUNT(*) as emp_count 
FROM employee_information 
GROUP BY dept_id;

-- source: https://github.com/apache/flink/blob/1e4f6f46cc7e62152d7b1edce596836c0cb2b526/docs/content/docs/dev/table/concepts/time_attributes.md
SELECT TUMBLE_START(user_action_time, INTERVAL '10' MINUTE), COUNT(DISTINCT user_name)
FROM user_actions
GROUP BY TUMBLE(user_action_time, INTERVAL '10' MINUTE);

-- source: https://github.com/apache/flink/blob/1e4f6f46cc7e62152d7b1edce596836c0cb2b526/docs/content/docs/dev/table/concepts/time_attributes.md
SELECT TUMBLE_START(time_ltz, INTERVAL '10' MINUTE), COUNT(DISTINCT user_name)
FROM user_actions
GROUP BY TUMBLE(time_ltz, INTERVAL '10' MINUTE);

-- source: https://github.com/apache/flink/blob/04cf32ddebf3c1c8bcb8117c27cf1cf3e98cbba5/docs/content/docs/dev/table/concepts/timezone.md
SELECT TIMESTAMP '1970-01-01 00:00:04.001';

-- source: https://github.com/apache/flink/blob/04cf32ddebf3c1c8bcb8117c27cf1cf3e98cbba5/docs/content/docs/dev/table/concepts/timezone.md
SELECT * FROM T1;

-- source: https://github.com/apache/flink/blob/04cf32ddebf3c1c8bcb8117c27cf1cf3e98cbba5/docs/content/docs/dev/table/concepts/timezone.md
SELECT PROCTIME();

-- source: https://github.com/apache/flink/blob/0d0ef54581b1b531a7862507f448bbc5a4344c92/docs/content/docs/connectors/table/filesystem.md
SELECT * FROM fs_table WHERE dt='2020-05-20' and `hour`='12';

-- source: https://github.com/apache/flink/blob/2a2bf4ba14e431954866ec1d3a6ba8ff97268b3e/docs/content/docs/dev/table/concepts/temporal_table_function.md
SELECT * FROM orders;

-- source: https://github.com/apache/flink/blob/2a2bf4ba14e431954866ec1d3a6ba8ff97268b3e/docs/content/docs/dev/table/concepts/temporal_table_function.md
SELECT
  SUM(amount * rate) AS amount
FROM
  orders,
  LATERAL TABLE (rates(order_time))
WHERE
  rates.currency = orders.currency;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT a, c AS d FROM Orders;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT * FROM Orders WHERE b = 'red';

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT * FROM Orders WHERE a % 2 = 0;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT PRETTY_PRINT(user) FROM Orders;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT a, SUM(b) as d
FROM Orders
GROUP BY a;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT user, SUM(amount)
FROM Orders
GROUP BY TUMBLE(rowtime, INTERVAL '1' DAY), user;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT COUNT(amount) OVER (
  PARTITION BY user
  ORDER BY proctime
  ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)
FROM Orders;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT COUNT(amount) OVER w, SUM(amount) OVER w
FROM Orders
WINDOW w AS (
  PARTITION BY user
  ORDER BY proctime
  ROWS BETWEEN 2 PRECEDING AND CURRENT ROW);

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT DISTINCT users FROM Orders;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT SUM(amount)
FROM Orders
GROUP BY GROUPING SETS ((user), (product));

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT MyAggregate(amount)
FROM Orders
GROUP BY users;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT *
FROM Orders INNER JOIN Product ON Orders.productId = Product.id;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT *
FROM Orders LEFT JOIN Product ON Orders.productId = Product.id;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT *
FROM Orders FULL OUTER JOIN Product ON Orders.productId = Product.id;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT *
FROM Orders o, Shipments s
WHERE o.id = s.orderId AND
      o.ordertime BETWEEN s.shiptime - INTERVAL '4' HOUR AND s.shiptime;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT users, tag
FROM Orders CROSS JOIN UNNEST(tags) AS t (tag);

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT users, tag
FROM Orders, LATERAL TABLE(unnest_udtf(tags)) AS t(tag);

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT users, tag
FROM Orders, LATERAL TABLE(unnest_udtf(tags));

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT users, tag
FROM Orders LEFT JOIN LATERAL TABLE(unnest_udtf(tags)) AS t(tag) ON TRUE;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT users, tag
FROM Orders LEFT JOIN LATERAL TABLE(unnest_udtf(tags)) ON TRUE;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT
  o_amount, r_rate
FROM
  Orders,
  LATERAL TABLE (Rates(o_proctime))
WHERE
  r_currency = o_currency;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT
  o.amout, o.currency, r.rate, o.amount * r.rate
FROM
  Orders AS o
  JOIN LatestRates FOR SYSTEM_TIME AS OF o.proctime AS r
  ON r.currency = o.currency;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT *
FROM (
    (SELECT user FROM Orders WHERE a % 2 = 0)
  UNION
    (SELECT user FROM Orders WHERE b = 0)
);

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT *
FROM (
    (SELECT user FROM Orders WHERE a % 2 = 0)
  UNION ALL
    (SELECT user FROM Orders WHERE b = 0)
);

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT *
FROM (
    (SELECT user FROM Orders WHERE a % 2 = 0)
  INTERSECT
    (SELECT user FROM Orders WHERE b = 0)
);

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT *
FROM (
    (SELECT user FROM Orders WHERE a % 2 = 0)
  EXCEPT
    (SELECT user FROM Orders WHERE b = 0)
);

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT *
FROM Orders
ORDER BY orderTime;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT *
FROM Orders
ORDER BY orderTime
LIMIT 3;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT * FROM (   SELECT *,       ROW_NUMBER() OVER (PARTITION BY category ORDER BY sales DESC) as row_num   FROM ShopSales)WHERE row_num <= 5;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT order_id, user, product, number FROM (   SELECT *,       ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY proctime ASC) as row_num   FROM Orders)WHERE row_num = 1;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT user,   TUMBLE_START(rowtime, INTERVAL '1' DAY) as wStart,    SUM(amount) FROM Orders GROUP BY TUMBLE(rowtime, INTERVAL '1' DAY), user;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT user, SUM(amount) FROM Orders GROUP BY TUMBLE(proctime, INTERVAL '1' DAY), user;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT product, SUM(amount) FROM Orders GROUP BY HOP(rowtime, INTERVAL '1' HOUR, INTERVAL '1' DAY), product;

-- source: https://github.com/apache/flink/blob/061e8de46eb556c3accafcfdb483a0cf005f8c85/docs/dev/table/sql/queries.md
SELECT user,   SESSION_START(rowtime, INTERVAL '12' HOUR) AS sStart,   SESSION_ROWTIME(rowtime, INTERVAL '12' HOUR) AS snd,   SUM(amount) FROM Orders GROUP BY SESSION(rowtime, INTERVAL '12' HOUR), user;
