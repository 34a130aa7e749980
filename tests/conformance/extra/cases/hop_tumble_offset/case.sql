-- Window TVFs with an offset: HOP(5 min slide, 10 min size, 2 min offset) and TUMBLE(10 min, 3 min offset), two sinks
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE Bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier STRING,
  bidder ROW<id INT, country STRING>,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/bid.jsonl',
  'format' = 'json'
);
CREATE TABLE hop_offset (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  item STRING,
  cnt BIGINT,
  total DECIMAL(38, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/hop_offset',
  'format' = 'json'
);
CREATE TABLE tumble_offset (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  window_time TIMESTAMP(3),
  cnt BIGINT,
  max_price DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/tumble_offset',
  'format' = 'json'
);

EXECUTE STATEMENT SET
BEGIN
INSERT INTO hop_offset
SELECT window_start, window_end, item, COUNT(*), SUM(price)
FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES, INTERVAL '2' MINUTES))
GROUP BY window_start, window_end, item;
INSERT INTO tumble_offset
SELECT window_start, window_end, window_time, COUNT(*), MAX(price)
FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES, INTERVAL '3' MINUTES))
GROUP BY window_start, window_end, window_time;
END;
