-- Interval join with a symmetric bound: p.pt BETWEEN c.ct - INTERVAL '2' MINUTE AND c.ct + INTERVAL '5' MINUTE (both rowtimes cast for the sink)
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE clicks (
  user_id STRING,
  url STRING,
  ct TIMESTAMP(3),
  WATERMARK FOR ct AS ct - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/clicks.jsonl',
  'format' = 'json'
);
CREATE TABLE purchases (
  user_id STRING,
  amount DECIMAL(10, 2),
  pt TIMESTAMP(3),
  WATERMARK FOR pt AS pt - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/purchases.jsonl',
  'format' = 'json'
);
CREATE TABLE click_to_buy (
  user_id STRING,
  url STRING,
  amount DECIMAL(10, 2),
  click_time TIMESTAMP(3),
  buy_time TIMESTAMP(3),
  lag_s INT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/click_to_buy',
  'format' = 'json'
);

INSERT INTO click_to_buy
SELECT c.user_id, c.url, p.amount, CAST(c.ct AS TIMESTAMP(3)), CAST(p.pt AS TIMESTAMP(3)),
       TIMESTAMPDIFF(SECOND, c.ct, p.pt)
FROM clicks c, purchases p
WHERE c.user_id = p.user_id
  AND p.pt BETWEEN c.ct - INTERVAL '2' MINUTE AND c.ct + INTERVAL '5' MINUTE;
