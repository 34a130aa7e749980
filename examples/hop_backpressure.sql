-- Admission control: a datagen source that could produce 1e9 rows per second into a
-- HOP(2 s, 10 s) aggregation keyed by MOD(auction, 1000). Each epoch takes at most
-- 'sqlengine.source.max-rows-per-epoch' rows (default 2,000,000), so the job runs in the
-- default driver memory however fast the source is. Run: sqlengine -f examples/hop_backpressure.sql
SET 'table.dml-sync' = 'true';

CREATE TABLE bid (
    auction BIGINT,
    price   BIGINT,
    seq     BIGINT,
    dt AS TO_TIMESTAMP_LTZ(seq, 3),
    WATERMARK FOR dt AS dt - INTERVAL '1' SECOND
) WITH (
    'connector' = 'datagen',
    'number-of-rows' = '5000000',
    'rows-per-second' = '1000000000',
    'fields.seq.kind' = 'sequence',
    'fields.seq.start' = '0',
    'fields.seq.end' = '4999999',
    'fields.auction.min' = '0',
    'fields.auction.max' = '100000',
    'fields.price.min' = '1',
    'fields.price.max' = '1000'
);

CREATE TABLE hop_out (
    window_start TIMESTAMP(3),
    window_end   TIMESTAMP(3),
    bucket       BIGINT,
    bids         BIGINT,
    top_price    BIGINT
) WITH ('connector' = 'blackhole');

INSERT INTO hop_out
SELECT window_start, window_end, MOD(auction, 1000) AS bucket, COUNT(*) AS bids, MAX(price) AS top_price
FROM TABLE(HOP(TABLE bid, DESCRIPTOR(dt), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
GROUP BY window_start, window_end, MOD(auction, 1000);
