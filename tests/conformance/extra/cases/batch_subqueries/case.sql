-- Batch IN / EXISTS / NOT EXISTS subqueries (uncorrelated IN, correlated EXISTS with a residual predicate, NOT EXISTS with NULL keys)
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
CREATE TABLE in_sub (
  id INT,
  name STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/in_sub',
  'format' = 'json'
);
CREATE TABLE exists_sub (
  id INT,
  name STRING,
  credit DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/exists_sub',
  'format' = 'json'
);
CREATE TABLE not_exists_sub (
  oid INT,
  cust_id INT,
  amount DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/not_exists_sub',
  'format' = 'json'
);

EXECUTE STATEMENT SET
BEGIN
INSERT INTO in_sub
SELECT id, name FROM customers
WHERE id IN (SELECT cust_id FROM orders WHERE amount > 100 AND status IS NOT NULL);
INSERT INTO exists_sub
SELECT c.id, c.name, c.credit FROM customers c
WHERE EXISTS (SELECT 1 FROM orders o WHERE o.cust_id = c.id AND o.amount > c.credit / 2);
INSERT INTO not_exists_sub
SELECT o.oid, o.cust_id, o.amount FROM orders o
WHERE NOT EXISTS (SELECT * FROM customers c WHERE c.id = o.cust_id AND c.tier IS NOT NULL);
END;
