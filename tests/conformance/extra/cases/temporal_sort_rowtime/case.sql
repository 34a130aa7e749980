-- streaming ORDER BY the rowtime ascending, then price descending (Flink's TemporalSort), insert-only
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE Bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/bid.jsonl',
  'format' = 'json'
);
CREATE TABLE ordered (
  bidtime TIMESTAMP(3),
  item STRING,
  price DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/ordered',
  'format' = 'json'
);

INSERT INTO ordered
SELECT bidtime, item, price FROM Bid ORDER BY bidtime, price DESC;
