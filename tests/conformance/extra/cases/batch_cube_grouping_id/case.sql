-- Batch CUBE over three columns with GROUPING_ID and GROUPING, NULL region values next to subtotal NULLs
SET 'execution.runtime-mode' = 'batch';
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE sales (
  region STRING,
  product STRING,
  channel STRING,
  qty INT,
  revenue DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/sales.jsonl',
  'format' = 'json'
);
CREATE TABLE by_cube (
  region STRING,
  product STRING,
  channel STRING,
  gid BIGINT,
  g_region BIGINT,
  qty INT,
  revenue DECIMAL(38, 2),
  n BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/by_cube',
  'format' = 'json'
);

INSERT INTO by_cube
SELECT region, product, channel, GROUPING_ID(region, product, channel), GROUPING(region),
       SUM(qty), SUM(revenue), COUNT(*)
FROM sales
GROUP BY CUBE (region, product, channel);
