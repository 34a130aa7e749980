-- UPDATING: streaming GROUP BY ROLLUP and CUBE with GROUPING_ID, materialized final result
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE sales (
  region STRING,
  shop STRING,
  amount INT,
  ts TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/sales.jsonl',
  'format' = 'json'
);
CREATE TABLE rollup_totals (
  region STRING,
  shop STRING,
  total BIGINT,
  n BIGINT,
  gid BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/rollup_totals',
  'format' = 'json'
);
CREATE TABLE cube_max (
  region STRING,
  big BOOLEAN,
  top INT,
  g BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/cube_max',
  'format' = 'json'
);

INSERT INTO rollup_totals
SELECT region, shop, SUM(amount), COUNT(*), GROUPING_ID(region, shop)
FROM sales
GROUP BY ROLLUP (region, shop);

INSERT INTO cube_max
SELECT region, amount > 20, MAX(amount), GROUPING(region)
FROM sales
GROUP BY CUBE (region, amount > 20);
