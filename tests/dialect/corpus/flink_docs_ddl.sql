-- Flink SQL DDL statements (CREATE / ALTER / DROP) copied verbatim from the Apache Flink documentation.
-- Format: see README.md. One statement per block, each ending with ';' at the end of its last line.

-- source: https://github.com/apache/flink/blob/024f29a39cc4449089371d8a72b88ad8679f7fc4/docs/content/docs/dev/table/sql/create.md
CREATE TABLE Orders (
    `user` BIGINT,
    product STRING,
    order_time TIMESTAMP(3)
) WITH ( 
    'connector' = 'kafka',
    'scan.startup.mode' = 'earliest-offset'
);

-- source: https://github.com/apache/flink/blob/024f29a39cc4449089371d8a72b88ad8679f7fc4/docs/content/docs/dev/table/sql/create.md
CREATE TABLE Orders_with_watermark (
    -- Add watermark definition
    WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND 
) WITH (
    -- Overwrite the startup-mode
    'scan.startup.mode' = 'latest-offset'
)
LIKE Orders;

-- source: https://github.com/apache/flink/blob/024f29a39cc4449089371d8a72b88ad8679f7fc4/docs/content/docs/dev/table/sql/create.md
CREATE TABLE Orders_with_watermark (
    `user` BIGINT,
    product STRING,
    order_time TIMESTAMP(3),
    WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND 
) WITH (
    'connector' = 'kafka',
    'scan.startup.mode' = 'latest-offset'
);

-- source: https://github.com/apache/flink/blob/024f29a39cc4449089371d8a72b88ad8679f7fc4/docs/content/docs/dev/table/sql/create.md
CREATE TABLE Orders_in_file (
    `user` BIGINT,
    product STRING,
    order_time_string STRING,
    order_time AS to_timestamp(order_time_string)
    
)
PARTITIONED BY (`user`) 
WITH ( 
    'connector' = 'filesystem',
    'path' = '...'
);

-- source: https://github.com/apache/flink/blob/024f29a39cc4449089371d8a72b88ad8679f7fc4/docs/content/docs/dev/table/sql/create.md
DROP TABLE my_rtas_table;

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
ALTER TABLE Orders ADD `order` INT COMMENT 'order identifier' FIRST;

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
ALTER TABLE Orders ADD (ts TIMESTAMP(3), category STRING AFTER product, PRIMARY KEY(`order`) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '1' HOUR);

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
ALTER TABLE Orders MODIFY (amount DOUBLE NOT NULL, category STRING COMMENT 'category identifier' AFTER `order`, WATERMARK FOR ts AS ts);

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
ALTER TABLE Orders DROP WATERMARK;

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
ALTER TABLE Orders DROP (amount, ts, category);

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
ALTER TABLE Orders RENAME `order` to `order_id`;

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
ALTER TABLE Orders RENAME `order` TO order_id;

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
ALTER TABLE Orders RENAME TO NewOrders;

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
ALTER TABLE MyTable ADD category_id STRING COMMENT 'identifier of the category';

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
ALTER TABLE MyTable ADD (
    log_ts STRING COMMENT 'log timestamp string' FIRST,
    ts AS TO_TIMESTAMP(log_ts) AFTER log_ts,
    PRIMARY KEY (id) NOT ENFORCED,
    WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
);

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
ALTER TABLE MyTable MODIFY measurement double COMMENT 'unit is bytes per second' AFTER `id`;

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
ALTER TABLE MyTable MODIFY (
    log_ts STRING COMMENT 'log timestamp string' AFTER `id`,  -- reorder columns
    ts AS TO_TIMESTAMP(log_ts) AFTER log_ts,
    PRIMARY KEY (id) NOT ENFORCED,
    WATERMARK FOR ts AS ts -- modify watermark strategy
);

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
ALTER TABLE MyTable DROP measurement;

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
ALTER TABLE MyTable DROP (col1, col2, col3);

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
ALTER TABLE MyTable DROP PRIMARY KEY;

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
ALTER TABLE MyTable DROP WATERMARK;

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
ALTER TABLE MyTable RENAME `data` TO payload;

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
ALTER TABLE MyTable RENAME TO MyTable2;

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
ALTER TABLE DataGenSource SET ('rows-per-second' = '10');

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
ALTER TABLE DataGenSource RESET ('rows-per-second');

-- source: https://github.com/apache/flink/blob/3396c533b7fe62b39b4f5d7058616d61afba750e/docs/content/docs/dev/table/sql/drop.md
DROP TABLE Orders;

-- source: https://github.com/apache/flink/blob/c5ed2b740eb2c5c366c4fa20abbb88faef2398dd/docs/content/docs/dev/table/sql/explain.md
CREATE TABLE MyTable1 (`count` bigint, word VARCHAR(256)) WITH ('connector' = 'datagen');

-- source: https://github.com/apache/flink/blob/c5ed2b740eb2c5c366c4fa20abbb88faef2398dd/docs/content/docs/dev/table/sql/explain.md
CREATE TABLE MyTable2 (`count` bigint, word VARCHAR(256)) WITH ('connector' = 'datagen');

-- source: https://github.com/apache/flink/blob/c5ed2b740eb2c5c366c4fa20abbb88faef2398dd/docs/content/docs/dev/table/sql/explain.md
CREATE TABLE MyTable (
  a BIGINT,
  b INT NOT NULL,
  c VARCHAR,
  d BIGINT
) WITH (
  'connector' = 'values',
  'bounded' = 'false');

-- source: https://github.com/apache/flink/blob/c5ed2b740eb2c5c366c4fa20abbb88faef2398dd/docs/content/docs/dev/table/sql/explain.md
CREATE TABLE MyTable (
  a INT,
  b BIGINT,
  c STRING,
  d INT,
  `day` AS DATE_FORMAT(CURRENT_TIMESTAMP, 'yyMMdd'),
  PRIMARY KEY (a, c) NOT ENFORCED
) WITH (
  'connector' = 'values',
  'changelog-mode' = 'I,UA,UB,D'  
);

-- source: https://github.com/apache/flink/blob/c5ed2b740eb2c5c366c4fa20abbb88faef2398dd/docs/content/docs/dev/table/sql/explain.md
CREATE TABLE MySink (
 a INT,
 b BIGINT,
 c STRING,
 PRIMARY KEY (a) NOT ENFORCED
) WITH (
 'connector' = 'values',
 'sink-insert-only' = 'false'
);

-- source: https://github.com/apache/flink/blob/c5ed2b740eb2c5c366c4fa20abbb88faef2398dd/docs/content/docs/dev/table/sql/explain.md
CREATE TABLE MyTable (
  a INT,
  b BIGINT,
  c STRING,
  d INT
) WITH (
  'connector' = 'values',
  'changelog-mode' = 'I'  
);

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
CREATE VIEW my_view AS SELECT * FROM my_table;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
CREATE VIEW my_view AS SELECT * from my_table;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
CREATE TABLE orders (
  order_id BIGINT NOT NULL comment 'this is the primary key, named ''order_id''.',
  product VARCHAR(32),
  amount INT,
  ts TIMESTAMP(3) comment 'notice: watermark, named ''ts''.',
  ptime AS PROCTIME() comment 'notice: computed column, named ''ptime''.',
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND,
  CONSTRAINT `PK_order_id` PRIMARY KEY (order_id) NOT ENFORCED
) WITH (
  'connector' = 'datagen'
);

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
CREATE TABLE `default_catalog`.`default_database`.`orders` (
  `order_id` BIGINT NOT NULL COMMENT 'this is the primary key, named ''order_id''.',
  `product` VARCHAR(32),
  `amount` INT,
  `ts` TIMESTAMP(3) COMMENT 'notice: watermark, named ''ts''.',
  `ptime` AS PROCTIME() COMMENT 'notice: computed column, named ''ptime''.',
  WATERMARK FOR `ts` AS `ts` - INTERVAL '1' SECOND,
  CONSTRAINT `PK_order_id` PRIMARY KEY (`order_id`) NOT ENFORCED
) WITH (
  'connector' = 'datagen'
);

-- source: https://github.com/apache/flink/blob/04e7433cc4ea4ffc8f254212f0d6a4355a4c051a/docs/content/docs/dev/table/sql/queries/joins.md
CREATE TEMPORARY TABLE Customers (
  id INT,
  name STRING,
  country STRING,
  zip STRING
) WITH (
  'connector' = 'jdbc',
  'url' = 'jdbc:mysql://mysqlhost:3306/customerdb',
  'table-name' = 'customers'
);

-- source: https://github.com/apache/flink/blob/0c0d7cfb7b32e01c86ddd33f97e09f48d9df9d34/docs/content/docs/dev/table/sql/queries/hints.md
CREATE TEMPORARY TABLE Customers (
  id INT,
  name STRING,
  country STRING,
  zip STRING,
  -- the newly added time-dependent version field
  update_version STRING
) WITH (
  'connector' = 'jdbc',
  'url' = 'jdbc:mysql://mysqlhost:3306/customerdb',
  'table-name' = 'customers'
);

-- source: https://github.com/apache/flink/blob/1a0227f86d34f43d414f9f48e3e0cb7d7124dbcf/docs/content/docs/dev/table/sql/gettingStarted.md
CREATE TABLE employee_information (
    emp_id INT,
    name VARCHAR,
    dept_id INT
) WITH ( 
    'connector' = 'filesystem',
    'path' = '/path/to/something.csv',
    'format' = 'csv'
);

-- source: https://github.com/apache/flink/blob/dd27ca623ae0314ab10aac13775b93cf1b7b8a3f/docs/content/docs/dev/table/sql/examples/kafka-to-kafka/kafka-to-kafka.md
CREATE TABLE kafka_input (
  name STRING,
  email STRING,
  role STRING
) WITH (
  'connector' = 'kafka',
  'topic' = 'i-topic',
  'properties.bootstrap.servers' = 'kafka:9093',
  'properties.group.id' = 'flink-i-consumer',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json',
  'json.ignore-parse-errors' = 'true'
);

-- source: https://github.com/apache/flink/blob/dd27ca623ae0314ab10aac13775b93cf1b7b8a3f/docs/content/docs/dev/table/sql/examples/kafka-to-kafka/kafka-to-kafka.md
CREATE TABLE kafka_output (
  name STRING,
  email STRING,
  role STRING
) WITH (
  'connector' = 'kafka',
  'topic' = 'o-topic',
  'properties.bootstrap.servers' = 'kafka:9093',
  'format' = 'json'
);

-- source: https://nightlies.apache.org/flink/flink-docs-release-2.2/docs/connectors/table/kafka/
CREATE TABLE KafkaTable (
  `user_id` BIGINT,
  `item_id` BIGINT,
  `behavior` STRING,
  `ts` TIMESTAMP_LTZ(3) METADATA FROM 'timestamp'
) WITH (
  'connector' = 'kafka',
  'topic' = 'user_behavior',
  'properties.bootstrap.servers' = 'localhost:9092',
  'properties.group.id' = 'testGroup',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'csv'
);

-- source: https://nightlies.apache.org/flink/flink-docs-release-2.2/docs/connectors/table/kafka/
CREATE TABLE KafkaTable (
  `event_time` TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  `partition` BIGINT METADATA VIRTUAL,
  `offset` BIGINT METADATA VIRTUAL,
  `user_id` BIGINT,
  `item_id` BIGINT,
  `behavior` STRING
) WITH (
  'connector' = 'kafka',
  'topic' = 'user_behavior',
  'properties.bootstrap.servers' = 'localhost:9092',
  'properties.group.id' = 'testGroup',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'csv'
);

-- source: https://nightlies.apache.org/flink/flink-docs-release-2.2/docs/connectors/table/kafka/
CREATE TABLE KafkaTable (
  `event_time` TIMESTAMP_LTZ(3) METADATA FROM 'value.source.timestamp' VIRTUAL,  -- from Debezium format
  `origin_table` STRING METADATA FROM 'value.source.table' VIRTUAL, -- from Debezium format
  `partition_id` BIGINT METADATA FROM 'partition' VIRTUAL,  -- from Kafka connector
  `offset` BIGINT METADATA VIRTUAL,  -- from Kafka connector
  `user_id` BIGINT,
  `item_id` BIGINT,
  `behavior` STRING
) WITH (
  'connector' = 'kafka',
  'topic' = 'user_behavior',
  'properties.bootstrap.servers' = 'localhost:9092',
  'properties.group.id' = 'testGroup',
  'scan.startup.mode' = 'earliest-offset',
  'value.format' = 'debezium-json'
);

-- source: https://github.com/apache/flink/blob/462cbd1cf74422aa22733f9361554adb7a96b0a2/docs/content/docs/dev/table/concepts/versioned_tables.md
CREATE TABLE currency_rates (
	currency      STRING,
	rate          DECIMAL(32, 10),
	update_time   TIMESTAMP(3),
	WATERMARK FOR update_time AS update_time
) WITH (
	'connector' = 'kafka',
	'topic'	    = 'rates',
	'properties.bootstrap.servers' = 'localhost:9092',
	'format'    = 'json'
);

-- source: https://github.com/apache/flink/blob/462cbd1cf74422aa22733f9361554adb7a96b0a2/docs/content/docs/dev/table/concepts/versioned_tables.md
CREATE VIEW versioned_rates AS              
SELECT currency, rate, update_time              -- (1) `update_time` keeps the event time
  FROM (
      SELECT *,
      ROW_NUMBER() OVER (PARTITION BY currency  -- (2) the inferred unique key `currency` can be a primary key
         ORDER BY update_time DESC) AS rownum 
      FROM currency_rates)
WHERE rownum = 1;

-- source: https://github.com/apache/flink/blob/04cf32ddebf3c1c8bcb8117c27cf1cf3e98cbba5/docs/content/docs/dev/table/concepts/timezone.md
CREATE VIEW T1 AS SELECT TO_TIMESTAMP_LTZ(4001, 3);

-- source: https://github.com/apache/flink/blob/04cf32ddebf3c1c8bcb8117c27cf1cf3e98cbba5/docs/content/docs/dev/table/concepts/timezone.md
CREATE VIEW MyView1 AS SELECT LOCALTIME, LOCALTIMESTAMP, CURRENT_DATE, CURRENT_TIME, CURRENT_TIMESTAMP, CURRENT_ROW_TIMESTAMP(), NOW(), PROCTIME();

-- source: https://github.com/apache/flink/blob/04cf32ddebf3c1c8bcb8117c27cf1cf3e98cbba5/docs/content/docs/dev/table/concepts/timezone.md
CREATE VIEW MyView2 AS SELECT TO_TIMESTAMP_LTZ(4001, 3) AS ltz, TIMESTAMP '1970-01-01 00:00:01.001'  AS ntz;

-- source: https://github.com/apache/flink/blob/04cf32ddebf3c1c8bcb8117c27cf1cf3e98cbba5/docs/content/docs/dev/table/concepts/timezone.md
CREATE VIEW MyView3 AS SELECT ltz, CAST(ltz AS TIMESTAMP(3)), CAST(ltz AS STRING), ntz, CAST(ntz AS TIMESTAMP_LTZ(3)) FROM MyView2;

-- source: https://github.com/apache/flink/blob/04cf32ddebf3c1c8bcb8117c27cf1cf3e98cbba5/docs/content/docs/dev/table/concepts/timezone.md
CREATE TABLE MyTable1 (
                  item STRING,
                  price DOUBLE,
                  proctime as PROCTIME()
            ) WITH (
                'connector' = 'socket',
                'hostname' = '127.0.0.1',
                'port' = '9999',
                'format' = 'csv'
           );

-- source: https://github.com/apache/flink/blob/04cf32ddebf3c1c8bcb8117c27cf1cf3e98cbba5/docs/content/docs/dev/table/concepts/timezone.md
CREATE VIEW MyView3 AS
            SELECT
                TUMBLE_START(proctime, INTERVAL '10' MINUTES) AS window_start,
                TUMBLE_END(proctime, INTERVAL '10' MINUTES) AS window_end,
                TUMBLE_PROCTIME(proctime, INTERVAL '10' MINUTES) as window_proctime,
                item,
                MAX(price) as max_price
            FROM MyTable1
                GROUP BY TUMBLE(proctime, INTERVAL '10' MINUTES), item;

-- source: https://github.com/apache/flink/blob/04cf32ddebf3c1c8bcb8117c27cf1cf3e98cbba5/docs/content/docs/dev/table/concepts/timezone.md
CREATE TABLE MyTable2 (
                  item STRING,
                  price DOUBLE,
                  ts TIMESTAMP(3), -- TIMESTAMP data type
                  WATERMARK FOR ts AS ts - INTERVAL '10' SECOND
            ) WITH (
                'connector' = 'socket',
                'hostname' = '127.0.0.1',
                'port' = '9999',
                'format' = 'csv'
           );

-- source: https://github.com/apache/flink/blob/04cf32ddebf3c1c8bcb8117c27cf1cf3e98cbba5/docs/content/docs/dev/table/concepts/timezone.md
CREATE VIEW MyView4 AS
            SELECT
                TUMBLE_START(ts, INTERVAL '10' MINUTES) AS window_start,
                TUMBLE_END(ts, INTERVAL '10' MINUTES) AS window_end,
                TUMBLE_ROWTIME(ts, INTERVAL '10' MINUTES) as window_rowtime,
                item,
                MAX(price) as max_price
            FROM MyTable2
                GROUP BY TUMBLE(ts, INTERVAL '10' MINUTES), item;

-- source: https://github.com/apache/flink/blob/04cf32ddebf3c1c8bcb8117c27cf1cf3e98cbba5/docs/content/docs/dev/table/concepts/timezone.md
CREATE TABLE MyTable3 (
                  item STRING,
                  price DOUBLE,
                  ts BIGINT, -- long time value in epoch milliseconds
                  ts_ltz AS TO_TIMESTAMP_LTZ(ts, 3),
                  WATERMARK FOR ts_ltz AS ts_ltz - INTERVAL '10' SECOND
            ) WITH (
                'connector' = 'socket',
                'hostname' = '127.0.0.1',
                'port' = '9999',
                'format' = 'csv'
           );

-- source: https://github.com/apache/flink/blob/04cf32ddebf3c1c8bcb8117c27cf1cf3e98cbba5/docs/content/docs/dev/table/concepts/timezone.md
CREATE VIEW MyView5 AS
            SELECT
                TUMBLE_START(ts_ltz, INTERVAL '10' MINUTES) AS window_start,
                TUMBLE_END(ts_ltz, INTERVAL '10' MINUTES) AS window_end,
                TUMBLE_ROWTIME(ts_ltz, INTERVAL '10' MINUTES) as window_rowtime,
                item,
                MAX(price) as max_price
            FROM MyTable3
                GROUP BY TUMBLE(ts_ltz, INTERVAL '10' MINUTES), item;

-- source: https://github.com/apache/flink/blob/d04405c0f6ef0c661909935a1a3fb0b1c79d2540/docs/content/docs/connectors/table/datagen.md
CREATE TABLE Orders (
    order_number BIGINT,
    price        DECIMAL(32,2),
    buyer        ROW<first_name STRING, last_name STRING>,
    order_time   TIMESTAMP(3)
) WITH (
  'connector' = 'datagen'
);

-- source: https://github.com/apache/flink/blob/d04405c0f6ef0c661909935a1a3fb0b1c79d2540/docs/content/docs/connectors/table/datagen.md
CREATE TEMPORARY TABLE GenOrders
WITH (
    'connector' = 'datagen',
    'number-of-rows' = '10'
)
LIKE Orders (EXCLUDING ALL);

-- source: https://github.com/apache/flink/blob/5bb9e6f3e0283d9f9df8bfbc65953adb194bdb48/docs/content/docs/connectors/table/print.md
CREATE TABLE print_table (
  f0 INT,
  f1 INT,
  f2 STRING,
  f3 DOUBLE
) WITH (
  'connector' = 'print'
);

-- source: https://github.com/apache/flink/blob/5bb9e6f3e0283d9f9df8bfbc65953adb194bdb48/docs/content/docs/connectors/table/print.md
CREATE TABLE print_table WITH ('connector' = 'print')
LIKE source_table (EXCLUDING ALL);

-- source: https://github.com/apache/flink/blob/9537c5c390b97c5fe960a369556ae1c4d8568a15/docs/content/docs/connectors/table/blackhole.md
CREATE TABLE blackhole_table (
  f0 INT,
  f1 INT,
  f2 STRING,
  f3 DOUBLE
) WITH (
  'connector' = 'blackhole'
);

-- source: https://github.com/apache/flink/blob/9537c5c390b97c5fe960a369556ae1c4d8568a15/docs/content/docs/connectors/table/blackhole.md
CREATE TABLE blackhole_table WITH ('connector' = 'blackhole')
LIKE source_table (EXCLUDING ALL);

-- source: https://github.com/apache/flink/blob/0d0ef54581b1b531a7862507f448bbc5a4344c92/docs/content/docs/connectors/table/filesystem.md
CREATE TABLE fs_table (
  user_id STRING,
  order_amount DOUBLE,
  dt STRING,
  `hour` STRING
) PARTITIONED BY (dt, `hour`) WITH (
  'connector'='filesystem',
  'path'='...',
  'format'='parquet',
  'sink.partition-commit.delay'='1 h',
  'sink.partition-commit.policy.kind'='success-file'
);

-- source: https://github.com/apache/flink/blob/1cd5558ad5984571e0f94670fa833c79c3a299ec/docs/content/docs/connectors/table/upsert-kafka.md
CREATE TABLE pageviews_per_region (
  user_region STRING,
  pv BIGINT,
  uv BIGINT,
  PRIMARY KEY (user_region) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'pageviews_per_region',
  'properties.bootstrap.servers' = '...',
  'key.format' = 'avro',
  'value.format' = 'avro'
);

-- source: https://github.com/apache/flink/blob/1cd5558ad5984571e0f94670fa833c79c3a299ec/docs/content/docs/connectors/table/upsert-kafka.md
CREATE TABLE pageviews (
  user_id BIGINT,
  page_id BIGINT,
  viewtime TIMESTAMP,
  user_region STRING,
  WATERMARK FOR viewtime AS viewtime - INTERVAL '2' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'pageviews',
  'properties.bootstrap.servers' = '...',
  'format' = 'json'
);
