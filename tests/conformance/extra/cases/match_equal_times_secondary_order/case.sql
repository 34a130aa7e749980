-- MATCH_RECOGNIZE ORDER BY rowtime, seq: rows at the same time are taken in the order of the second key
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE ticker (
  symbol STRING,
  price INT,
  tax INT,
  rowtime TIMESTAMP(3),
  seq INT,
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/ticker.jsonl',
  'format' = 'json'
);
CREATE TABLE ups (
  symbol STRING,
  s_seq INT,
  dn_seq INT,
  dn_time TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/ups',
  'format' = 'json'
);

INSERT INTO ups
SELECT *
FROM ticker
MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime, seq
  MEASURES
    S.seq AS s_seq,
    DN.seq AS dn_seq,
    DN.rowtime AS dn_time
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (S UP{2} DN)
  DEFINE
    UP AS UP.price > LAST(price, 1),
    DN AS DN.price < LAST(price, 1)
)