-- Streaming three-way inner join (order_lines x customers x products, append-only) with nested ROW access and a ROW-typed result column
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
CREATE TABLE products (
  pid INT,
  pname STRING,
  price DECIMAL(10, 2),
  category STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/products.jsonl',
  'format' = 'json'
);
CREATE TABLE order_lines (
  oid INT,
  cust_id INT,
  pid INT,
  qty INT,
  ts TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/order_lines.jsonl',
  'format' = 'json'
);
CREATE TABLE multiway (
  oid INT,
  customer STRING,
  city STRING,
  item ROW<name STRING, price DECIMAL(10, 2)>,
  total DECIMAL(21, 2),
  ts TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/multiway',
  'format' = 'json'
);

INSERT INTO multiway
SELECT l.oid, c.name, c.address.city, ROW(p.pname, p.price), p.price * l.qty, l.ts
FROM order_lines l
JOIN customers c ON l.cust_id = c.id
JOIN products p ON l.pid = p.pid
WHERE p.category <> 'food' OR c.tier = 'gold';
