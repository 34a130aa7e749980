-- Real Flink SQL statements that are rarely used or use unusual syntax
-- (legacy unquoted SET/RESET, ADD/REMOVE JAR, STOP JOB, Unicode U& string literals, OPTIONS and join hints,
-- MATCH_RECOGNIZE, ANALYZE TABLE, CALL, DELETE/UPDATE/TRUNCATE, time travel, INSERT ... ON CONFLICT,
-- BEGIN STATEMENT SET / END, JSON functions, materialized tables).
-- Format: see README.md.

-- source: https://github.com/apache/flink/blob/35581d67069db4a2403fb37e73f2a40173b2779b/docs/content/docs/dev/table/sql/set.md
SET table.planner = blink;

-- source: https://github.com/apache/flink/blob/f13193d2149a5b47bd699688c5ae8fbe27382b28/docs/content/docs/dev/table/sql/reset.md
RESET table.planner;

-- source: https://github.com/apache/flink/blob/5c951da05d8fa60b921f77a083c302638d8e1bfb/docs/content/docs/dev/table/sql/jar.md
ADD JAR '/path/hello.jar';

-- source: https://github.com/apache/flink/blob/5c951da05d8fa60b921f77a083c302638d8e1bfb/docs/content/docs/dev/table/sql/jar.md
REMOVE JAR '/path/hello.jar';

-- source: https://github.com/apache/flink/blob/149e82025e936e736f0b11795a6bd041279e1da0/docs/content/docs/dev/table/sql/job.md
STOP JOB '228d70913eab60dda85c5e7f78b5782c' WITH SAVEPOINT;

-- source: https://github.com/apache/flink/blob/3e5c3d255a0db7c0061b03b543d0439328b4b694/docs/content/docs/dev/table/sql/queries/overview.md
SELECT U&'\263A';

-- source: https://github.com/apache/flink/blob/3e5c3d255a0db7c0061b03b543d0439328b4b694/docs/content/docs/dev/table/sql/queries/overview.md
SELECT U&'#263A' UESCAPE '#';

-- source: https://github.com/apache/flink/blob/0c0d7cfb7b32e01c86ddd33f97e09f48d9df9d34/docs/content/docs/dev/table/sql/queries/hints.md
select id, name from kafka_table1 /*+ OPTIONS('scan.startup.mode'='earliest-offset') */;

-- source: https://github.com/apache/flink/blob/0c0d7cfb7b32e01c86ddd33f97e09f48d9df9d34/docs/content/docs/dev/table/sql/queries/hints.md
select * from
    kafka_table1 /*+ OPTIONS('scan.startup.mode'='earliest-offset') */ t1
    join
    kafka_table2 /*+ OPTIONS('scan.startup.mode'='earliest-offset') */ t2
    on t1.id = t2.id;

-- source: https://github.com/apache/flink/blob/0c0d7cfb7b32e01c86ddd33f97e09f48d9df9d34/docs/content/docs/dev/table/sql/queries/hints.md
insert into kafka_table1 /*+ OPTIONS('sink.partitioner'='round-robin') */ select * from kafka_table2;

-- source: https://github.com/apache/flink/blob/0c0d7cfb7b32e01c86ddd33f97e09f48d9df9d34/docs/content/docs/dev/table/sql/queries/hints.md
SELECT /*+ BROADCAST(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id;

-- source: https://github.com/apache/flink/blob/0c0d7cfb7b32e01c86ddd33f97e09f48d9df9d34/docs/content/docs/dev/table/sql/queries/hints.md
SELECT /*+ BROADCAST(t1, t3) */ * FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t1.id = t3.id;

-- source: https://github.com/apache/flink/blob/0c0d7cfb7b32e01c86ddd33f97e09f48d9df9d34/docs/content/docs/dev/table/sql/queries/hints.md
SELECT /*+ BROADCAST(t1) */ * FROM t1 join t2 ON t1.id > t2.id;

-- source: https://github.com/apache/flink/blob/0c0d7cfb7b32e01c86ddd33f97e09f48d9df9d34/docs/content/docs/dev/table/sql/queries/hints.md
SELECT /*+ BROADCAST(t1) */ * FROM t1 FULL OUTER JOIN t2 ON t1.id = t2.id;

-- source: https://github.com/apache/flink/blob/0c0d7cfb7b32e01c86ddd33f97e09f48d9df9d34/docs/content/docs/dev/table/sql/queries/hints.md
SELECT /*+ SHUFFLE_HASH(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id;

-- source: https://github.com/apache/flink/blob/0c0d7cfb7b32e01c86ddd33f97e09f48d9df9d34/docs/content/docs/dev/table/sql/queries/hints.md
SELECT /*+ SHUFFLE_HASH(t1, t3) */ * FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t1.id = t3.id;

-- source: https://github.com/apache/flink/blob/0c0d7cfb7b32e01c86ddd33f97e09f48d9df9d34/docs/content/docs/dev/table/sql/queries/hints.md
SELECT /*+ SHUFFLE_MERGE(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id;

-- source: https://github.com/apache/flink/blob/0c0d7cfb7b32e01c86ddd33f97e09f48d9df9d34/docs/content/docs/dev/table/sql/queries/hints.md
SELECT /*+ NEST_LOOP(t1, t3) */ * FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t1.id = t3.id;

-- source: https://github.com/apache/flink/blob/0c0d7cfb7b32e01c86ddd33f97e09f48d9df9d34/docs/content/docs/dev/table/sql/queries/hints.md
SELECT /*+ BROADCAST(t2), BROADCAST(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id;

-- source: https://github.com/apache/flink/blob/0c0d7cfb7b32e01c86ddd33f97e09f48d9df9d34/docs/content/docs/dev/table/sql/queries/hints.md
SELECT /*+ BROADCAST(t2, t1), BROADCAST(t1, t2) */ * FROM t1 JOIN t2 ON t1.id = t2.id;

-- source: https://github.com/apache/flink/blob/0c0d7cfb7b32e01c86ddd33f97e09f48d9df9d34/docs/content/docs/dev/table/sql/queries/hints.md
SELECT /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id;

-- source: https://github.com/apache/flink/blob/0c0d7cfb7b32e01c86ddd33f97e09f48d9df9d34/docs/content/docs/dev/table/sql/queries/hints.md
SELECT /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * FROM t1 FULL OUTER JOIN t2 ON t1.id > t2.id;

-- source: https://github.com/apache/flink/blob/53e28deb27919d3f9d2e879f85cc3b536111791e/docs/content/docs/dev/table/sql/queries/match_recognize.md
SELECT T.aid, T.bid, T.cid
FROM MyTable
    MATCH_RECOGNIZE (
      PARTITION BY userid
      ORDER BY proctime
      MEASURES
        A.id AS aid,
        B.id AS bid,
        C.id AS cid
      PATTERN (A B C)
      DEFINE
        A AS name = 'a',
        B AS name = 'b',
        C AS name = 'c'
    ) AS T;

-- source: https://github.com/apache/flink/blob/53e28deb27919d3f9d2e879f85cc3b536111791e/docs/content/docs/dev/table/sql/queries/match_recognize.md
SELECT *
FROM Ticker
    MATCH_RECOGNIZE (
        PARTITION BY symbol
        ORDER BY rowtime
        MEASURES
            START_ROW.rowtime AS start_tstamp,
            LAST(PRICE_DOWN.rowtime) AS bottom_tstamp,
            LAST(PRICE_UP.rowtime) AS end_tstamp
        ONE ROW PER MATCH
        AFTER MATCH SKIP TO LAST PRICE_UP
        PATTERN (START_ROW PRICE_DOWN+ PRICE_UP)
        DEFINE
            PRICE_DOWN AS
                (LAST(PRICE_DOWN.price, 1) IS NULL AND PRICE_DOWN.price < START_ROW.price) OR
                    PRICE_DOWN.price < LAST(PRICE_DOWN.price, 1),
            PRICE_UP AS
                PRICE_UP.price > LAST(PRICE_DOWN.price, 1)
    ) MR;

-- source: https://github.com/apache/flink/blob/53e28deb27919d3f9d2e879f85cc3b536111791e/docs/content/docs/dev/table/sql/queries/match_recognize.md
SELECT *
FROM Ticker
    MATCH_RECOGNIZE (
        PARTITION BY symbol
        ORDER BY rowtime
        MEASURES
            FIRST(A.rowtime) AS start_tstamp,
            LAST(A.rowtime) AS end_tstamp,
            AVG(A.price) AS avgPrice
        ONE ROW PER MATCH
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (A+ B)
        DEFINE
            A AS AVG(A.price) < 15
    ) MR;

-- source: https://github.com/apache/flink/blob/53e28deb27919d3f9d2e879f85cc3b536111791e/docs/content/docs/dev/table/sql/queries/match_recognize.md
SELECT *
FROM Ticker
    MATCH_RECOGNIZE(
        PARTITION BY symbol
        ORDER BY rowtime
        MEASURES
            C.price AS lastPrice
        ONE ROW PER MATCH
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (A B* C)
        DEFINE
            A AS A.price > 10,
            B AS B.price < 15,
            C AS C.price > 12
    );

-- source: https://github.com/apache/flink/blob/53e28deb27919d3f9d2e879f85cc3b536111791e/docs/content/docs/dev/table/sql/queries/match_recognize.md
SELECT *
FROM Ticker
    MATCH_RECOGNIZE(
        PARTITION BY symbol
        ORDER BY rowtime
        MEASURES
            FIRST(A.price) AS startPrice,
            LAST(A.price) AS topPrice,
            B.price AS lastPrice
        ONE ROW PER MATCH
        PATTERN (A+ B)
        DEFINE
            A AS LAST(A.price, 1) IS NULL OR A.price > LAST(A.price, 1),
            B AS B.price < LAST(A.price)
    );

-- source: https://github.com/apache/flink/blob/00c2847e06770a7f04718baf2025eb649e37343a/docs/content/docs/dev/table/sql/analyze.md
ANALYZE TABLE Store COMPUTE STATISTICS;

-- source: https://github.com/apache/flink/blob/00c2847e06770a7f04718baf2025eb649e37343a/docs/content/docs/dev/table/sql/analyze.md
ANALYZE TABLE Store COMPUTE STATISTICS FOR ALL COLUMNS;

-- source: https://github.com/apache/flink/blob/00c2847e06770a7f04718baf2025eb649e37343a/docs/content/docs/dev/table/sql/analyze.md
ANALYZE TABLE Store COMPUTE STATISTICS FOR COLUMNS(location);

-- source: https://github.com/apache/flink/blob/00c2847e06770a7f04718baf2025eb649e37343a/docs/content/docs/dev/table/sql/analyze.md
ANALYZE TABLE Orders PARTITION (sold_year='2022', sold_month='8') COMPUTE STATISTICS;

-- source: https://github.com/apache/flink/blob/00c2847e06770a7f04718baf2025eb649e37343a/docs/content/docs/dev/table/sql/analyze.md
ANALYZE TABLE Orders PARTITION (sold_year='2022', sold_month) COMPUTE STATISTICS;

-- source: https://github.com/apache/flink/blob/00c2847e06770a7f04718baf2025eb649e37343a/docs/content/docs/dev/table/sql/analyze.md
ANALYZE TABLE Orders COMPUTE STATISTICS;

-- source: https://github.com/apache/flink/blob/00c2847e06770a7f04718baf2025eb649e37343a/docs/content/docs/dev/table/sql/analyze.md
ANALYZE TABLE Orders PARTITION (sold_year='2022', sold_month='8') COMPUTE STATISTICS FOR ALL COLUMNS;

-- source: https://github.com/apache/flink/blob/00c2847e06770a7f04718baf2025eb649e37343a/docs/content/docs/dev/table/sql/analyze.md
ANALYZE TABLE Orders PARTITION (sold_year='2022', sold_month) COMPUTE STATISTICS FOR COLUMNS(amount, product);

-- source: https://github.com/apache/flink/blob/00c2847e06770a7f04718baf2025eb649e37343a/docs/content/docs/dev/table/sql/analyze.md
ANALYZE TABLE Orders PARTITION (sold_year, sold_month) COMPUTE STATISTICS FOR COLUMNS(amount, product);

-- source: https://github.com/apache/flink/blob/a61412e850c98504810fb04f568836b90c261766/docs/content/docs/dev/table/sql/call.md
CALL `system`.generate_n(4);

-- source: https://github.com/apache/flink/blob/77214f138cf759a3ee5466c9b2379e717227a0ae/docs/content/docs/dev/table/sql/delete.md
DELETE FROM Orders WHERE `user` = 'Lili';

-- source: https://github.com/apache/flink/blob/77214f138cf759a3ee5466c9b2379e717227a0ae/docs/content/docs/dev/table/sql/delete.md
DELETE FROM Orders;

-- source: https://github.com/apache/flink/blob/67a02e4201e411fe503b5146c77938ed0943e774/docs/content/docs/dev/table/sql/update.md
UPDATE Orders SET `amount` = `amount` * 2;

-- source: https://github.com/apache/flink/blob/67a02e4201e411fe503b5146c77938ed0943e774/docs/content/docs/dev/table/sql/update.md
UPDATE Orders SET `product` = 'Orange' WHERE `user` = 'Lili';

-- source: https://github.com/apache/flink/blob/67a02e4201e411fe503b5146c77938ed0943e774/docs/content/docs/dev/table/sql/update.md
UPDATE Orders SET amount = 2;

-- source: https://github.com/apache/flink/blob/5cc5de36d9db6f6754d993850e2537d920ef02e7/docs/content/docs/dev/table/sql/truncate.md
TRUNCATE TABLE Orders;

-- source: https://github.com/apache/flink/blob/2ffeddaad1aa5bec46b52260148f50671f3c5600/docs/content/docs/dev/table/sql/queries/time-travel.md
SELECT select_list FROM paimon_tb FOR SYSTEM_TIME AS OF TIMESTAMP '2023-07-31 00:00:00';

-- source: https://github.com/apache/flink/blob/2ffeddaad1aa5bec46b52260148f50671f3c5600/docs/content/docs/dev/table/sql/queries/time-travel.md
SELECT select_list FROM paimon_tb FOR SYSTEM_TIME AS OF TIMESTAMP '2023-07-31 00:00:00' - INTERVAL '1' DAY;

-- source: https://github.com/apache/flink/blob/2ffeddaad1aa5bec46b52260148f50671f3c5600/docs/content/docs/dev/table/sql/queries/time-travel.md
SELECT select_list FROM paimon_tb FOR SYSTEM_TIME AS OF TO_TIMESTAMP_LTZ(0, 3);

-- source: https://github.com/apache/flink/blob/master/docs/content/docs/dev/table/sql/insert.md
INSERT INTO product_orders
SELECT p.name, o.order_id
FROM orders o JOIN products p ON o.product_name = p.name
ON CONFLICT DO ERROR;

-- source: https://github.com/apache/flink/blob/master/docs/content/docs/dev/table/sql/insert.md
INSERT INTO product_orders
SELECT p.name, o.order_id
FROM orders o JOIN products p ON o.product_name = p.name
ON CONFLICT DO NOTHING;

-- source: https://github.com/apache/flink/blob/master/docs/content/docs/dev/table/sql/insert.md
INSERT INTO product_orders
SELECT p.name, o.order_id
FROM orders o JOIN products p ON o.product_name = p.name
ON CONFLICT DO DEDUPLICATE;

-- source: https://github.com/apache/flink/blob/01a5c12b65c9326ae7e3cc6153ad7c5b8fdbe17b/flink-table/flink-sql-client/src/test/resources/sql/statement_set.q
SET sql-client.execution.result-mode = tableau;

-- source: https://github.com/apache/flink/blob/01a5c12b65c9326ae7e3cc6153ad7c5b8fdbe17b/flink-table/flink-sql-client/src/test/resources/sql/statement_set.q
SET table.dml-sync=true;

-- source: https://github.com/apache/flink/blob/c100972a71748d7eb1cfec29437b8fa72633fa91/flink-table/flink-sql-client/src/test/resources/sql/statement_set.q
BEGIN STATEMENT SET;

-- source: https://github.com/apache/flink/blob/c100972a71748d7eb1cfec29437b8fa72633fa91/flink-table/flink-sql-client/src/test/resources/sql/statement_set.q
END;

-- source: https://github.com/ververica/flink-sql-cookbook/blob/26c3ee2df5cdc94917112bc66a447ffbf60bd593/other-builtin-functions/07_extract_data_from_json/07_extract_data_from_json.md
 CREATE TEMPORARY TABLE clients (
   `json_string` STRING
 )
 WITH (
   'connector' = 'faker',
   'fields.json.expression' = '#{jsona ''-1'',''id'',''#{Internet.uuid}'',''-1'', ''full_name'',''#{Name.full_name}'',''2'',''addresses'',''#{json ''''address'''',''''#{Address.fullAddress}''''}''}'
 );

-- source: https://github.com/ververica/flink-sql-cookbook/blob/26c3ee2df5cdc94917112bc66a447ffbf60bd593/other-builtin-functions/07_extract_data_from_json/07_extract_data_from_json.md
 SELECT 
  json_string IS JSON as `Is JSON`, 
  JSON_EXISTS(json_string, '$.id') as `Is id present`,
  JSON_VALUE(json_string, '$.full_name') as `Full Name`,
  JSON_QUERY(json_string, '$.addresses[*].address') as `Address`,
  json_string as `Original JSON`
 FROM clients;

-- source: https://github.com/ververica/flink-sql-cookbook/blob/61c0e743a193e2ba40d32ed6004bbdbb26e431ca/other-builtin-functions/08_generate_json_from_data/08_generate_json_from_data.md
CREATE TEMPORARY TABLE clients (
  `prefix` STRING,
  `first_name` STRING,
  `last_name` STRING,
  `address` ARRAY<STRING>
)
WITH (
  'connector' = 'faker',
  'fields.first_name.expression' = '#{Name.first_name}',
  'fields.last_name.expression' = '#{Name.last_name}',
  'fields.address.expression' = '#{Address.full_address}',
  'fields.address.length' = '3',
  'fields.prefix.expression' = '#{Name.prefix}'
);

-- source: https://github.com/ververica/flink-sql-cookbook/blob/61c0e743a193e2ba40d32ed6004bbdbb26e431ca/other-builtin-functions/08_generate_json_from_data/08_generate_json_from_data.md
SELECT 
 JSON_OBJECT(KEY 'First Name' VALUE first_name, KEY 'Last Name' VALUE last_name, KEY 'address' VALUE address) AS `json_object`, 
 JSON_ARRAY(first_name, last_name) AS `json_array` 
FROM clients;

-- source: https://github.com/ververica/flink-sql-cookbook/blob/61c0e743a193e2ba40d32ed6004bbdbb26e431ca/other-builtin-functions/08_generate_json_from_data/08_generate_json_from_data.md
SELECT JSON_OBJECTAGG(KEY prefix VALUE cnt)
  FROM (SELECT prefix, COUNT(1) cnt FROM clients GROUP BY prefix) t WHERE cnt > 1;

-- source: https://github.com/ververica/flink-sql-cookbook/blob/61c0e743a193e2ba40d32ed6004bbdbb26e431ca/other-builtin-functions/08_generate_json_from_data/08_generate_json_from_data.md
SELECT JSON_ARRAYAGG(prefix)
  FROM (SELECT DISTINCT prefix FROM clients) t;

-- source: https://github.com/apache/flink/blob/8244941ed18c9c063449759927b58b629110d89e/docs/content/docs/dev/table/materialized-table/statements.md
CREATE MATERIALIZED TABLE my_materialized_table
    FRESHNESS = INTERVAL '10' SECOND
    AS SELECT * FROM kafka_catalog.db1.kafka_table;

-- source: https://github.com/apache/flink/blob/8244941ed18c9c063449759927b58b629110d89e/docs/content/docs/dev/table/materialized-table/statements.md
CREATE MATERIALIZED TABLE my_materialized_table_continuous
    PARTITIONED BY (ds)
    WITH (
        'format' = 'debezium-json',
        'partition.fields.ds.date-formatter' = 'yyyy-MM-dd'
    )
    FRESHNESS = INTERVAL '10' SECOND
    AS 
    SELECT 
        k.ds,
        k.user_id,
        COUNT(*) AS event_count,
        SUM(k.amount) AS total_amount,
        MAX(u.age) AS max_age
    FROM 
        kafka_catalog.db1.kafka_table k
    JOIN 
        user_catalog.db1.user_table u
    ON 
        k.user_id = u.user_id
    WHERE 
        k.event_type = 'purchase'
    GROUP BY 
        k.ds, k.user_id;

-- source: https://github.com/apache/flink/blob/8244941ed18c9c063449759927b58b629110d89e/docs/content/docs/dev/table/materialized-table/statements.md
CREATE MATERIALIZED TABLE my_materialized_table_full
    PARTITIONED BY (ds)
    WITH (
        'format' = 'json',
        'partition.fields.ds.date-formatter' = 'yyyy-MM-dd'
    )
    FRESHNESS = INTERVAL '1' HOUR
    AS 
    SELECT 
        p.ds,
        p.product_id,
        p.product_name,
        AVG(s.sale_price) AS avg_sale_price,
        SUM(s.quantity) AS total_quantity
    FROM 
        paimon_catalog.db1.product_table p
    LEFT JOIN 
        paimon_catalog.db1.sales_table s
    ON 
        p.product_id = s.product_id
    WHERE 
        p.category = 'electronics'
    GROUP BY 
        p.ds, p.product_id, p.product_name;

-- source: https://github.com/apache/flink/blob/8244941ed18c9c063449759927b58b629110d89e/docs/content/docs/dev/table/materialized-table/statements.md
SET 'execution.checkpointing.savepoint-dir' = 'hdfs://savepoint_path';

-- source: https://github.com/apache/flink/blob/8244941ed18c9c063449759927b58b629110d89e/docs/content/docs/dev/table/materialized-table/statements.md
ALTER MATERIALIZED TABLE my_materialized_table SUSPEND;

-- source: https://github.com/apache/flink/blob/8244941ed18c9c063449759927b58b629110d89e/docs/content/docs/dev/table/materialized-table/statements.md
ALTER MATERIALIZED TABLE my_materialized_table RESUME;

-- source: https://github.com/apache/flink/blob/8244941ed18c9c063449759927b58b629110d89e/docs/content/docs/dev/table/materialized-table/statements.md
ALTER MATERIALIZED TABLE my_materialized_table RESUME WITH ('sink.parallelism'='10');

-- source: https://github.com/apache/flink/blob/8244941ed18c9c063449759927b58b629110d89e/docs/content/docs/dev/table/materialized-table/statements.md
ALTER MATERIALIZED TABLE my_materialized_table REFRESH;

-- source: https://github.com/apache/flink/blob/8244941ed18c9c063449759927b58b629110d89e/docs/content/docs/dev/table/materialized-table/statements.md
ALTER MATERIALIZED TABLE my_materialized_table REFRESH PARTITION (ds='2024-06-28');

-- source: https://github.com/apache/flink/blob/8244941ed18c9c063449759927b58b629110d89e/docs/content/docs/dev/table/materialized-table/statements.md
DROP MATERIALIZED TABLE IF EXISTS my_materialized_table;
