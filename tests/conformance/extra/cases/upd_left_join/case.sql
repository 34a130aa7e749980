-- UPDATING: streaming regular LEFT JOIN orders x customers (NULL-padded rows retracted when the customer arrives), materialized final result
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
CREATE TABLE enriched (
  oid INT,
  amount DECIMAL(10, 2),
  name STRING,
  tier STRING,
  city STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/enriched',
  'format' = 'json'
);

INSERT INTO enriched
SELECT o.oid, o.amount, c.name, c.tier, c.address.city
FROM orders o LEFT JOIN customers c ON o.cust_id = c.id;
