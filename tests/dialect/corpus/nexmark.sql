-- Nexmark benchmark for Flink SQL (github.com/nexmark/nexmark, nexmark-flink/src/main/resources/queries):
-- source DDLs and every query file q0..q23 (each query: sink CREATE TABLE + INSERT INTO, some with
-- extra views/functions). Header comments of the files are not included. Format: see README.md.

-- source: https://github.com/nexmark/nexmark/blob/2d99acf36cfa0d7d7109b433bfa2efdf153d4bbe/nexmark-flink/src/main/resources/queries/ddl.sql
CREATE TABLE nexmark (
    event_type int,
    person ROW<
        id  BIGINT,
        name  VARCHAR,
        emailAddress  VARCHAR,
        creditCard  VARCHAR,
        city  VARCHAR,
        state  VARCHAR,
        dateTime TIMESTAMP(3),
        extra  VARCHAR>,
    auction ROW<
        id  BIGINT,
        itemName  VARCHAR,
        description  VARCHAR,
        initialBid  BIGINT,
        reserve  BIGINT,
        dateTime  TIMESTAMP(3),
        expires  TIMESTAMP(3),
        seller  BIGINT,
        category  BIGINT,
        extra  VARCHAR>,
    bid ROW<
        auction  BIGINT,
        bidder  BIGINT,
        price  BIGINT,
        dateTime  TIMESTAMP(3),
        extra  VARCHAR>,
    dateTime AS
        CASE
            WHEN event_type = 0 THEN person.dateTime
            WHEN event_type = 1 THEN auction.dateTime
            ELSE bid.dateTime
        END,
    WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH (
    'connector' = 'nexmark',
    'first-event.rate' = '${TPS}',
    'next-event.rate' = '${TPS}',
    'events.num' = '${EVENTS_NUM}',
    'person.proportion' = '${PERSON_PROPORTION}',
    'auction.proportion' = '${AUCTION_PROPORTION}',
    'bid.proportion' = '${BID_PROPORTION}'
);

-- source: https://github.com/nexmark/nexmark/blob/2d99acf36cfa0d7d7109b433bfa2efdf153d4bbe/nexmark-flink/src/main/resources/queries/ddl.sql
CREATE VIEW person AS
SELECT
    person.id,
    person.name,
    person.emailAddress,
    person.creditCard,
    person.city,
    person.state,
    dateTime,
    person.extra
FROM nexmark WHERE event_type = 0;

-- source: https://github.com/nexmark/nexmark/blob/2d99acf36cfa0d7d7109b433bfa2efdf153d4bbe/nexmark-flink/src/main/resources/queries/ddl.sql
CREATE VIEW auction AS
SELECT
    auction.id,
    auction.itemName,
    auction.description,
    auction.initialBid,
    auction.reserve,
    dateTime,
    auction.expires,
    auction.seller,
    auction.category,
    auction.extra
FROM nexmark WHERE event_type = 1;

-- source: https://github.com/nexmark/nexmark/blob/2d99acf36cfa0d7d7109b433bfa2efdf153d4bbe/nexmark-flink/src/main/resources/queries/ddl.sql
CREATE VIEW bid AS
SELECT
    bid.auction,
    bid.bidder,
    bid.price,
    dateTime,
    bid.extra
FROM nexmark WHERE event_type = 2;

-- source: https://github.com/nexmark/nexmark/blob/536d772dd8a37da24a5ebdcdea7cae68d5b606e1/nexmark-flink/src/main/resources/queries/ddl_gen.sql
CREATE TABLE datagen (
    event_type int,
    person ROW<
        id  BIGINT,
        name  VARCHAR,
        emailAddress  VARCHAR,
        creditCard  VARCHAR,
        city  VARCHAR,
        state  VARCHAR,
        dateTime TIMESTAMP(3),
        extra  VARCHAR>,
    auction ROW<
        id  BIGINT,
        itemName  VARCHAR,
        description  VARCHAR,
        initialBid  BIGINT,
        reserve  BIGINT,
        dateTime  TIMESTAMP(3),
        expires  TIMESTAMP(3),
        seller  BIGINT,
        category  BIGINT,
        extra  VARCHAR>,
    bid ROW<
        auction  BIGINT,
        bidder  BIGINT,
        price  BIGINT,
        dateTime  TIMESTAMP(3),
        extra  VARCHAR>,
    dateTime AS
        CASE
            WHEN event_type = 0 THEN person.dateTime
            WHEN event_type = 1 THEN auction.dateTime
            ELSE bid.dateTime
        END,
    WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH (
    'connector' = 'nexmark',
    'first-event.rate' = '${TPS}',
    'next-event.rate' = '${TPS}',
    'events.num' = '${EVENTS_NUM}',
    'person.proportion' = '${PERSON_PROPORTION}',
    'auction.proportion' = '${AUCTION_PROPORTION}',
    'bid.proportion' = '${BID_PROPORTION}'
);

-- source: https://github.com/nexmark/nexmark/blob/0326eddca3d0fec31fae5747dae829934e537207/nexmark-flink/src/main/resources/queries/ddl_gen_v2.sql
CREATE TABLE datagen (
    event_type int,
    person ROW<
        id  BIGINT,
        name  VARCHAR,
        emailAddress  VARCHAR,
        creditCard  VARCHAR,
        city  VARCHAR,
        state  VARCHAR,
        `dateTime` TIMESTAMP(3),
        extra  VARCHAR>,
    auction ROW<
        id  BIGINT,
        itemName  VARCHAR,
        description  VARCHAR,
        initialBid  BIGINT,
        reserve  BIGINT,
        `dateTime`  TIMESTAMP(3),
        expires  TIMESTAMP(3),
        seller  BIGINT,
        category  BIGINT,
        extra  VARCHAR>,
    bid ROW<
        auction  BIGINT,
        bidder  BIGINT,
        price  BIGINT,
        channel  VARCHAR,
        url  VARCHAR,
        `dateTime`  TIMESTAMP(3),
        extra  VARCHAR>,
    `dateTime` AS
        CASE
            WHEN event_type = 0 THEN person.`dateTime`
            WHEN event_type = 1 THEN auction.`dateTime`
            ELSE bid.`dateTime`
        END,
    WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH (
    'connector' = 'nexmark',
    'first-event.rate' = '${TPS}',
    'next-event.rate' = '${TPS}',
    'events.num' = '${EVENTS_NUM}',
    'person.proportion' = '${PERSON_PROPORTION}',
    'auction.proportion' = '${AUCTION_PROPORTION}',
    'bid.proportion' = '${BID_PROPORTION}',
    'keep-alive' = '${KEEP_ALIVE}',
    'stop-at' = '${STOP_AT}',
    'max-emit-speed' = 'true'
);

-- source: https://github.com/nexmark/nexmark/blob/4969c60bf3ff56755865046eaa8ea51965c512b0/nexmark-flink/src/main/resources/queries/ddl_kafka.sql
CREATE TABLE kafka (
    event_type int,
    person ROW<
        id  BIGINT,
        name  VARCHAR,
        emailAddress  VARCHAR,
        creditCard  VARCHAR,
        city  VARCHAR,
        state  VARCHAR,
        customTime TIMESTAMP(3),
        extra  VARCHAR>,
    auction ROW<
        id  BIGINT,
        itemName  VARCHAR,
        description  VARCHAR,
        initialBid  BIGINT,
        reserve  BIGINT,
        customTime  TIMESTAMP(3),
        expires  TIMESTAMP(3),
        seller  BIGINT,
        category  BIGINT,
        extra  VARCHAR>,
    bid ROW<
        auction  BIGINT,
        bidder  BIGINT,
        price  BIGINT,
        channel  VARCHAR,
        url  VARCHAR,
        customTime  TIMESTAMP(3),
        extra  VARCHAR>,
    customTime AS
        CASE
            WHEN event_type = 0 THEN person.customTime
            WHEN event_type = 1 THEN auction.customTime
            ELSE bid.customTime
        END,
    WATERMARK FOR customTime AS customTime - INTERVAL '4' SECOND
) WITH (
    'connector' = 'kafka',
    'topic' = 'nexmark',
    'properties.bootstrap.servers' = '${BOOTSTRAP_SERVERS}',
    'properties.group.id' = 'nexmark',
    'scan.startup.mode' = 'earliest-offset',
    'sink.partitioner' = 'round-robin',
    'format' = 'json'
);

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q0.sql
CREATE TABLE nexmark_q0 (
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  dateTime  TIMESTAMP(3),
  extra  VARCHAR
) WITH (
  'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q0.sql
INSERT INTO nexmark_q0
SELECT auction, bidder, price, dateTime, extra FROM bid;

-- source: https://github.com/nexmark/nexmark/blob/d3ba063984a039bca6d01c2c6d45b31508bd7e8d/nexmark-flink/src/main/resources/queries/q1.sql
CREATE TABLE nexmark_q1 (
  auction  BIGINT,
  bidder  BIGINT,
  price  DECIMAL(23, 3),
  customTime  TIMESTAMP(3),
  extra  VARCHAR
) WITH (
  'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/d3ba063984a039bca6d01c2c6d45b31508bd7e8d/nexmark-flink/src/main/resources/queries/q1.sql
INSERT INTO nexmark_q1
SELECT
    auction,
    bidder,
    0.908 * price as price, -- convert dollar to euro
    customTime,
    extra
FROM bid;

-- source: https://github.com/nexmark/nexmark/blob/e0b4a29c53058f37b703389389c51f2bf9e51b4f/nexmark-flink/src/main/resources/queries/q2.sql
CREATE TABLE nexmark_q2 (
  auction  BIGINT,
  price  BIGINT
) WITH (
  'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/e0b4a29c53058f37b703389389c51f2bf9e51b4f/nexmark-flink/src/main/resources/queries/q2.sql
INSERT INTO nexmark_q2
SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0;

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q3.sql
CREATE TABLE nexmark_q3 (
  name  VARCHAR,
  city  VARCHAR,
  state  VARCHAR,
  id  BIGINT
) WITH (
  'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q3.sql
INSERT INTO nexmark_q3
SELECT
    P.name, P.city, P.state, A.id
FROM
    auction AS A INNER JOIN person AS P on A.seller = P.id
WHERE
    A.category = 10 and (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA');

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q4.sql
CREATE TABLE nexmark_q4 (
  id BIGINT,
  final BIGINT
) WITH (
  'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q4.sql
INSERT INTO nexmark_q4
SELECT
    Q.category,
    AVG(Q.final)
FROM (
    SELECT MAX(B.price) AS final, A.category
    FROM auction A, bid B
    WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
    GROUP BY A.id, A.category
) Q
GROUP BY Q.category;

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q5.sql
CREATE TABLE nexmark_q5 (
  auction  BIGINT,
  num  BIGINT
) WITH (
  'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q5.sql
INSERT INTO nexmark_q5
SELECT AuctionBids.auction, AuctionBids.num
 FROM (
   SELECT
     auction,
     count(*) AS num,
     window_start AS starttime,
     window_end AS endtime
     FROM TABLE(
             HOP(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
     GROUP BY auction, window_start, window_end
 ) AS AuctionBids
 JOIN (
   SELECT
     max(CountBids.num) AS maxn,
     CountBids.starttime,
     CountBids.endtime
   FROM (
     SELECT
       count(*) AS num,
       window_start AS starttime,
       window_end AS endtime
     FROM TABLE(
                HOP(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
     GROUP BY auction, window_start, window_end
     ) AS CountBids
   GROUP BY CountBids.starttime, CountBids.endtime
 ) AS MaxBids
 ON AuctionBids.starttime = MaxBids.starttime AND
    AuctionBids.endtime = MaxBids.endtime AND
    AuctionBids.num >= MaxBids.maxn;

-- source: https://github.com/nexmark/nexmark/blob/a8da211c09d0cf35e0ed22a5292389c3b7a3f0ae/nexmark-flink/src/main/resources/queries/q6.sql
CREATE TABLE nexmark_q6 (
  seller VARCHAR,
  avg_price  BIGINT
) WITH (
  'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/a8da211c09d0cf35e0ed22a5292389c3b7a3f0ae/nexmark-flink/src/main/resources/queries/q6.sql
INSERT INTO nexmark_q6
SELECT
    Q.seller,
    AVG(Q.price) OVER
        (PARTITION BY Q.seller ORDER BY Q.`dateTime` ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)
FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY A.id, A.seller ORDER BY B.price DESC) AS rownum
    FROM (SELECT A.id, A.seller, B.price, B.`dateTime`
        FROM auction AS A,
            bid AS B
        WHERE A.id = B.auction
            and B.`dateTime` between A.`dateTime` and A.expires)
    WHERE rownum <= 1
) AS Q;

-- source: https://github.com/nexmark/nexmark/blob/22a860fe2adbfc59fe678b17a1f3bdb669197b09/nexmark-flink/src/main/resources/queries/q7.sql
CREATE TABLE nexmark_q7 (
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  dateTime  TIMESTAMP(3),
  extra  VARCHAR
) WITH (
  'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/22a860fe2adbfc59fe678b17a1f3bdb669197b09/nexmark-flink/src/main/resources/queries/q7.sql
INSERT INTO nexmark_q7
SELECT B.auction, B.bidder, B.price, B.dateTime, B.extra
from bid B
JOIN (
  SELECT MAX(price) AS maxprice, window_end as dateTime
  FROM TABLE(
          TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end
) B1
ON B.price = B1.maxprice
WHERE B.dateTime BETWEEN B1.dateTime  - INTERVAL '10' SECOND AND B1.dateTime;

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q8.sql
CREATE TABLE nexmark_q8 (
  id  BIGINT,
  name  VARCHAR,
  stime  TIMESTAMP(3)
) WITH (
  'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q8.sql
INSERT INTO nexmark_q8
SELECT P.id, P.name, P.starttime
FROM (
  SELECT id, name,
        window_start AS starttime,
        window_end AS endtime
  FROM TABLE(
            TUMBLE(TABLE person, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
  GROUP BY id, name, window_start, window_end
) P
JOIN (
  SELECT seller,
        window_start AS starttime,
        window_end AS endtime
  FROM TABLE(
        TUMBLE(TABLE auction, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
  GROUP BY seller, window_start, window_end
) A
ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime;

-- source: https://github.com/nexmark/nexmark/blob/4969c60bf3ff56755865046eaa8ea51965c512b0/nexmark-flink/src/main/resources/queries/q9.sql
CREATE TABLE nexmark_q9 (
  id  BIGINT,
  itemName  VARCHAR,
  description  VARCHAR,
  initialBid  BIGINT,
  reserve  BIGINT,
  customTime  TIMESTAMP(3),
  expires  TIMESTAMP(3),
  seller  BIGINT,
  category  BIGINT,
  extra  VARCHAR,
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  bid_customTime  TIMESTAMP(3),
  bid_extra  VARCHAR
) WITH (
  'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/4969c60bf3ff56755865046eaa8ea51965c512b0/nexmark-flink/src/main/resources/queries/q9.sql
INSERT INTO nexmark_q9
SELECT
    id, itemName, description, initialBid, reserve, customTime, expires, seller, category, extra,
    auction, bidder, price, bid_customTime, bid_extra
FROM (
   SELECT A.*, B.auction, B.bidder, B.price, B.customTime AS bid_customTime, B.extra AS bid_extra,
     ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.customTime ASC) AS rownum
   FROM auction A, bid B
   WHERE A.id = B.auction AND B.customTime BETWEEN A.customTime AND A.expires
)
WHERE rownum <= 1;

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q10.sql
CREATE TABLE nexmark_q10 (
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  dateTime  TIMESTAMP(3),
  extra  VARCHAR,
  dt STRING,
  hm STRING
) PARTITIONED BY (dt, hm) WITH (
  'connector' = 'filesystem',
  'path' = 'file://${NEXMARK_DIR}/data/output/${SUBMIT_TIME}/bid/',
  'format' = 'csv',
  'sink.partition-commit.trigger' = 'partition-time',
  'sink.partition-commit.delay' = '1 min',
  'sink.partition-commit.policy.kind' = 'success-file',
  'partition.time-extractor.timestamp-pattern' = '$dt $hm:00',
  'sink.rolling-policy.rollover-interval' = '1min',
  'sink.rolling-policy.check-interval' = '1min'
);

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q10.sql
INSERT INTO nexmark_q10
SELECT auction, bidder, price, dateTime, extra, DATE_FORMAT(dateTime, 'yyyy-MM-dd'), DATE_FORMAT(dateTime, 'HH:mm')
FROM bid;

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q11.sql
CREATE TABLE nexmark_q11 (
  bidder BIGINT,
  bid_count BIGINT,
  starttime TIMESTAMP(3),
  endtime TIMESTAMP(3)
) WITH (
  'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q11.sql
INSERT INTO nexmark_q11
SELECT
    B.bidder,
    count(*) as bid_count,
    SESSION_START(B.dateTime, INTERVAL '10' SECOND) as starttime,
    SESSION_END(B.dateTime, INTERVAL '10' SECOND) as endtime
FROM bid B
GROUP BY B.bidder, SESSION(B.dateTime, INTERVAL '10' SECOND);

-- source: https://github.com/nexmark/nexmark/blob/63b8d3163c4b8df5d7ca6763ca7f6fcda9032c53/nexmark-flink/src/main/resources/queries/q12.sql
CREATE TABLE discard_sink (
  bidder BIGINT,
  bid_count BIGINT,
  starttime TIMESTAMP(3),
  endtime TIMESTAMP(3)
) WITH (
  'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/63b8d3163c4b8df5d7ca6763ca7f6fcda9032c53/nexmark-flink/src/main/resources/queries/q12.sql
CREATE VIEW B AS SELECT *, PROCTIME() as p_time FROM bid;

-- source: https://github.com/nexmark/nexmark/blob/63b8d3163c4b8df5d7ca6763ca7f6fcda9032c53/nexmark-flink/src/main/resources/queries/q12.sql
INSERT INTO discard_sink
SELECT
    bidder,
    count(*) as bid_count,
    window_start AS starttime,
    window_end AS endtime
FROM TABLE(
        TUMBLE(TABLE B, DESCRIPTOR(p_time), INTERVAL '10' SECOND))
GROUP BY bidder, window_start, window_end;

-- source: https://github.com/nexmark/nexmark/blob/4969c60bf3ff56755865046eaa8ea51965c512b0/nexmark-flink/src/main/resources/queries/q13.sql
CREATE TABLE side_input (
  key BIGINT,
  `value` VARCHAR
) WITH (
  'connector.type' = 'filesystem',
  'connector.path' = 'file://${FLINK_HOME}/data/side_input.txt',
  'format.type' = 'csv'
);

-- source: https://github.com/nexmark/nexmark/blob/4969c60bf3ff56755865046eaa8ea51965c512b0/nexmark-flink/src/main/resources/queries/q13.sql
CREATE TABLE nexmark_q13 (
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  customTime  TIMESTAMP(3),
  `value`  VARCHAR
) WITH (
  'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/4969c60bf3ff56755865046eaa8ea51965c512b0/nexmark-flink/src/main/resources/queries/q13.sql
INSERT INTO nexmark_q13
SELECT
    B.auction,
    B.bidder,
    B.price,
    B.customTime,
    S.`value`
FROM (SELECT *, PROCTIME() as p_time FROM bid) B
JOIN side_input FOR SYSTEM_TIME AS OF B.p_time AS S
ON mod(B.auction, 10000) = S.key;

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q14.sql
CREATE FUNCTION count_char AS 'com.github.nexmark.flink.udf.CountChar';

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q14.sql
CREATE TABLE nexmark_q14 (
    auction BIGINT,
    bidder BIGINT,
    price  DECIMAL(23, 3),
    bidTimeType VARCHAR,
    dateTime TIMESTAMP(3),
    extra VARCHAR,
    c_counts BIGINT
) WITH (
  'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q14.sql
INSERT INTO nexmark_q14
SELECT 
    auction,
    bidder,
    0.908 * price as price,
    CASE
        WHEN HOUR(dateTime) >= 8 AND HOUR(dateTime) <= 18 THEN 'dayTime'
        WHEN HOUR(dateTime) <= 6 OR HOUR(dateTime) >= 20 THEN 'nightTime'
        ELSE 'otherTime'
    END AS bidTimeType,
    dateTime,
    extra,
    count_char(extra, 'c') AS c_counts
FROM bid
WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000;

-- source: https://github.com/nexmark/nexmark/blob/4969c60bf3ff56755865046eaa8ea51965c512b0/nexmark-flink/src/main/resources/queries/q15.sql
CREATE TABLE nexmark_q15 (
  `day` VARCHAR,
  total_bids BIGINT,
  rank1_bids BIGINT,
  rank2_bids BIGINT,
  rank3_bids BIGINT,
  total_bidders BIGINT,
  rank1_bidders BIGINT,
  rank2_bidders BIGINT,
  rank3_bidders BIGINT,
  total_auctions BIGINT,
  rank1_auctions BIGINT,
  rank2_auctions BIGINT,
  rank3_auctions BIGINT
) WITH (
  'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/4969c60bf3ff56755865046eaa8ea51965c512b0/nexmark-flink/src/main/resources/queries/q15.sql
INSERT INTO nexmark_q15
SELECT
     DATE_FORMAT(customTime, 'yyyy-MM-dd') as `day`,
     count(*) AS total_bids,
     count(*) filter (where price < 10000) AS rank1_bids,
     count(*) filter (where price >= 10000 and price < 1000000) AS rank2_bids,
     count(*) filter (where price >= 1000000) AS rank3_bids,
     count(distinct bidder) AS total_bidders,
     count(distinct bidder) filter (where price < 10000) AS rank1_bidders,
     count(distinct bidder) filter (where price >= 10000 and price < 1000000) AS rank2_bidders,
     count(distinct bidder) filter (where price >= 1000000) AS rank3_bidders,
     count(distinct auction) AS total_auctions,
     count(distinct auction) filter (where price < 10000) AS rank1_auctions,
     count(distinct auction) filter (where price >= 10000 and price < 1000000) AS rank2_auctions,
     count(distinct auction) filter (where price >= 1000000) AS rank3_auctions
FROM bid
GROUP BY DATE_FORMAT(customTime, 'yyyy-MM-dd');

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q16.sql
CREATE TABLE nexmark_q16 (
    channel VARCHAR,
    `day` VARCHAR,
    `minute` VARCHAR,
    total_bids BIGINT,
    rank1_bids BIGINT,
    rank2_bids BIGINT,
    rank3_bids BIGINT,
    total_bidders BIGINT,
    rank1_bidders BIGINT,
    rank2_bidders BIGINT,
    rank3_bidders BIGINT,
    total_auctions BIGINT,
    rank1_auctions BIGINT,
    rank2_auctions BIGINT,
    rank3_auctions BIGINT
) WITH (
    'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q16.sql
INSERT INTO nexmark_q16
SELECT
    channel,
    DATE_FORMAT(dateTime, 'yyyy-MM-dd') as `day`,
    max(DATE_FORMAT(dateTime, 'HH:mm')) as `minute`,
    count(*) AS total_bids,
    count(*) filter (where price < 10000) AS rank1_bids,
    count(*) filter (where price >= 10000 and price < 1000000) AS rank2_bids,
    count(*) filter (where price >= 1000000) AS rank3_bids,
    count(distinct bidder) AS total_bidders,
    count(distinct bidder) filter (where price < 10000) AS rank1_bidders,
    count(distinct bidder) filter (where price >= 10000 and price < 1000000) AS rank2_bidders,
    count(distinct bidder) filter (where price >= 1000000) AS rank3_bidders,
    count(distinct auction) AS total_auctions,
    count(distinct auction) filter (where price < 10000) AS rank1_auctions,
    count(distinct auction) filter (where price >= 10000 and price < 1000000) AS rank2_auctions,
    count(distinct auction) filter (where price >= 1000000) AS rank3_auctions
FROM bid
GROUP BY channel, DATE_FORMAT(dateTime, 'yyyy-MM-dd');

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q17.sql
CREATE TABLE nexmark_q17 (
  auction BIGINT,
  `day` VARCHAR,
  total_bids BIGINT,
  rank1_bids BIGINT,
  rank2_bids BIGINT,
  rank3_bids BIGINT,
  min_price BIGINT,
  max_price BIGINT,
  avg_price BIGINT,
  sum_price BIGINT
) WITH (
  'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q17.sql
INSERT INTO nexmark_q17
SELECT
     auction,
     DATE_FORMAT(dateTime, 'yyyy-MM-dd') as `day`,
     count(*) AS total_bids,
     count(*) filter (where price < 10000) AS rank1_bids,
     count(*) filter (where price >= 10000 and price < 1000000) AS rank2_bids,
     count(*) filter (where price >= 1000000) AS rank3_bids,
     min(price) AS min_price,
     max(price) AS max_price,
     avg(price) AS avg_price,
     sum(price) AS sum_price
FROM bid
GROUP BY auction, DATE_FORMAT(dateTime, 'yyyy-MM-dd');

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q18.sql
CREATE TABLE nexmark_q18 (
    auction  BIGINT,
    bidder  BIGINT,
    price  BIGINT,
    channel  VARCHAR,
    url  VARCHAR,
    dateTime  TIMESTAMP(3),
    extra  VARCHAR
) WITH (
  'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q18.sql
INSERT INTO nexmark_q18
SELECT auction, bidder, price, channel, url, dateTime, extra
 FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY dateTime DESC) AS rank_number
       FROM bid)
 WHERE rank_number <= 1;

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q19.sql
CREATE TABLE nexmark_q19 (
    auction  BIGINT,
    bidder  BIGINT,
    price  BIGINT,
    channel  VARCHAR,
    url  VARCHAR,
    dateTime  TIMESTAMP(3),
    extra  VARCHAR,
    rank_number  BIGINT
) WITH (
  'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q19.sql
INSERT INTO nexmark_q19
SELECT * FROM
(SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number FROM bid)
WHERE rank_number <= 10;

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q20.sql
CREATE TABLE discard_sink (
    auction  BIGINT,
    bidder  BIGINT,
    price  BIGINT,
    channel  VARCHAR,
    url  VARCHAR,
    bid_dateTime  TIMESTAMP(3),
    bid_extra  VARCHAR,

    itemName  VARCHAR,
    description  VARCHAR,
    initialBid  BIGINT,
    reserve  BIGINT,
    auction_dateTime  TIMESTAMP(3),
    expires  TIMESTAMP(3),
    seller  BIGINT,
    category  BIGINT,
    auction_extra  VARCHAR
) WITH (
    'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q20.sql
INSERT INTO nexmark_q20
SELECT
    auction, bidder, price, channel, url, B.dateTime, B.extra,
    itemName, description, initialBid, reserve, A.dateTime, expires, seller, category, A.extra
FROM
    bid AS B INNER JOIN auction AS A on B.auction = A.id
WHERE A.category = 10;

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q21.sql
CREATE TABLE nexmark_q21 (
    auction  BIGINT,
    bidder  BIGINT,
    price  BIGINT,
    channel  VARCHAR,
    channel_id  VARCHAR
) WITH (
    'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/0f96e93c85ae6f5c29116f8b736e95cb5dc5a318/nexmark-flink/src/main/resources/queries/q21.sql
INSERT INTO nexmark_q21
SELECT
    auction, bidder, price, channel,
    CASE
        WHEN lower(channel) = 'apple' THEN '0'
        WHEN lower(channel) = 'google' THEN '1'
        WHEN lower(channel) = 'facebook' THEN '2'
        WHEN lower(channel) = 'baidu' THEN '3'
        ELSE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2)
        END
    AS channel_id FROM bid
    where REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) is not null or
          lower(channel) in ('apple', 'google', 'facebook', 'baidu');

-- source: https://github.com/nexmark/nexmark/blob/master/nexmark-flink/src/main/resources/queries/q22.sql (file not in the search index; text taken from a verbatim quotation citing that URL)
CREATE TABLE nexmark_q22 (
      auction  BIGINT,
      bidder  BIGINT,
      price  BIGINT,
      channel  VARCHAR,
      dir1  VARCHAR,
      dir2  VARCHAR,
      dir3  VARCHAR
) WITH (
    'connector' = 'blackhole'
);

-- source: https://github.com/nexmark/nexmark/blob/master/nexmark-flink/src/main/resources/queries/q22.sql (file not in the search index; text taken from a verbatim quotation citing that URL)
INSERT INTO nexmark_q22
SELECT
    auction, bidder, price, channel,
    SPLIT_INDEX(url, '/', 3) as dir1,
    SPLIT_INDEX(url, '/', 4) as dir2,
    SPLIT_INDEX(url, '/', 5) as dir3 FROM bid;

-- source: https://github.com/nexmark/nexmark/blob/8063de6376b2b1cefc6f5d8bef45bd4df8883649/nexmark-flink/src/main/resources/queries/q23.sql
CREATE TABLE nexmark_q23
(
    bidder           BIGINT,
    price            BIGINT,
    channel          VARCHAR,
    url              VARCHAR,
    bid_extra        VARCHAR,

    person_id       BIGINT,
    name             VARCHAR,
    emailAddress     VARCHAR,
    creditCard       VARCHAR,
    city             VARCHAR,
    state            VARCHAR,
    person_extra     VARCHAR,

    itemName         VARCHAR,
    description      VARCHAR,
    initialBid       BIGINT,
    reserve          BIGINT,
    auction_dateTime TIMESTAMP(3),
    expires          TIMESTAMP(3),
    seller           BIGINT,
    category         BIGINT,
    auction_extra    VARCHAR
) WITH (
      'connector' = 'blackhole'
      );

-- source: https://github.com/nexmark/nexmark/blob/8063de6376b2b1cefc6f5d8bef45bd4df8883649/nexmark-flink/src/main/resources/queries/q23.sql
INSERT INTO nexmark_q23
SELECT bidder,
       price,
       channel,
       url,
       B.extra    AS bid_extra,

       P.id       AS person_id,
       name,
       emailAddress,
       creditCard,
       city,
       state,
       P.extra    AS person_extra,
       itemName,

       description,
       initialBid,
       reserve,
       A.dateTime AS auction_dateTime,
       expires,
       seller,
       category,
       A.extra    AS auction_extra
FROM bid B
         JOIN
     person P ON P.id = B.bidder
         JOIN
     auction A ON A.seller = B.bidder;
