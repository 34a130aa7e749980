-- The cost of growing state (issue 24): unbounded GROUP BY bidder with COUNT(*) and
-- MAX(price), keys = rows / 2 (run.py --curve sets the rows and the key space).
SET 'parallelism.default' = '2';
SET 'table.local-time-zone' = 'UTC';
-- The process ends when the job does (the Flink SQL Client would only submit it).
SET 'table.dml-sync' = 'true';

CREATE TABLE bids (
    id     BIGINT,
    -- Deterministic in id (as in the other scripts): 2,500,000 keys for 5,000,000 rows.
    bidder AS CAST(MOD(MOD(MOD(id * id, 4294967291) * 48271 + id * 16807, 4294967291), 2500000) AS BIGINT),
    price  AS CAST(MOD(MOD(MOD(id * id, 4294967291) * 16807 + id * 48271 + 12345, 4294967291), 10000000) AS BIGINT)
) WITH (
    'connector' = 'datagen',
    'number-of-rows' = '5000000',
    'rows-per-second' = '1000000000',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '0',
    'fields.id.end' = '4999999'
);

-- blackhole when run alone; run.py puts an upsert-kafka topic in its place and checks the output.
CREATE TABLE sink (
    bidder    BIGINT,
    cnt       BIGINT,
    max_price BIGINT,
    PRIMARY KEY (bidder) NOT ENFORCED
) WITH (
    'connector' = 'blackhole'
);

INSERT INTO sink
SELECT bidder, COUNT(*) AS cnt, MAX(price) AS max_price
FROM bids
GROUP BY bidder;
