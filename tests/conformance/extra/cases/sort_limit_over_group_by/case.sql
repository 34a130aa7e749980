-- UPDATING: streaming ORDER BY .. LIMIT over an updating GROUP BY (ties broken by the key), materialized final result
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
CREATE TABLE busiest (
  item STRING,
  n BIGINT,
  top DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/busiest',
  'format' = 'json'
);

INSERT INTO busiest
SELECT item, COUNT(*) AS n, MAX(price) AS top FROM Bid GROUP BY item ORDER BY n DESC, item LIMIT 2;
