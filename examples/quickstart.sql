-- Quick start: a bounded datagen stream with event time, 10-second TUMBLE windows,
-- results printed as Flink's print connector does (+I[...]). Ends by itself.
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE orders (
  order_id BIGINT,
  product  STRING,
  amount   DECIMAL(10, 2),
  ts AS TO_TIMESTAMP_LTZ(1700000000000 + order_id * 250, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '200',
  'fields.order_id.kind' = 'sequence',
  'fields.order_id.start' = '1',
  'fields.order_id.end' = '200',
  'fields.product.length' = '1',
  'fields.amount.min' = '1',
  'fields.amount.max' = '100'
);

CREATE TABLE revenue (
  window_start TIMESTAMP(3),
  window_end   TIMESTAMP(3),
  orders       BIGINT,
  total        DECIMAL(38, 2)
) WITH (
  'connector' = 'print',
  'print-identifier' = 'revenue'
);

INSERT INTO revenue
SELECT window_start, window_end, COUNT(*) AS orders, SUM(amount) AS total
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECONDS))
GROUP BY window_start, window_end;
