-- LEFT OUTER interval join: orders without a shipment within 1 hour are emitted NULL-padded once the watermark passes
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE orders (
  oid INT,
  region STRING,
  amount DECIMAL(10, 2),
  ot TIMESTAMP(3),
  WATERMARK FOR ot AS ot - INTERVAL '2' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/orders.jsonl',
  'format' = 'json'
);
CREATE TABLE shipments (
  oid INT,
  carrier STRING,
  st TIMESTAMP(3),
  WATERMARK FOR st AS st - INTERVAL '2' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/shipments.jsonl',
  'format' = 'json'
);
CREATE TABLE shipped_within_hour (
  oid INT,
  region STRING,
  amount DECIMAL(10, 2),
  carrier STRING,
  order_time TIMESTAMP(3),
  ship_time TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/shipped_within_hour',
  'format' = 'json'
);

INSERT INTO shipped_within_hour
SELECT o.oid, o.region, o.amount, s.carrier, CAST(o.ot AS TIMESTAMP(3)), CAST(s.st AS TIMESTAMP(3))
FROM orders o LEFT JOIN shipments s
  ON o.oid = s.oid AND s.st BETWEEN o.ot AND o.ot + INTERVAL '1' HOUR;
