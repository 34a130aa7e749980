-- window aggregations with GROUPING SETS, ROLLUP and CUBE (window_start, window_end in every set), GROUPING and GROUPING_ID
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE bid (
  supplier_id STRING,
  item STRING,
  price DECIMAL(10, 2),
  bidtime TIMESTAMP(3),
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/bid.jsonl',
  'format' = 'json'
);
CREATE TABLE by_sets (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  supplier_id STRING,
  total DECIMAL(38, 2),
  n BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/by_sets',
  'format' = 'json'
);
CREATE TABLE by_rollup (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  supplier_id STRING,
  item STRING,
  total DECIMAL(38, 2),
  g BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/by_rollup',
  'format' = 'json'
);
CREATE TABLE by_cube (
  window_start TIMESTAMP(3),
  supplier_id STRING,
  item STRING,
  n BIGINT,
  gid BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/by_cube',
  'format' = 'json'
);

INSERT INTO by_sets
SELECT window_start, window_end, supplier_id, SUM(price), COUNT(*)
FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
GROUP BY window_start, window_end, GROUPING SETS ((supplier_id), ());

INSERT INTO by_rollup
SELECT window_start, window_end, supplier_id, item, SUM(price), GROUPING(item)
FROM TABLE(HOP(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))
WHERE price > 5
GROUP BY window_start, window_end, ROLLUP (supplier_id, item);

INSERT INTO by_cube
SELECT window_start, supplier_id, item, COUNT(DISTINCT price), GROUPING_ID(supplier_id, item)
FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '15' MINUTES))
GROUP BY window_start, window_end, CUBE (supplier_id, item);
