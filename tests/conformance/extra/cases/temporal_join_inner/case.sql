-- Event-time temporal INNER join against a versioned rates table (orders before the first version, NULL and unknown currencies drop out)
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE orders (
  oid INT,
  currency STRING,
  amount DECIMAL(10, 2),
  ot TIMESTAMP(3),
  WATERMARK FOR ot AS ot - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/orders.jsonl',
  'format' = 'json'
);
CREATE TABLE rates (
  currency STRING,
  rate DECIMAL(10, 4),
  valid_from TIMESTAMP(3),
  WATERMARK FOR valid_from AS valid_from - INTERVAL '10' SECOND,
  PRIMARY KEY (currency) NOT ENFORCED
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/rates.jsonl',
  'format' = 'json'
);
CREATE TABLE converted (
  oid INT,
  currency STRING,
  amount DECIMAL(10, 2),
  rate DECIMAL(10, 4),
  eur DECIMAL(21, 6),
  rate_since TIMESTAMP(3),
  ot TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/converted',
  'format' = 'json'
);

INSERT INTO converted
SELECT o.oid, o.currency, o.amount, r.rate, o.amount * r.rate, r.valid_from, o.ot
FROM orders AS o
JOIN rates FOR SYSTEM_TIME AS OF o.ot AS r
ON o.currency = r.currency;
