-- streaming OFFSET .. FETCH FIRST without ORDER BY after a filter: rows 4..7 to arrive, insert-only
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
CREATE TABLE picked (
  item STRING,
  price DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/picked',
  'format' = 'json'
);

INSERT INTO picked
SELECT item, price FROM Bid WHERE item <> 'A' OFFSET 3 ROWS FETCH FIRST 4 ROWS ONLY;
