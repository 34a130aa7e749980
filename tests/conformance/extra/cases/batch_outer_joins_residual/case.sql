-- Batch LEFT/RIGHT/FULL regular joins whose ON clause has residual non-equi predicates (DECIMAL comparisons, IS NOT NULL, timestamp range)
SET 'execution.runtime-mode' = 'batch';
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE customers (
  id INT,
  name STRING,
  tier STRING,
  credit DECIMAL(10, 2),
  address ROW<city STRING, zip STRING>
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/customers.jsonl',
  'format' = 'json'
);
CREATE TABLE orders (
  oid INT,
  cust_id INT,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  status STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/orders.jsonl',
  'format' = 'json'
);
CREATE TABLE left_res (
  oid INT,
  amount DECIMAL(10, 2),
  name STRING,
  credit DECIMAL(10, 2),
  headroom DECIMAL(11, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/left_res',
  'format' = 'json'
);
CREATE TABLE right_res (
  id INT,
  name STRING,
  tier STRING,
  oid INT,
  amount DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/right_res',
  'format' = 'json'
);
CREATE TABLE full_res (
  oid INT,
  cust_id INT,
  id INT,
  city STRING,
  ts TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/full_res',
  'format' = 'json'
);

EXECUTE STATEMENT SET
BEGIN
INSERT INTO left_res
SELECT o.oid, o.amount, c.name, c.credit, c.credit - o.amount
FROM orders o LEFT JOIN customers c
  ON o.cust_id = c.id AND o.amount * 2 < c.credit;
INSERT INTO right_res
SELECT c.id, c.name, c.tier, o.oid, o.amount
FROM orders o RIGHT JOIN customers c
  ON o.cust_id = c.id AND o.amount > 50 AND c.tier IS NOT NULL AND o.status <> 'NEW';
INSERT INTO full_res
SELECT o.oid, o.cust_id, c.id, c.address.city, o.ts
FROM orders o FULL JOIN customers c
  ON o.cust_id = c.id AND o.ts < TIMESTAMP '2024-03-01 12:00:00' AND c.address.city IS NOT NULL;
END;
