-- streaming LIMIT without ORDER BY: the first rows to arrive, insert-only
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
CREATE TABLE first5 (
  item STRING,
  price DECIMAL(10, 2),
  bidtime TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/first5',
  'format' = 'json'
);

INSERT INTO first5
SELECT item, price, bidtime FROM Bid LIMIT 5;
