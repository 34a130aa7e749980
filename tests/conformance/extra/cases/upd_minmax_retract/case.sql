-- UPDATING: MIN/MAX/COUNT under retraction, GROUP BY a column of a streaming LEFT JOIN's right side (rows move between groups), materialized final result
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
CREATE TABLE per_tier (
  tier STRING,
  min_amount DECIMAL(10, 2),
  max_amount DECIMAL(10, 2),
  n BIGINT,
  matched BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/per_tier',
  'format' = 'json'
);

INSERT INTO per_tier
SELECT COALESCE(c.tier, 'unknown'), MIN(o.amount), MAX(o.amount), COUNT(*), COUNT(c.id)
FROM orders o LEFT JOIN customers c ON o.cust_id = c.id
GROUP BY COALESCE(c.tier, 'unknown');
