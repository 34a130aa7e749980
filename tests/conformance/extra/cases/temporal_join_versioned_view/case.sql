-- event-time temporal join against a versioned VIEW (deduplication keeping the last row per key: Flink infers its primary key and row time), INNER and LEFT
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE rates (
  currency STRING,
  rate DECIMAL(10, 2),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/rates.jsonl',
  'format' = 'json'
);
CREATE TABLE orders (
  order_id INT,
  currency STRING,
  amount INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/orders.jsonl',
  'format' = 'json'
);
CREATE VIEW versioned_rates AS
SELECT currency, rate, ts
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY ts DESC) AS rownum
  FROM rates
)
WHERE rownum = 1;
CREATE TABLE converted (
  order_id INT,
  currency STRING,
  amount INT,
  rate DECIMAL(10, 2),
  rate_time TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/converted',
  'format' = 'json'
);
CREATE TABLE converted_left (
  order_id INT,
  total DECIMAL(20, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/converted_left',
  'format' = 'json'
);

INSERT INTO converted
SELECT o.order_id, o.currency, o.amount, r.rate, CAST(r.ts AS TIMESTAMP(3))
FROM orders AS o
JOIN versioned_rates FOR SYSTEM_TIME AS OF o.ts AS r
ON o.currency = r.currency;

INSERT INTO converted_left
SELECT o.order_id, o.amount * r.rate
FROM orders AS o
LEFT JOIN versioned_rates FOR SYSTEM_TIME AS OF o.ts AS r
ON o.currency = r.currency;
