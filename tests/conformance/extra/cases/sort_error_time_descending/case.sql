-- streaming ORDER BY the rowtime descending, without LIMIT: Flink's planning error
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
CREATE TABLE sorted_out (
  item STRING,
  bidtime TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/sorted_out',
  'format' = 'json'
);

INSERT INTO sorted_out
SELECT item, bidtime FROM Bid ORDER BY bidtime DESC;
