-- UPDATING: streaming ORDER BY price OFFSET 2 ROWS FETCH NEXT 4 ROWS ONLY (ranks 3..6 of all bids), materialized final result
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
CREATE TABLE cheap (
  item STRING,
  price DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/cheap',
  'format' = 'json'
);

INSERT INTO cheap
SELECT item, price FROM Bid ORDER BY price OFFSET 2 ROWS FETCH NEXT 4 ROWS ONLY;
