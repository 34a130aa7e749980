-- streaming OFFSET without FETCH: Flink's planning error
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
CREATE TABLE rest (
  item STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/rest',
  'format' = 'json'
);

INSERT INTO rest
SELECT item FROM Bid OFFSET 2 ROWS;
