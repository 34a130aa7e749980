-- Batch SELECT DISTINCT over columns with NULLs and over computed expressions, two sinks
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
CREATE TABLE distinct_pairs (
  region STRING,
  channel STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/distinct_pairs',
  'format' = 'json'
);
CREATE TABLE distinct_exprs (
  region_or_none STRING,
  big BOOLEAN,
  qty_bucket INT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/distinct_exprs',
  'format' = 'json'
);

EXECUTE STATEMENT SET
BEGIN
INSERT INTO distinct_pairs
SELECT DISTINCT region, channel FROM sales;
INSERT INTO distinct_exprs
SELECT DISTINCT COALESCE(region, 'none'), revenue > 45, qty / 3 FROM sales WHERE product <> 'ink';
END;
